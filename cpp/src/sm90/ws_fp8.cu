// Registry entry sm90.ws_fp8 -- the warp-specialized persistent kernel with
// FP8 operands (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3; wgmma m64n128k32, fp32
// accumulators) and tensor-wise or row-wise dequantization scales applied in
// the epilogue (epilogue_scales.cuh), then bias and activation; bf16, fp16 or
// fp32 output. TN only: FP8 wgmma reads both operands K-major.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// 128x128 tiles of 128 k per stage (16 + 16 KB), 6 stages, 2 consumers, grouped raster, no cluster.
constexpr WsConfig kFp8{.tile_n = 128,
                        .stages = 6,
                        .schedule = Schedule::data_parallel,
                        .store = Store::direct,
                        .fp8 = Fp8::e4m3_e4m3,
                        .scaling = Scaling::epilogue};

Status launch_ws_fp8(const GemmArgs& a) { return launch_ws_scaled<kFp8>(a); }

}  // namespace tcgemm::sm90
