// Registry entries sm89.mma_iter_8w*.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// Address iterators on mma_wt64_k64's block: 128x256x64, 2x4 warps of 64x64,
// 3 stages, one 8-warp block per SM (half the operand bytes per FLOP of the
// 128x128 block); with and without double-buffered fragments.
Status launch_mma_iter_8w_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 64, 2, 4, 3, true, true, true, 1, false, true>>(a);
}
Status launch_mma_iter_8w_db_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 64, 2, 4, 3, true, true, true, 1, true, true>>(a);
}

}  // namespace tcgemm::sm89
