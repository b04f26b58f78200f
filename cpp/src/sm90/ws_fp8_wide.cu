// Registry entry sm90.ws_fp8.wide -- ws_fp8.mcast with 128x256 tiles (wgmma
// m64n256k32, 128 fp32 accumulators per consumer thread) and 4 stages of
// 48 KB. A CTA reads 128 rows of A and half of the 256 rows of B per stage,
// 32 KB per 8.4 MFLOP: half of ws_fp8's L2 bytes per flop, two thirds of
// ws_fp8.mcast's.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8Wide{.tile_n = 256,
                            .stages = 4,
                            .cluster_m = 2,
                            .schedule = Schedule::data_parallel,
                            .store = Store::direct,
                            .fp8 = Fp8::e4m3_e4m3,
                            .scaling = Scaling::epilogue};

Status launch_ws_fp8_wide(const GemmArgs& a) { return launch_ws_scaled<kFp8Wide>(a); }

}  // namespace tcgemm::sm90
