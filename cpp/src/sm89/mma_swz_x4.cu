// Registry entries sm89.mma_swz_x4.s* -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

Status launch_mma_swz_x4_s3(const GemmArgs& a) { return launch_variant<Config<16, 3, true, true, true>>(a); }
Status launch_mma_swz_x4_s4(const GemmArgs& a) { return launch_variant<Config<16, 4, true, true, true>>(a); }
Status launch_mma_swz_x4_s5(const GemmArgs& a) { return launch_variant<Config<16, 5, true, true, true>>(a); }

}  // namespace tcgemm::sm89
