#include <cuda_runtime_api.h>

#include "core/launch_check.h"
#include "tcgemm/bench.h"
#include "tcgemm/device.h"
#include "tcgemm/gemm.h"
#include "tcgemm/registry.h"

#if TCGEMM_BUILD_SM89
#include "sm89/launch.h"
#endif

namespace tcgemm {

namespace {
struct Events {  // RAII pair of events
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Events() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};
}  // namespace

Status time_gemm(const std::vector<GemmArgs>& rotation, const std::string& kernel, int warmup, int iters,
                 std::vector<float>* ms) {
  if (rotation.empty()) return Status::Error(StatusCode::invalid_argument, "time_gemm: empty rotation");
  const cudaStream_t stream = rotation[0].stream;
  for (int i = 0; i < warmup; ++i) TCGEMM_TRY(gemm(rotation[i % rotation.size()], kernel));
  Events ev;
  TCGEMM_CUDA_TRY(cudaEventCreate(&ev.start));
  TCGEMM_CUDA_TRY(cudaEventCreate(&ev.stop));
  for (int i = 0; i < iters; ++i) {
    TCGEMM_CUDA_TRY(cudaEventRecord(ev.start, stream));
    TCGEMM_TRY(gemm(rotation[(warmup + i) % rotation.size()], kernel));
    TCGEMM_CUDA_TRY(cudaEventRecord(ev.stop, stream));
    TCGEMM_CUDA_TRY(cudaEventSynchronize(ev.stop));
    float t = 0;
    TCGEMM_CUDA_TRY(cudaEventElapsedTime(&t, ev.start, ev.stop));
    ms->push_back(t);
  }
  return Status::Ok();
}

Status mma_sync_peak(Accum accum, double* tflops) {
  DeviceInfo dev;
  TCGEMM_TRY(current_device(&dev));
#if TCGEMM_BUILD_SM89
  // Runs wherever the Ada family's SASS runs.
  TCGEMM_TRY(check_runnable(*find_kernel("sm89.mma.s2")));
  return sm89::measure_mma_peak(accum == Accum::f16, dev.sm_count, tflops);
#else
  (void)accum, (void)tflops;
  return Status::Error(StatusCode::not_runnable, "the Ada (sm89) family was not built");
#endif
}

}  // namespace tcgemm
