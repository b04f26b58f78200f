// Ada FP8 entries, e5m2 x e4m3 (launch.h, TCGEMM_SM89_FP8); see fp8.cuh.
#include "sm89/fp8.cuh"

namespace tcgemm::sm89 {
#define TCGEMM_FP8_E5M2_E4M3(...) TCGEMM_FP8_PAIR(e5m2, e4m3, __VA_ARGS__)
TCGEMM_SM89_FP8(TCGEMM_FP8_E5M2_E4M3)
}  // namespace tcgemm::sm89
