// Tuning candidates of the Ada family, built only with -DTCGEMM_TUNING=ON and
// registered as sm89.x.* so the benchmark can time them beside the ladder.
// Winners graduate into the ladder (mma_sync_gemm.cuh) and `auto`'s table.
// tuning_<p>.cu compiles the candidates of part p (launch.h): it redefines
// TCGEMM_TUNE_IN_<p> to TCGEMM_TUNE_DEFINE, so the parts build in parallel.
#pragma once
#if TCGEMM_TUNING
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// launch_variant's launcher for a candidate of the kernel that Inner launches:
// fp32 accumulation only (the tuning target), fp16 and bf16, both layouts;
// the f16-accumulator instantiations are never compiled.
template <template <class, DType, Accum, Layout> class Inner = MmaSyncLaunch>
struct TuningLaunch {
  template <class Cfg, DType DT, Accum ACC, Layout L>
  struct Launch {
    static Status run(const GemmArgs& a) {
      if constexpr (ACC == Accum::f16)
        return Status::Error(StatusCode::not_supported, "tuning candidates: f32 accumulation only");
      else
        return Inner<Cfg, DT, ACC, L>::run(a);
    }
  };
};

#define TCGEMM_TUNE_DEFINE(name, ...) \
  Status launch_x_##name(const GemmArgs& a) { return launch_variant<Config<MmaConfig{__VA_ARGS__}>, TuningLaunch<>::Launch>(a); }
#define TCGEMM_TUNE_SKIP(name, ...)
#define TCGEMM_TUNE_IN_0 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_1 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_2 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_3 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_4 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_5 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_6 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_7 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE_IN_8 TCGEMM_TUNE_SKIP
#define TCGEMM_TUNE(part, name, ...) TCGEMM_TUNE_IN_##part(name, __VA_ARGS__)

}  // namespace tcgemm::sm89
#endif
