// Registry entry sm90.ws_fp8.tile192 -- ws_fp8.wide's loop on 192x192 tiles:
// three consumer warpgroups, each one m64n192k32 per k32 step (96
// accumulators a thread), in 2-CTA clusters along M that multicast B (96
// rows from each CTA), 4 stages of 48 KB. The tile is cuBLASLt's on FP8
// (nvjet ..._192x192_128x4_1x2_..., bench/results/h100_fp8_fast_wide.md):
// beside 128x128 and 128x256 a third grid, which makes whole waves of
// shapes the other two leave a short last round (3000x1536: 128 tiles on
// 132 SMs, where 128x256 clusters take two rounds and 128x128 tiles three).
// A CTA reads 36 KB of the L2 (192 rows of A, 96 of B) per 9.4 MFLOP
// stage, as ws_fp8.wide reads 32 KB per 8.4: the same bytes per flop.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8Tile192{.tile_n = 192,
                               .stages = 4,
                               .consumers = 3,
                               .cluster_m = 2,
                               .schedule = Schedule::data_parallel,
                               .store = Store::direct,
                               .fp8 = Fp8::e4m3_e4m3,
                               .scaling = Scaling::epilogue};

Status launch_ws_fp8_tile192(const GemmArgs& a) { return launch_ws_scaled<kFp8Tile192>(a); }

}  // namespace tcgemm::sm90
