// Registry entry sm90.ws_fp8.block.mcast -- ws_fp8.block.overlap in
// ws_fp8.mcast's 2-CTA clusters along M (B multicast to both CTAs: 24 KB
// from the L2 per 128-K stage instead of 32). A CTA's tile is still one
// 128-column block of B's scales; the cluster changes which CTA loads what,
// not the promotion.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockMcast{.tile_n = 128,
                                  .stages = 6,
                                  .cluster_m = 2,
                                  .schedule = Schedule::data_parallel,
                                  .store = Store::direct,
                                  .fp8 = Fp8::e4m3_e4m3,
                                  .scaling = Scaling::block,
                                  .promotion = Promotion::overlapped};

Status launch_ws_fp8_block_mcast(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockMcast>(a); }

}  // namespace tcgemm::sm90
