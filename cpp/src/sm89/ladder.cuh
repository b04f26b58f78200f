// The Ada ladder's entries (launch.h, TCGEMM_SM89_LADDER): each a Config of
// mma_sync_gemm.cuh's one kernel template, for every dtype / accumulator /
// layout it serves (launch_variant). ladder_<p>.cu compiles the entries of
// part p: it redefines TCGEMM_LADDER_IN_<p> to TCGEMM_LADDER_DEFINE, so the
// parts build in parallel.
#pragma once
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

#define TCGEMM_LADDER_DEFINE(variant, stages)                            \
  Status launch_##variant##_s##stages(const GemmArgs& a) {               \
    return launch_variant<Config<with_stages(ladder::variant, stages)>>(a); \
  }
#define TCGEMM_LADDER_SKIP(variant, stages)
#define TCGEMM_LADDER_IN_0 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_1 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_2 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_3 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_4 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_5 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_6 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_7 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER_IN_8 TCGEMM_LADDER_SKIP
#define TCGEMM_LADDER(part, variant, stages) TCGEMM_LADDER_IN_##part(variant, stages)

}  // namespace tcgemm::sm89
