// Registry entry sm90.ws_pingpong -- sm90.ws_persistent with the two
// consumer warpgroups on alternate tiles instead of halves of one tile
// (Math::ping_pong): each owns a whole 128x128 tile (two m64n128k16 per k16
// step, the same 128 accumulators per thread), so while one runs its
// epilogue the other's wgmmas keep the tensor cores busy. The mainloops take
// turns (ws_kernel.cuh says why); the epilogues are free to overlap.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// 6 stages (6 x 32 KB) beside the staging boxes (2 x 2 x 8 KB); persistent
// grid, grouped raster of 8 tile rows, TMA-store epilogue, no cluster.
constexpr WsConfig kPingPong{.tile_n = 128,
                             .stages = 6,
                             .math = Math::ping_pong,
                             .schedule = Schedule::data_parallel,
                             .store = Store::tma};

Status launch_ws_pingpong(const GemmArgs& a) { return launch_ws_variant<WsTraits<kPingPong>>(a); }

}  // namespace tcgemm::sm90
