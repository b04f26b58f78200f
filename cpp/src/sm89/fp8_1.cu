// Ada FP8 entries, e4m3 x e5m2 (launch.h, TCGEMM_SM89_FP8); see fp8.cuh.
#include "sm89/fp8.cuh"

namespace tcgemm::sm89 {
#define TCGEMM_FP8_E4M3_E5M2(...) TCGEMM_FP8_PAIR(e4m3, e5m2, __VA_ARGS__)
TCGEMM_SM89_FP8(TCGEMM_FP8_E4M3_E5M2)
}  // namespace tcgemm::sm89
