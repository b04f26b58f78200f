// Registry entry sm90.ws_fp8.block.dsmem: ws_fp8.dsmem.cu's cluster split
// with block scales (the configuration differs in its scaling only; one
// translation unit per entry keeps the builds parallel).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockClusterSplit{.tile_n = 128,
                                         .stages = 5,
                                         .schedule = Schedule::cluster_split,
                                         .store = Store::direct,
                                         .fp8 = Fp8::e4m3_e4m3,
                                         .scaling = Scaling::block};

Status launch_ws_fp8_block_dsmem(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockClusterSplit>(a); }

}  // namespace tcgemm::sm90
