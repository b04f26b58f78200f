// The Blackwell family's launch functions, one per registry entry (defined in
// the .cu files beside this, compiled only for sm_100a).
#pragma once
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm100 {

#define TCGEMM_SM100_ENTRIES(X) \
  X(v1a)                        \
  X(v1b)                        \
  X(v2a)                        \
  X(v2b)                        \
  X(v3)                         \
  X(v4)                         \
  X(v5)                         \
  X(v6)                         \
  X(v7)                         \
  X(v8)

#define TCGEMM_SM100_DECLARE(step) Status launch_##step(const GemmArgs& a);
TCGEMM_SM100_ENTRIES(TCGEMM_SM100_DECLARE)
#undef TCGEMM_SM100_DECLARE

}  // namespace tcgemm::sm100
