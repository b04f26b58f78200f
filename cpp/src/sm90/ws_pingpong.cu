// Registry entry sm90.ws_pingpong -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 128x128 tile per consumer warpgroup, consumers on alternate tiles; 6 stages
// (6 x 32 KB) beside the staging boxes (2 x 2 x 8 KB); persistent grid,
// grouped raster of 8 tile rows, TMA-store epilogue, no cluster.
Status launch_ws_pingpong(const GemmArgs& a) {
  return launch_ws_variant<WsConfig<128, 6, true, 1, 8, true, 2, false, true>>(a);
}

}  // namespace tcgemm::sm90
