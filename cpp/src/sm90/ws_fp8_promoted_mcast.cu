// Registry entry sm90.ws_fp8.promoted.mcast -- ws_fp8.promoted.overlap in
// ws_fp8.mcast's 2-CTA clusters along M: the two CTAs compute vertically
// adjacent 128x128 tiles and each loads half of their shared B tile, TMA
// multicast to both (24 KB from the L2 per 128-K stage instead of 32). The
// one idea it adds to .overlap is the cluster; the promotion is the same.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PromotedMcast{.tile_n = 128,
                                     .stages = 6,
                                     .cluster_m = 2,
                                     .schedule = Schedule::data_parallel,
                                     .store = Store::direct,
                                     .fp8 = Fp8::e4m3_e4m3,
                                     .scaling = Scaling::epilogue,
                                     .promotion = Promotion::overlapped};

Status launch_ws_fp8_promoted_mcast(const GemmArgs& a) { return launch_ws_scaled<kFp8PromotedMcast>(a); }

}  // namespace tcgemm::sm90
