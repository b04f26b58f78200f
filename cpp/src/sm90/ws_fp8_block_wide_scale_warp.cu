// Registry entry sm90.ws_fp8.block.wide.scale_warp -- ws_fp8.block.wide with
// its scales brought by the scale warp (BlockScaleLoads::scale_warp, as
// ws_fp8.block.scale_warp): each CTA's slot holds its 128 rows' scales of A
// and the tile's two column blocks' scales of B.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockWideScaleWarp{.tile_n = 256,
                                          .stages = 4,
                                          .cluster_m = 2,
                                          .schedule = Schedule::data_parallel,
                                          .store = Store::direct,
                                          .fp8 = Fp8::e4m3_e4m3,
                                          .scaling = Scaling::block,
                                          .promotion = Promotion::per_block,
                                          .block_scale_loads = BlockScaleLoads::scale_warp};

Status launch_ws_fp8_block_wide_scale_warp(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockWideScaleWarp>(a); }

}  // namespace tcgemm::sm90
