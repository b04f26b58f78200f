// Registry entry sm90.ws -- step 3 of the Hopper ladder: warp
// specialization. One producer warpgroup issues the TMA loads, two consumer
// warpgroups issue wgmma; they meet only at the full/empty mbarrier ring
// (sched/pipeline.h), and setmaxnreg moves registers from the producer (40)
// to the consumers (232). 128x128x64 tile, 4 stages, one tile per CTA, no
// cluster, stores from registers. The kernel: ws_kernel.cuh.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kWs{.tile_n = 128, .stages = 4, .schedule = Schedule::one_tile};

Status launch_ws(const GemmArgs& a) { return launch_ws_variant<WsTraits<kWs>>(a); }

}  // namespace tcgemm::sm90
