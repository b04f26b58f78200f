// Registry entry sm90.ws_fp8.promoted.dsmem: ws_fp8.dsmem's cluster split
// with ws_fp8.promoted's fp32 accumulation -- each slice promotes its blocks
// as it goes, scales its sum and hands it to rank 0 (the configuration
// differs from ws_fp8.dsmem's in its promotion only).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PromotedClusterSplit{.tile_n = 128,
                                            .stages = 5,
                                            .schedule = Schedule::cluster_split,
                                            .store = Store::direct,
                                            .fp8 = Fp8::e4m3_e4m3,
                                            .scaling = Scaling::epilogue,
                                            .promotion = Promotion::per_block};

Status launch_ws_fp8_promoted_dsmem(const GemmArgs& a) { return launch_ws_scaled<kFp8PromotedClusterSplit>(a); }

}  // namespace tcgemm::sm90
