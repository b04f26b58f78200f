// Registry entry sm90.ws_splitk.swap.dsmem -- sm90.ws_splitk.swap (swap.cuh)
// with the K slices of a tile in one cluster (Schedule::cluster_split,
// epilogue_cluster_split.cuh): the slices meet in distributed shared memory
// instead of global fp32 partials, and rank 0 of the cluster sums them and
// writes D itself. A decode call is one kernel, with no workspace: the
// partials' round trip through L2 and the reduction launch behind it (a
// third of a 16 x 4096 x 4096 call's ~19 us) are gone. At most 8 slices
// (the portable cluster size). The weight's tile is 64 or 128 rows
// (swap.cuh: swap_consumers), x's 16-128 wide; the stages (swap_by_width)
// sit beside a BN x (BM + 4) fp32 buffer for the exchange and the
// transposed store. NN problems (the weight read MN-major) are built in
// ws_splitk_swap_dsmem_nn.cu, beside these.
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

Status launch_ws_splitk_swap_dsmem(const GemmArgs& a) {
  return a.layout == Layout::NN ? launch_ws_splitk_swap_dsmem_nn(a) : launch_swap<Schedule::cluster_split, 0>(a);
}
// None, for either layout: the slices meet in shared memory (no device query for it).
Status workspace_ws_splitk_swap_dsmem(const GemmArgs&, size_t* bytes) {
  *bytes = 0;
  return Status::Ok();
}

}  // namespace tcgemm::sm90
