// Registry entries sm89.mma_unroll{,_8w}.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// mma_spread{,_8w} with the spread iterations unrolled by the stage count
// (Config::UNROLL_STAGES), so every pipeline slot is a compile-time constant.
Status launch_mma_unroll_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 3, true, true, true, 2, true, true, true, true>>(a);
}
Status launch_mma_unroll_8w_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 64, 2, 4, 3, true, true, true, 1, true, true, true, true>>(a);
}

}  // namespace tcgemm::sm89
