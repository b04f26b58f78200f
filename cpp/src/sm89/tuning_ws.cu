// Ada tuning candidates of the warp-specialized kernel (launch.h,
// TCGEMM_SM89_TUNING_WS): copy-warp count and stages.
#include "sm89/tuning.cuh"
#if TCGEMM_TUNING
#include "sm89/mma_ws_gemm.cuh"
namespace tcgemm::sm89 {

#define TCGEMM_TUNE_WS_DEFINE(name, copy_warps, ...)                                                         \
  Status launch_x_##name(const GemmArgs& a) {                                                                \
    return launch_variant<Config<MmaConfig{__VA_ARGS__}>, TuningLaunch<MmaWs<copy_warps>::Launch>::Launch>(a); \
  }
TCGEMM_SM89_TUNING_WS(TCGEMM_TUNE_WS_DEFINE)
#undef TCGEMM_TUNE_WS_DEFINE

}  // namespace tcgemm::sm89
#endif
