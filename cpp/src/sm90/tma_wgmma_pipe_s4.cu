// Registry entry sm90.tma_wgmma_pipe.s4 -- see tma_wgmma_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/tma_wgmma_gemm.cuh"

namespace tcgemm::sm90 {

Status launch_tma_wgmma_pipe_s4(const GemmArgs& a) { return launch_tma_wgmma_variant<TmaWgmmaConfig<4>>(a); }

}  // namespace tcgemm::sm90
