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
// Rank r = rm + 2 rn: B goes to the CTAs of a tile column (same rn), A to
// those of a tile row (same rm); a slot's empty barrier counts the 8
// consumer warps of itself, its B peer and its A peer.
static_assert(Mcast2x2::b_mask(0) == 0b0011 && Mcast2x2::b_mask(1) == 0b1100, "B multicast: same tile column");
static_assert(Mcast2x2::a_mask(0) == 0b0101 && Mcast2x2::a_mask(1) == 0b1010, "A multicast: same tile row");
static_assert(Mcast2x2::READERS == 24 && Mcast::READERS == 16, "empty-barrier arrivals per slot");

Status launch_ws_mcast_2x2(const GemmArgs& a) { return launch_ws_variant<Mcast2x2>(a); }

Status workspace_ws_mcast_2x2(const GemmArgs& a, size_t* bytes) { return ws_workspace_bytes<Mcast2x2>(a, bytes); }

}  // namespace tcgemm::sm90
