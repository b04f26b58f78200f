// Registry entries sm89.mma_wt64.s* -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// BM, BN, BK, warps along M, warps along N, stages, swizzle A, swizzle B, B by ldmatrix.x4, blocks/SM
Status launch_mma_wt64_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 32, 2, 4, 3, true, true, true, 1>>(a);
}
Status launch_mma_wt64_s4(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 32, 2, 4, 4, true, true, true, 1>>(a);
}
// The same with a 64-deep K slice: four k16 steps between barriers.
Status launch_mma_wt64_k64_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 64, 2, 4, 3, true, true, true, 1>>(a);
}

}  // namespace tcgemm::sm89
