// Registry entry sm90.ws_mcast.2x2 -- sm90.ws_mcast with clusters of 2x2
// CTAs: the pair down a tile column shares B as ws_mcast's does, the pair
// along a tile row shares A the same way (each loads 64 of its 128 rows and
// multicasts them), so each CTA issues half of each operand's loads; a slot
// is released to the three CTAs that write into it (itself, its B peer, its
// A peer -- not the diagonal one).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kMcast2x2{.tile_n = 256,
                             .stages = 4,
                             .cluster_m = 2,
                             .cluster_n = 2,
                             .schedule = Schedule::split_k,
                             .store = Store::tma};
using Mcast2x2 = WsTraits<kMcast2x2>;
// Rank r = rm + 2 rn: B goes to the CTAs of a tile column (same rn), A to
// those of a tile row (same rm); a slot's empty barrier counts the 8
// consumer warps of itself, its B peer and its A peer.
static_assert(Mcast2x2::b_mask(0) == 0b0011 && Mcast2x2::b_mask(1) == 0b1100, "B multicast: same tile column");
static_assert(Mcast2x2::a_mask(0) == 0b0101 && Mcast2x2::a_mask(1) == 0b1010, "A multicast: same tile row");
static_assert(Mcast2x2::READERS == 24, "empty-barrier arrivals per slot");

Status launch_ws_mcast_2x2(const GemmArgs& a) { return launch_ws_variant<Mcast2x2>(a); }

Status workspace_ws_mcast_2x2(const GemmArgs& a, size_t* bytes) { return workspace_bytes<Mcast2x2>(a, bytes); }

}  // namespace tcgemm::sm90
