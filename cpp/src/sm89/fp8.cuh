// The Ada FP8 entries (launch.h, TCGEMM_SM89_FP8): each a configuration of
// mma_fp8_gemm.cuh's kernel (ladder::<step>, mma_config.h), for every
// operand pair, output type and scale mode it serves. fp8_<p>.cu compiles
// operand pair p of every entry (TCGEMM_FP8_PAIR), so the pairs build in
// parallel.
#pragma once
#include "sm89/launch.h"
#include "sm89/mma_fp8_gemm.cuh"

namespace tcgemm::sm89 {

#define TCGEMM_FP8_PAIR(ta, tb, step, stages, scales)                                               \
  Status launch_##step##_s##stages##_##ta##_##tb(const GemmArgs& a) {                               \
    return launch_fp8_outputs<Config<with_stages(ladder::step, stages)>, DType::ta, DType::tb,      \
                              scales == Fp8Scales::tensor_row_block>(a);                            \
  }

}  // namespace tcgemm::sm89
