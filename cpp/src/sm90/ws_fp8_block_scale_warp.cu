// Registry entry sm90.ws_fp8.block.scale_warp -- ws_fp8.block with its
// scales brought by a producer warp (BlockScaleLoads::scale_warp): each
// stage's 128 row scales of A and column-block scale of B are copied into a
// slot beside the stage under its full barrier, so the consumers' K loop
// reads them from shared memory with no per-lane global address arithmetic
// among a block's wgmma issues (docs/fp8.md).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockScaleWarp{.tile_n = 128,
                                      .stages = 6,
                                      .schedule = Schedule::data_parallel,
                                      .store = Store::direct,
                                      .fp8 = Fp8::e4m3_e4m3,
                                      .scaling = Scaling::block,
                                      .block_scale_loads = BlockScaleLoads::scale_warp};

Status launch_ws_fp8_block_scale_warp(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockScaleWarp>(a); }

}  // namespace tcgemm::sm90
