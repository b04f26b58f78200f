// Registry entries sm89.mma.s* -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

Status launch_mma_s2(const GemmArgs& a) { return launch_variant<Config<16, 2, false, false, false>>(a); }
Status launch_mma_s3(const GemmArgs& a) { return launch_variant<Config<16, 3, false, false, false>>(a); }
Status launch_mma_s4(const GemmArgs& a) { return launch_variant<Config<16, 4, false, false, false>>(a); }
Status launch_mma_s5(const GemmArgs& a) { return launch_variant<Config<16, 5, false, false, false>>(a); }

}  // namespace tcgemm::sm89
