// Registry entries sm89.mma.s* -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// BM, BN, BK, warps along M, warps along N, stages, swizzle A, swizzle B, B by ldmatrix.x4, blocks/SM
Status launch_mma_s2(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 16, 2, 4, 2, false, false, false, 2>>(a);
}
Status launch_mma_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 16, 2, 4, 3, false, false, false, 2>>(a);
}
Status launch_mma_s4(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 16, 2, 4, 4, false, false, false, 2>>(a);
}
Status launch_mma_s5(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 16, 2, 4, 5, false, false, false, 2>>(a);
}

}  // namespace tcgemm::sm89
