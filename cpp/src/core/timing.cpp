#include <cuda_runtime_api.h>

#include "core/launch_check.h"
#include "tcgemm/bench.h"
#include "tcgemm/gemm.h"

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

// time_mma_ceiling is the Ada family's microbenchmark: sm89/ceiling.cpp.

Status mma_sync_peak(Accum accum, double* tflops, bool ldmatrix_fed) {
  std::vector<float> ms;
  double flops = 0;
  TCGEMM_TRY(time_mma_ceiling(accum, 5, &ms, &flops, ldmatrix_fed));
  float best = ms[0];
  for (float t : ms) best = t < best ? t : best;
  *tflops = flops / (best * 1e-3) / 1e12;
  return Status::Ok();
}

}  // namespace tcgemm
