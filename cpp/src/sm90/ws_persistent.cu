// Registry entry sm90.ws_persistent -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 128x256 tile, 4 stages (4 x 48 KB), persistent grid (grouped raster, 8 tile
// rows per group), TMA-store epilogue (2 x 2 x 8 KB staging), no cluster.
Status launch_ws_persistent(const GemmArgs& a) { return launch_ws_variant<WsConfig<256, 4, true, 1, 8, true>>(a); }

}  // namespace tcgemm::sm90
