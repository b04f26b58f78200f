// Registry entries sm89.mma_swz.s* -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

Status launch_mma_swz_s3(const GemmArgs& a) { return launch_variant<Config<16, 3, false, true, false>>(a); }
Status launch_mma_swz_s4(const GemmArgs& a) { return launch_variant<Config<16, 4, false, true, false>>(a); }

}  // namespace tcgemm::sm89
