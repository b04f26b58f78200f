// Registry entry sm90.ws -- see ws_gemm.cuh.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 128x128 tile, 4 stages, one tile per CTA, no cluster.
Status launch_ws(const GemmArgs& a) { return launch_ws_variant<WsConfig<128, 4, false, 1>>(a); }

}  // namespace tcgemm::sm90
