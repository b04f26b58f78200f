// Registry entry sm90.ws_splitk.n192 -- sm90.ws_splitk's kernel with 128x192
// tiles (each consumer m64n192k16: 96 accumulators per thread; 4 stages of
// 40 KB): a third tile width, so that a shape whose 256-wide tiles quantize
// badly (a short last wave, N just past a multiple of 256) has a grid that
// does not. Chosen by auto's model.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// 4 stages of 40 KB (a fifth would pass the 227 KB beside the staging
// boxes); persistent, grouped raster of 8 rows, TMA-store epilogue, the
// split-tail policy.
constexpr WsConfig kSplitK192{.tile_n = 192, .stages = 4, .schedule = Schedule::split_k, .store = Store::tma};

Status launch_ws_splitk_n192(const GemmArgs& a) { return launch_ws_variant<WsTraits<kSplitK192>>(a); }
Status workspace_ws_splitk_n192(const GemmArgs& a, size_t* bytes) {
  return workspace_bytes<WsTraits<kSplitK192>>(a, bytes);
}

}  // namespace tcgemm::sm90
