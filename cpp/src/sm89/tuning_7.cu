// Ada tuning candidates of part 7 (launch.h, TCGEMM_SM89_TUNING); see tuning.cuh.
#include "sm89/tuning.cuh"
#if TCGEMM_TUNING
#undef TCGEMM_TUNE_IN_7
#define TCGEMM_TUNE_IN_7 TCGEMM_TUNE_DEFINE
namespace tcgemm::sm89 {
TCGEMM_SM89_TUNING(TCGEMM_TUNE)
}  // namespace tcgemm::sm89
#endif
