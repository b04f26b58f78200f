// Registry entry sm90.tma_wgmma -- see tma_wgmma_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/tma_wgmma_gemm.cuh"

namespace tcgemm::sm90 {

Status launch_tma_wgmma(const GemmArgs& a) { return launch_tma_wgmma_variant<TmaWgmmaConfig<1>>(a); }

}  // namespace tcgemm::sm90
