// Registry entry sm90.ws_splitk -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// ws_persistent's kernel plus split-K. M <= 64 takes a 64 x 256 tile (one
// consumer warpgroup; 5 stages of 40 KB fit beside its staging), larger M
// the 128 x 256 one.
using SplitKNarrow = WsConfig<256, 5, true, 1, 8, true, 1, true>;
using SplitKWide = WsConfig<256, 4, true, 1, 8, true, 2, true>;

Status launch_ws_splitk(const GemmArgs& a) {
  if (a.M <= 64) return launch_ws_variant<SplitKNarrow>(a);
  return launch_ws_variant<SplitKWide>(a);
}

Status workspace_ws_splitk(const GemmArgs& a, size_t* bytes) {
  if (a.M <= 64) return ws_workspace_bytes<SplitKNarrow>(a, bytes);
  return ws_workspace_bytes<SplitKWide>(a, bytes);
}

}  // namespace tcgemm::sm90
