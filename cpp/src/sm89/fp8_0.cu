// Ada FP8 entries, e4m3 x e4m3, and every entry's launch (launch.h, TCGEMM_SM89_FP8); see fp8.cuh.
#include "sm89/fp8.cuh"

namespace tcgemm::sm89 {
#define TCGEMM_FP8_E4M3_E4M3(...) TCGEMM_FP8_PAIR(e4m3, e4m3, __VA_ARGS__)
TCGEMM_SM89_FP8(TCGEMM_FP8_E4M3_E4M3)

#define TCGEMM_FP8_LAUNCH(step, stages, ...)                                                        \
  Status launch_##step##_s##stages(const GemmArgs& a) {                                             \
    return launch_fp8_pairs(a, launch_##step##_s##stages##_e4m3_e4m3, launch_##step##_s##stages##_e4m3_e5m2, \
                            launch_##step##_s##stages##_e5m2_e4m3);                                 \
  }
TCGEMM_SM89_FP8(TCGEMM_FP8_LAUNCH)
}  // namespace tcgemm::sm89
