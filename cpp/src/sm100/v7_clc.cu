// sm100.v7_clc -- past the seed (its open items): Cluster Launch Control and an
// L2-aware raster on v6's persistent 2-SM kernel.
//   - dynamic persistent scheduling (sm100/clc.cuh): the grid is launched
//     with a CTA pair per 256 x 256 block; each running pair, as it starts a
//     block, asks the hardware to cancel a pair not yet launched and takes
//     over its block. Pairs on SMs that free up early take more blocks; no
//     static split can leave a tail of idle SMs while others work.
//   - grouped raster of pair tiles (8 pair rows per group, sched/persistent.h):
//     launch order = unit order, so the blocks in flight cover a compact patch
//     of C and re-read their A and B panels from L2.
// The kernel is sm100/persistent_gemm.cuh with the ClcSchedule work source.
#include "sm100/clc.cuh"
#include "sm100/launch.h"
#include "sm100/persistent_gemm.cuh"

namespace tcgemm::sm100 {

Status launch_v7(const GemmArgs& a) {
  const int64_t units = pair_units(a, true);  // one pair per unit; CLC folds them onto the running pairs
  return a.layout == Layout::TN ? launch_persistent<Layout::TN, ClcSchedule>(a, true, units)
                                : launch_persistent<Layout::NN, ClcSchedule>(a, true, units);
}

}  // namespace tcgemm::sm100
