// Registry entry sm89.mma_ragged.s2 -- mma_bk32 reading its operands
// through registers, element by element, so that rows may start at any
// 2-byte boundary (mma_ragged_gemm.cuh says why and how).
#include "sm89/launch.h"
#include "sm89/mma_ragged_gemm.cuh"

namespace tcgemm::sm89 {

Status launch_mma_ragged_s2(const GemmArgs& a) {
  return launch_variant<Config<ladder::mma_ragged>, MmaRaggedLaunch>(a);
}

}  // namespace tcgemm::sm89
