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

// The same with 2x2 clusters: the two CTAs of a tile column share B as
// above, the two of a tile row share A (each loads 64 of its 128 rows and
// multicasts them): each CTA issues half of A's and half of B's loads.
using Mcast2x2 = WsConfig<256, 4, true, 2, 8, true, 2, true, false, 2>;

Status launch_ws_mcast_2x2(const GemmArgs& a) { return launch_ws_variant<Mcast2x2>(a); }

Status workspace_ws_mcast_2x2(const GemmArgs& a, size_t* bytes) { return ws_workspace_bytes<Mcast2x2>(a, bytes); }

}  // namespace tcgemm::sm90
