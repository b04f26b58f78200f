// Registry entry sm90.ws_splitk -- sm90.ws_persistent plus split-K, for
// shapes with too few tiles to fill the GPU (decode: M <= 128 against big
// weights): each work unit is one K slice of a tile; it writes fp32
// partials (epilogue_partials.cuh) and splitk_reduce sums the slices in a
// fixed order (bit-identical from one call to the next) and applies the
// epilogue. Where the tiles fill the GPU but their last wave does not, only
// the last tile rows are split (the split tail, sched/persistent.h): the
// rows above run whole, as ws_persistent's, and the tail's slices spread the
// last partial wave over every SM.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// M <= 64 takes a 64 x 256 tile (one consumer warpgroup: half the wasted
// MMAs; 5 stages of 40 KB fit beside its staging), larger M the 128 x 256 one.
constexpr WsConfig kSplitKNarrow{
    .tile_n = 256, .stages = 5, .consumers = 1, .schedule = Schedule::split_k, .store = Store::tma};
constexpr WsConfig kSplitKWide{.tile_n = 256, .stages = 4, .schedule = Schedule::split_k, .store = Store::tma};

Status launch_ws_splitk(const GemmArgs& a) {
  if (a.M <= 64) return launch_ws_variant<WsTraits<kSplitKNarrow>>(a);
  return launch_ws_variant<WsTraits<kSplitKWide>>(a);
}

Status workspace_ws_splitk(const GemmArgs& a, size_t* bytes) {
  if (a.M <= 64) return workspace_bytes<WsTraits<kSplitKNarrow>>(a, bytes);
  return workspace_bytes<WsTraits<kSplitKWide>>(a, bytes);
}

}  // namespace tcgemm::sm90
