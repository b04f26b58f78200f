// tcgemm::time_mma_ceiling (tcgemm/bench.h): the mma.sync ceiling is the Ada
// family's microbenchmark (mma_ceiling.cu), so the family answers it.
#include "core/launch_check.h"
#include "tcgemm/bench.h"
#include "tcgemm/device.h"
#include "tcgemm/registry.h"

#if TCGEMM_BUILD_SM89
#include "sm89/launch.h"
#endif

namespace tcgemm {

Status time_mma_ceiling(Accum accum, int launches, std::vector<float>* ms, double* flops, bool ldmatrix_fed) {
  if (launches < 1) return Status::Error(StatusCode::invalid_argument, "time_mma_ceiling: launches must be >= 1");
  DeviceInfo dev;
  TCGEMM_TRY(current_device(&dev));
#if TCGEMM_BUILD_SM89
  // Runs wherever the Ada family's SASS runs.
  TCGEMM_TRY(check_runnable(*find_kernel("sm89.mma.s2")));
  return sm89::time_mma_ceiling(accum == Accum::f16, ldmatrix_fed, dev.sm_count, launches, ms, flops);
#else
  (void)accum, (void)ms, (void)flops, (void)ldmatrix_fed;
  return Status::Error(StatusCode::not_runnable, "the Ada (sm89) family was not built");
#endif
}

}  // namespace tcgemm
