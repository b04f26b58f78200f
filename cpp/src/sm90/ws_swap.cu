// Registry entry sm90.ws_splitk.swap -- see ws_gemm.cuh and swap.cuh. Every
// tile leaves as an fp32 partial; splitk_reduce sums the slices and writes
// them back transposed, through the epilogue.
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

Status launch_ws_splitk_swap(const GemmArgs& a) { return launch_swap<false>(a); }
Status workspace_ws_splitk_swap(const GemmArgs& a, size_t* bytes) { return workspace_swap<false>(a, bytes); }

}  // namespace tcgemm::sm90
