// Registry entry sm90.ws_splitk.dsmem -- sm90.ws_splitk with a tile's K
// slices in one cluster (Schedule::cluster_split, epilogue_cluster_split.cuh),
// as ws_splitk.swap.dsmem does for decode, here without the swap: any layout,
// and rank 0 stores the summed tile as any tile is stored. For shapes whose
// tiles are too few to fill the GPU and whose K is deep (M = 128-256 against
// a 4096-8192 wide weight: 32-64 tiles of 128 x 128): clusters of 2-4 CTAs
// put every SM to work on one tile's K, one kernel, no workspace. The tile is
// 128 x 128 (64 x 256 for M <= 64): the 64 KB fp32 buffer a peer hands its
// accumulators over in sits beside 5 (4) stages of loads, where a 128 x 256
// tile's 128 KB would leave room for two. The 64 x 256 configuration spills
// 24 bytes (ptxas: its 128 accumulators through the register-stored epilogue).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kClusterSplitNarrow{
    .tile_n = 256, .stages = 4, .consumers = 1, .schedule = Schedule::cluster_split};
constexpr WsConfig kClusterSplitSquare{.tile_n = 128, .stages = 5, .schedule = Schedule::cluster_split};
using ClusterSplitNarrow = WsTraits<kClusterSplitNarrow>;
using ClusterSplitSquare = WsTraits<kClusterSplitSquare>;

Status launch_ws_splitk_dsmem(const GemmArgs& a) {
  if (a.M <= 64) return launch_ws_variant<ClusterSplitNarrow>(a);
  return launch_ws_variant<ClusterSplitSquare>(a);
}

Status workspace_ws_splitk_dsmem(const GemmArgs& a, size_t* bytes) {
  if (a.M <= 64) return workspace_bytes<ClusterSplitNarrow>(a, bytes);
  return workspace_bytes<ClusterSplitSquare>(a, bytes);
}

}  // namespace tcgemm::sm90
