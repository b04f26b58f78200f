// Registry entry sm90.ws_fp8.block.overlap.scale_warp -- ws_fp8.block.overlap
// with its scales brought by the scale warp (BlockScaleLoads::scale_warp): a
// producer warp copies each stage's 128 row scales of A and column-block
// scale of B into a slot beside the stage, and block kt - 1's are read from
// its slot once its sum is complete, while block kt's wgmmas run
// (ws_kernel_body.inc, docs/fp8.md).
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
