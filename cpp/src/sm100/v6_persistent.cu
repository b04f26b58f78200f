// sm100.v6_persistent -- persistent kernel with static scheduling (seed 002,
// "persistent kernel: static scheduling"): v5's CTA pairs stay resident,
// one pair per two SMs, and walk the 256 x 256 blocks c, c + G, c + 2G, ...
// Dedicated epilogue warps and two TMEM accumulators (all 512 columns) let
// the epilogue of one block overlap the mainloop of the next: the MMA warp
// waits only for the accumulator it is about to overwrite to be drained by
// both CTAs' epilogues (tmem_empty in the even CTA, 8 arrivals, the odd
// CTA's through mapa), the epilogue for the one it reads to be complete
// (tmem_full, multicast commit). The kernel is sm100/persistent_gemm.cuh.
#include <algorithm>

#include "sm100/launch.h"
#include "sm100/persistent_gemm.cuh"

namespace tcgemm::sm100 {

Status launch_v6(const GemmArgs& a) {
  int sms = 0;
  TCGEMM_TRY(sm_count(&sms));
  const int64_t units = pair_units(a, false);  // v6: the row-major order of the seed
  const int64_t clusters = std::max<int64_t>(1, std::min<int64_t>(units, sms / 2));
  return a.layout == Layout::TN ? launch_persistent<Layout::TN, StaticSchedule>(a, false, clusters)
                                : launch_persistent<Layout::NN, StaticSchedule>(a, false, clusters);
}

}  // namespace tcgemm::sm100
