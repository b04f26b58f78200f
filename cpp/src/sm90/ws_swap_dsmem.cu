// Registry entry sm90.ws_splitk.swap.dsmem -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// ws_splitk.swap with the K slices of a tile in one cluster
// (WsConfig::CLUSTER_SPLIT): the slices meet in distributed shared memory
// instead of global fp32 partials, and rank 0 of the cluster sums them and
// writes D itself. A decode call is one kernel, with no workspace: the
// partials' round trip through L2 and the reduction launch behind it (a
// third of a 16 x 4096 x 4096 call's ~19 us) are gone. At most 8 slices
// (the portable cluster size); the stages as ws_splitk.swap's, beside a
// 128 x BN fp32 buffer for the exchange.
template <int BN, int STAGES>
using SwapCluster = WsConfig<BN, STAGES, true, 1, 8, false, 2, true, false, 1, true, true>;
using SwapCluster16 = SwapCluster<16, 10>;
using SwapCluster32 = SwapCluster<32, 10>;
using SwapCluster64 = SwapCluster<64, 8>;

// NN: as ws_splitk.swap, ws_splitk's kernel.
Status launch_ws_splitk_swap_dsmem(const GemmArgs& a) {
  if (a.layout == Layout::NN) return launch_ws_splitk(a);
  if (a.M <= 16) return launch_ws_variant<SwapCluster16>(a);
  if (a.M <= 32) return launch_ws_variant<SwapCluster32>(a);
  return launch_ws_variant<SwapCluster64>(a);
}

Status workspace_ws_splitk_swap_dsmem(const GemmArgs& a, size_t* bytes) {
  if (a.layout == Layout::NN) return workspace_ws_splitk(a, bytes);
  *bytes = 0;
  return Status::Ok();
}

}  // namespace tcgemm::sm90
