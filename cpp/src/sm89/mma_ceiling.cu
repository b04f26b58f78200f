// The mma.sync ceiling: how fast m16n8k16 runs when nothing has to feed it.
// Operands live in registers for the whole kernel; each warp keeps 16
// independent accumulator chains in flight (enough to cover the MMA latency),
// so the only limit is the tensor cores' mma.sync issue rate. The GEMM
// kernels' ratio to this number says how well their loads feed the MMAs.
#include <cuda_runtime_api.h>

#include <vector>

#include "core/launch_check.h"
#include "ptx/mma_sync.h"
#include "sm89/launch.h"

namespace tcgemm::sm89 {

template <bool kF16Accum>
__global__ void __launch_bounds__(256) mma_ceiling_kernel(int iters, float* sink) {
  uint32_t a[4], b[2];
#pragma unroll
  for (int r = 0; r < 4; ++r) a[r] = 0x3c003c00u ^ (threadIdx.x * 0x00010001u * (r + 1));  // finite fp16 values
  b[0] = a[1] ^ 0x00100010u, b[1] = a[2] ^ 0x00200020u;
  constexpr int CHAINS = 16;
  float f32[CHAINS][4] = {};
  uint32_t f16[CHAINS][2] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
      if constexpr (kF16Accum) ptx::mma_m16n8k16_f16_f16(f16[c], a, b);
      else ptx::mma_m16n8k16_f32_f16(f32[c], a, b);
    }
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += f32[c][0] + f32[c][3] + __uint_as_float(f16[c][0] & 0x0fffffffu);
  if (s == 12345.f) *sink = s;  // keeps the loop alive; practically never true
}

Status time_mma_ceiling(bool f16_accum, int sm_count, int launches, std::vector<float>* ms, double* flops) {
  const int iters = 4096, blocks = sm_count * 4, threads = 256;
  float* sink = nullptr;
  TCGEMM_CUDA_TRY(cudaMalloc(&sink, sizeof(float)));
  cudaEvent_t start, stop;
  TCGEMM_CUDA_TRY(cudaEventCreate(&start));
  TCGEMM_CUDA_TRY(cudaEventCreate(&stop));
  auto launch = [&] {
    if (f16_accum) mma_ceiling_kernel<true><<<blocks, threads>>>(iters, sink);
    else mma_ceiling_kernel<false><<<blocks, threads>>>(iters, sink);
  };
  launch();  // warm-up
  Status s = check_launch("mma_ceiling_kernel");
  for (int rep = 0; s.ok() && rep < launches; ++rep) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    s = cuda_status(cudaEventSynchronize(stop), "mma_ceiling_kernel");
    float t = 0;
    if (s.ok()) s = cuda_status(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (s.ok()) ms->push_back(t);
  }
  cudaEventDestroy(start), cudaEventDestroy(stop), cudaFree(sink);
  *flops = 2.0 * 16 * 8 * 16 * 16.0 /*chains*/ * iters * (threads / 32) * blocks;
  return s;
}

}  // namespace tcgemm::sm89
