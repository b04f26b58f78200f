// Registry entry sm90.ws_mcast -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 128x256 tile, 4 stages, TMA-store epilogue, persistent grid of 2-CTA
// clusters multicasting B (grouped raster, 8 cluster rows per group), with
// ws_splitk's split policy over cluster rows (the split tail where the last
// wave of clusters is less than half full; decode shapes split every tile).
using Mcast = WsConfig<256, 4, true, 2, 8, true, 2, true>;

Status launch_ws_mcast(const GemmArgs& a) { return launch_ws_variant<Mcast>(a); }

Status workspace_ws_mcast(const GemmArgs& a, size_t* bytes) { return ws_workspace_bytes<Mcast>(a, bytes); }

}  // namespace tcgemm::sm90
