// The Ada family's launch functions, one per registry entry (defined in the
// .cu files beside this, compiled only for sm_89 and sm_90a).
#pragma once
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm89 {

#define TCGEMM_SM89_ENTRIES(X) \
  X(mma, 2)                    \
  X(mma, 3)                    \
  X(mma, 4)                    \
  X(mma, 5)                    \
  X(mma_swz, 3)                \
  X(mma_swz, 4)                \
  X(mma_swz_x4, 3)             \
  X(mma_swz_x4, 4)             \
  X(mma_swz_x4, 5)             \
  X(mma_bk32, 3)               \
  X(mma_bk32, 4)               \
  X(mma_wt64, 3)               \
  X(mma_wt64, 4)               \
  X(mma_wt64_k64, 3)

#define TCGEMM_SM89_DECLARE(variant, stages) Status launch_##variant##_s##stages(const GemmArgs& a);
TCGEMM_SM89_ENTRIES(TCGEMM_SM89_DECLARE)
#undef TCGEMM_SM89_DECLARE

// Register-only mma.sync loop over every SM: the rate the GEMMs are fed toward.
Status measure_mma_peak(bool f16_accum, int sm_count, double* tflops);

}  // namespace tcgemm::sm89
