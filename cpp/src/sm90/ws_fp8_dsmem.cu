// Registry entries sm90.ws_fp8.dsmem and sm90.ws_fp8.block.dsmem -- ws_fp8
// and ws_fp8.block with a tile's K slices in one cluster (Schedule::
// cluster_split, as ws_splitk.dsmem for 16-bit operands): rank 0 adds the
// other slices' fp32 sums out of their shared memory in rank order and stores
// the tile. For decode and other shapes whose 128 x 128 tiles are too few to
// fill the GPU: 32 tiles of a 4096-wide weight keep 32 of 132 SMs streaming
// it, 4 slices each keep 128. Scales: a tensor / row-wise slice is scaled
// before the sum (linear), a block slice is promoted as it goes (its blocks
// are whole stages). 5 stages of 32 KB beside the 64 KB hand-over buffer.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8ClusterSplit{.tile_n = 128,
                                    .stages = 5,
                                    .schedule = Schedule::cluster_split,
                                    .store = Store::direct,
                                    .fp8 = Fp8::e4m3_e4m3,
                                    .scaling = Scaling::epilogue};

Status launch_ws_fp8_dsmem(const GemmArgs& a) { return launch_ws_scaled<kFp8ClusterSplit>(a); }

}  // namespace tcgemm::sm90
