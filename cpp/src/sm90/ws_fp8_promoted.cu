// Registry entry sm90.ws_fp8.promoted -- ws_fp8 with fp32 accumulation
// (Accum::f32, torch._scaled_mm's use_fast_accum=False): each 128-K block's
// wgmmas start a fresh sum that is added into fp32 registers (promotion, as
// ws_fp8.block without the block's factor); the tensor-wise or row-wise scales
// are applied in the epilogue as ws_fp8's. Over a deep K the FP8 wgmma's own
// accumulator drifts (docs/fp8.md, Accuracy); promoted, the error stays at the
// output's rounding, as cuBLASLt's default path.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8Promoted{.tile_n = 128,
                                .stages = 6,
                                .schedule = Schedule::data_parallel,
                                .store = Store::direct,
                                .fp8 = Fp8::e4m3_e4m3,
                                .scaling = Scaling::epilogue,
                                .promotion = Promotion::per_block};

Status launch_ws_fp8_promoted(const GemmArgs& a) { return launch_ws_scaled<kFp8Promoted>(a); }

}  // namespace tcgemm::sm90
