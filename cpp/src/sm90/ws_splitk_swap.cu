// Registry entry sm90.ws_splitk.swap -- sm90.ws_splitk for decode with A and
// B swapped (D^T = W X^T; swap.cuh): the weight's rows fill wgmma's M = 64,
// x's few rows its N. Every tile leaves as an fp32 partial; splitk_reduce
// sums the slices and writes them back transposed, through the epilogue.
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

// NN runs ws_splitk's kernel: the swapped NN problem is built for the cluster
// split only (ws_splitk_swap_dsmem_nn.cu), which is ahead of these partials
// on every TN decode row measured.
Status launch_ws_splitk_swap(const GemmArgs& a) {
  return a.layout == Layout::NN ? launch_ws_splitk(a) : launch_swap<Schedule::split_k>(a);
}
Status workspace_ws_splitk_swap(const GemmArgs& a, size_t* bytes) {
  return a.layout == Layout::NN ? workspace_ws_splitk(a, bytes) : workspace_swap(a, bytes);
}

}  // namespace tcgemm::sm90
