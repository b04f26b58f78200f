// Registry entry sm89.mma_iter.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// mma_2blk's block (128x128x64, 2x2 warps of 64x64, 3 stages, 2 blocks/SM)
// with address iterators (Config::ADDR_ITER).
Status launch_mma_iter_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 3, true, true, true, 2, false, true>>(a);
}

}  // namespace tcgemm::sm89
