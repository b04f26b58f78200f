// Registry entry sm90.ws_fp8.mcast -- ws_fp8 with 2-CTA clusters along M:
// the two CTAs of a cluster compute vertically adjacent 128x128 tiles, each
// loads half of their shared B tile and TMA multicasts it to both (as
// ws_mcast does for 16-bit operands). Alone, a 128x128 tile reads 32 KB
// from the L2 per 128-K stage of 4.2 MFLOP: 11 TB/s across the GPU at 1500
// TFLOPS. With B shared it reads 24 KB.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8Mcast{.tile_n = 128,
                             .stages = 6,
                             .cluster_m = 2,
                             .schedule = Schedule::data_parallel,
                             .store = Store::direct,
                             .fp8 = Fp8::e4m3_e4m3,
                             .scaling = Scaling::epilogue};

Status launch_ws_fp8_mcast(const GemmArgs& a) { return launch_ws_scaled<kFp8Mcast>(a); }

}  // namespace tcgemm::sm90
