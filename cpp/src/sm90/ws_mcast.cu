// Registry entry sm90.ws_mcast -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 128x256 tile, 4 stages, TMA-store epilogue, persistent grid of 2-CTA
// clusters multicasting B (grouped raster, 8 cluster rows per group).
Status launch_ws_mcast(const GemmArgs& a) { return launch_ws_variant<WsConfig<256, 4, true, 2, 8, true>>(a); }

}  // namespace tcgemm::sm90
