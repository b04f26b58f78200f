// Registry entry sm89.mma_dbuf.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// mma_2blk.s3's tile, warps and pipeline, with double-buffered fragments.
// BM, BN, BK, warps along M, warps along N, stages, swizzle A, swizzle B, B by ldmatrix.x4, blocks/SM, fragment
// double buffering
Status launch_mma_dbuf_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 3, true, true, true, 2, true>>(a);
}

}  // namespace tcgemm::sm89
