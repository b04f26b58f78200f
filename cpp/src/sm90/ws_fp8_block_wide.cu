// Registry entry sm90.ws_fp8.block.wide -- ws_fp8.block on ws_fp8.wide's
// tiles (128 x 256, 2-CTA clusters along M multicasting B): a tile is two
// 128-column blocks of B's scales, and each 128-K block is summed afresh one
// such block at a time (WsTraits::FRESH_N, ws_kernel_body.inc), scaled by
// its own factor and added in fp32.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockWide{.tile_n = 256,
                                 .stages = 4,
                                 .cluster_m = 2,
                                 .schedule = Schedule::data_parallel,
                                 .store = Store::direct,
                                 .fp8 = Fp8::e4m3_e4m3,
                                 .scaling = Scaling::block,
                                 .promotion = Promotion::per_block};

Status launch_ws_fp8_block_wide(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockWide>(a); }

}  // namespace tcgemm::sm90
