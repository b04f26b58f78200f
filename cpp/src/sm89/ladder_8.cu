// The Ada ladder's entries of part 8 (launch.h, TCGEMM_SM89_LADDER); see ladder.cuh.
#include "sm89/ladder.cuh"
#undef TCGEMM_LADDER_IN_8
#define TCGEMM_LADDER_IN_8 TCGEMM_LADDER_DEFINE
namespace tcgemm::sm89 {
TCGEMM_SM89_LADDER(TCGEMM_LADDER)
}  // namespace tcgemm::sm89
