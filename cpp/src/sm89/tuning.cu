// Tuning candidates of the Ada family, built only with -DTCGEMM_TUNING=ON and
// registered as sm89.x.* so the benchmark can time them beside the ladder.
// Winners graduate into the ladder (mma_sync_gemm.cuh) and `auto`'s table.
#if TCGEMM_TUNING
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// BM, BN, BK, warps along M, warps along N, stages, swizzle A, swizzle B, B by ldmatrix.x4, blocks/SM
#define TCGEMM_TUNE(name, ...) \
  Status launch_x_##name(const GemmArgs& a) { return launch_variant<Config<__VA_ARGS__>>(a); }
TCGEMM_SM89_TUNING(TCGEMM_TUNE)
#undef TCGEMM_TUNE

}  // namespace tcgemm::sm89
#endif
