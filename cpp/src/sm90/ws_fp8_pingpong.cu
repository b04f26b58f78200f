// Registry entry sm90.ws_fp8.pingpong -- ws_fp8 with ws_pingpong's
// consumers: each warpgroup owns whole 128x128 tiles (two m64n128k32 per k32
// step, 128 accumulators per thread) and the two take turns, so that one's
// epilogue (scales, then registers -> swizzled boxes -> TMA store) runs
// while the other's wgmmas keep the tensor cores busy. An FP8 stage's
// wgmmas take half the time of a 16-bit stage's, so a tile's epilogue is
// twice as large a share of the cooperative kernels' time. bf16 / fp16
// output only (the TMA store's boxes are 16-bit). 5 stages of 32 KB beside
// the 32 KB of staging boxes.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PingPong{.tile_n = 128,
                                .stages = 5,
                                .math = Math::ping_pong,
                                .schedule = Schedule::data_parallel,
                                .store = Store::tma,
                                .fp8 = Fp8::e4m3_e4m3,
                                .scaling = Scaling::epilogue};

Status launch_ws_fp8_pingpong(const GemmArgs& a) { return launch_ws_scaled<kFp8PingPong>(a); }

}  // namespace tcgemm::sm90
