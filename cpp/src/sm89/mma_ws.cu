// Registry entry sm89.mma_ws.s4 -- see mma_ws_gemm.cuh.
#include "sm89/launch.h"
#include "sm89/mma_ws_gemm.cuh"

namespace tcgemm::sm89 {

// mma_spread's 128x128x64 tiles and fragments (4 MMA warps of 64x64), fed by
// 4 copy warps through mbarriers instead of block-wide copies and barriers;
// 4 stages (128 KB), one block per SM.
Status launch_mma_ws_s4(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 4, true, true, true, 1, true, true>, MmaWs<4>::Launch>(a);
}

}  // namespace tcgemm::sm89
