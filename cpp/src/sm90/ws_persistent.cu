// Registry entry sm90.ws_persistent -- sm90.ws plus 128x256 tiles (each
// consumer m64n256k16: 128 fp32 accumulators per thread) and a persistent
// grid, one CTA per SM walking tiles through the grouped raster
// (sched/persistent.h). Epilogue: registers -> 128B-swizzled shared memory
// -> TMA store, fire and forget (epilogue_tma_store.cuh): the producer is
// already loading the next tile, so the epilogue overlaps the next tile's
// mainloop loads.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// 4 stages (4 x 48 KB), grouped raster of 8 tile rows, TMA-store staging (2 x 2 x 8 KB), no cluster.
constexpr WsConfig kPersistent{
    .tile_n = 256, .stages = 4, .schedule = Schedule::data_parallel, .store = Store::tma};

Status launch_ws_persistent(const GemmArgs& a) { return launch_ws_variant<WsTraits<kPersistent>>(a); }

}  // namespace tcgemm::sm90
