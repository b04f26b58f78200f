// sm90.ws_splitk.swap.dsmem for NN problems (x @ w, the weight stored K x N,
// N contiguous) -- see ws_splitk_swap_dsmem.cu and swap.cuh. Swapped,
// D^T = W^T x^T: the weight is the kernel's A, MN-major, loaded in B NN's 64-column boxes
// and read by wgmma with its transpose-A bit (PTX ISA: wgmma.mma_async,
// imm-trans-a; 16-bit types only); x is its B, K-major, as TN's B. The
// tiles, the cluster split and the transposed store are the TN ones. Its
// own translation unit: these kernels compile beside the TN ones.
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

Status launch_ws_splitk_swap_dsmem_nn(const GemmArgs& a) {
  return swap_dispatch<Schedule::cluster_split, 0>(
      a, [&](auto cfg) { return launch_ws_layout<decltype(cfg), Layout::NN>(a); });
}

}  // namespace tcgemm::sm90
