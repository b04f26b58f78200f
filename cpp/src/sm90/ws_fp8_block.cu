// Registry entry sm90.ws_fp8.block -- ws_fp8 with block scales (A 1 x 128,
// B 128 x 128: DeepSeek-V3's recipe, DeepGEMM's kernels): a stage is one
// 128-K block, whose wgmmas start a fresh fp32 sum that is scaled by
// scale_a[row][kb] * scale_b[nb][kb] and added to the fp32 accumulators
// (promotion, epilogue_scales.cuh). 128-wide tiles, so each tile reads one
// column block of B's scales.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8Block{.tile_n = 128,
                             .stages = 6,
                             .schedule = Schedule::data_parallel,
                             .store = Store::direct,
                             .fp8 = Fp8::e4m3_e4m3,
                             .scaling = Scaling::block};

Status launch_ws_fp8_block(const GemmArgs& a) { return launch_ws_scaled<kFp8Block>(a); }

}  // namespace tcgemm::sm90
