// The decode swap's configurations and dispatch, shared by
// sm90.ws_splitk.swap (ws_swap.cu: every tile an fp32 partial, reduced and
// transposed by a second kernel) and sm90.ws_splitk.swap.dsmem
// (ws_swap_dsmem.cu: a tile's K slices in one cluster, WsConfig::CLUSTER_SPLIT).
//
// ws_splitk for decode (M <= 64, x @ w.T): the kernel computes D^T = W X^T,
// so the weight's rows fill wgmma's 64-row M and the few rows of x its N
// (n16 / n32 / n64: the narrowest that holds M), where ws_splitk's 64 x 256
// tile spends 48 of every 64 MMA rows on zeros at M = 16 and leaves N / 256
// tiles to spread over the SMs. A stage is 16 KB of weight and 2-8 KB of x,
// so 8-10 stages keep 150-200 KB of loads in flight per SM: decode is a
// stream of the weight.
#pragma once
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

template <int BN, int STAGES, bool kClusterSplit>
using SwapAB = WsConfig<BN, STAGES, true, 1, 8, false, 2, true, false, 1, true, kClusterSplit>;

// NN (x @ w with w stored K x N): the swapped A would be MN-major, which this
// kernel does not load; that layout runs ws_splitk's kernel. F(Cfg) is
// launch_ws_variant or ws_workspace_bytes of the width that holds x's rows.
template <bool kClusterSplit, class F>
Status swap_by_width(const GemmArgs& a, F&& f) {
  if (a.M <= 16) return f(SwapAB<16, 10, kClusterSplit>{});
  if (a.M <= 32) return f(SwapAB<32, 10, kClusterSplit>{});
  return f(SwapAB<64, 8, kClusterSplit>{});
}

template <bool kClusterSplit>
Status launch_swap(const GemmArgs& a) {
  if (a.layout == Layout::NN) return launch_ws_splitk(a);
  return swap_by_width<kClusterSplit>(a, [&](auto cfg) { return launch_ws_variant<decltype(cfg)>(a); });
}

template <bool kClusterSplit>
Status workspace_swap(const GemmArgs& a, size_t* bytes) {
  if (a.layout == Layout::NN) return workspace_ws_splitk(a, bytes);
  return swap_by_width<kClusterSplit>(a, [&](auto cfg) { return ws_workspace_bytes<decltype(cfg)>(a, bytes); });
}

}  // namespace tcgemm::sm90
