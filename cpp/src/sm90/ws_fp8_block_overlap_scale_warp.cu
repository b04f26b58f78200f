// Registry entry sm90.ws_fp8.block.overlap.scale_warp -- ws_fp8.block.overlap
// with its scales brought by the scale warp (BlockScaleLoads::scale_warp, as
// ws_fp8.block.scale_warp): block kt - 1's scales are read from its slot
// once its sum is complete, while block kt's wgmmas run.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockOverlapScaleWarp{.tile_n = 128,
                                             .stages = 6,
                                             .schedule = Schedule::data_parallel,
                                             .store = Store::direct,
                                             .fp8 = Fp8::e4m3_e4m3,
                                             .scaling = Scaling::block,
                                             .promotion = Promotion::overlapped,
                                             .block_scale_loads = BlockScaleLoads::scale_warp};

Status launch_ws_fp8_block_overlap_scale_warp(const GemmArgs& a) {
  return launch_ws_scaled<kFp8BlockOverlapScaleWarp>(a);
}

}  // namespace tcgemm::sm90
