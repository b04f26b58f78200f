// Registry entry sm90.ws_mcast -- sm90.ws_persistent plus clusters of 2 CTAs
// along M that share the B tile: each CTA loads half of it and TMA
// multicasts that half into both CTAs' shared memory (half the B traffic;
// mainloop_ws.cuh). With ws_splitk's split policy over cluster rows: the
// split tail where the last wave of clusters is less than half full; decode
// shapes split every tile.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// 128x256 tile, 4 stages, TMA-store epilogue, persistent grid of 2-CTA
// clusters (grouped raster, 8 cluster rows per group).
constexpr WsConfig kMcast{
    .tile_n = 256, .stages = 4, .cluster_m = 2, .schedule = Schedule::split_k, .store = Store::tma};
static_assert(WsTraits<kMcast>::READERS == 16, "empty-barrier arrivals per slot: the 8 consumer warps of both CTAs");

Status launch_ws_mcast(const GemmArgs& a) { return launch_ws_variant<WsTraits<kMcast>>(a); }

Status workspace_ws_mcast(const GemmArgs& a, size_t* bytes) { return workspace_bytes<WsTraits<kMcast>>(a, bytes); }

}  // namespace tcgemm::sm90
