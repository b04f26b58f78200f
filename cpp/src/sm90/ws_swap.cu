// Registry entry sm90.ws_splitk.swap -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// ws_splitk for decode (M <= 64, x @ w.T): the kernel computes D^T = W X^T,
// so the weight's rows fill wgmma's 64-row M and the few rows of x its N
// (n16 / n32 / n64: the narrowest that holds M), where ws_splitk's 64 x 256
// tile spends 48 of every 64 MMA rows on zeros at M = 16 and leaves N / 256
// tiles to spread over the SMs. Every tile leaves as an fp32 partial;
// splitk_reduce sums the slices and writes them back transposed, through the
// epilogue. A stage is 16 KB of weight and 2-8 KB of x, so 8-10 stages keep
// 150-200 KB of loads in flight per SM: decode is a stream of the weight.
template <int BN, int STAGES>
using SwapAB = WsConfig<BN, STAGES, true, 1, 8, false, 2, true, false, 1, true>;
using Swap16 = SwapAB<16, 10>;
using Swap32 = SwapAB<32, 10>;
using Swap64 = SwapAB<64, 8>;

// NN (x @ w with w stored K x N): the swapped A would be MN-major, which this
// kernel does not load; that layout runs ws_splitk's kernel.
Status launch_ws_splitk_swap(const GemmArgs& a) {
  if (a.layout == Layout::NN) return launch_ws_splitk(a);
  if (a.M <= 16) return launch_ws_variant<Swap16>(a);
  if (a.M <= 32) return launch_ws_variant<Swap32>(a);
  return launch_ws_variant<Swap64>(a);
}

Status workspace_ws_splitk_swap(const GemmArgs& a, size_t* bytes) {
  if (a.layout == Layout::NN) return workspace_ws_splitk(a, bytes);
  if (a.M <= 16) return ws_workspace_bytes<Swap16>(a, bytes);
  if (a.M <= 32) return ws_workspace_bytes<Swap32>(a, bytes);
  return ws_workspace_bytes<Swap64>(a, bytes);
}

}  // namespace tcgemm::sm90
