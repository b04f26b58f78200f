// The mma.sync ceilings: how fast m16n8k16 runs when nothing (or only shared
// memory) has to feed it.
//  - registers: operands live in registers for the whole kernel; each warp
//    keeps 16 independent accumulator chains in flight (enough to cover the
//    MMA latency), so the only limit is the tensor cores' mma.sync issue rate.
//    The GEMM kernels' ratio to this number says how well their loads feed
//    the MMAs.
//  - ldmatrix-fed: the GEMMs' inner loop alone -- 8 warps of 64x64 warp tiles
//    (the widest the register file allows with f32 accumulators) reading
//    swizzled 128x64 / 256x64 tiles of random values with ldmatrix.x4, double-
//    buffered fragments, 32 MMAs per k16 step -- with no global loads, no
//    cp.async and no barriers. Its rate under the board's power limit bounds
//    what any kernel feeding mma.sync through shared memory can sustain.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "core/launch_check.h"
#include "ptx/mma_sync.h"
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

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

// The ldmatrix-fed loop (see the top of the file); one 8-warp block per SM.
// Tiles, warps and fragment loads are mma_spread_8w's (TN): one slot of it.
// Its configuration is mma_iter_8w_db, the step mma_spread_8w grows from:
// spreading the copies changes nothing in a loop that issues none.
using LdmatrixCeilingCfg = Config<ladder::mma_iter_8w_db>;
__global__ void __launch_bounds__(LdmatrixCeilingCfg::THREADS, 1) mma_ldmatrix_ceiling_kernel(int iters, float* sink) {
  using Cfg = LdmatrixCeilingCfg;
  using ATile = Cfg::ATile;
  using BTile = Cfg::BTile<Layout::TN>;
  constexpr int MT = Cfg::MT, NT = Cfg::NT, K_STEPS = Cfg::K_STEPS;
  __shared__ __align__(128) uint8_t smem[ATile::bytes + BTile::bytes];
  // Random fp16 values in [-1, 1) (an integer hash), so operands toggle as real data does.
  for (int i = threadIdx.x; i < (ATile::bytes + BTile::bytes) / 2; i += blockDim.x) {
    uint32_t h = (i + 1) * 2654435761u ^ (blockIdx.x + 1) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    reinterpret_cast<__half*>(smem)[i] = __float2half(float(h & 0xffff) / 32768.f - 1.f);
  }
  __syncthreads();
  const uint32_t a_base = ptx::smem_addr(smem), b_base = a_base + ATile::bytes;
  const int warp = threadIdx.x / 32;
  FragmentLoader<Cfg, Layout::TN> frags;
  frags.init(warp % Cfg::WARPS_M, warp / Cfg::WARPS_M, threadIdx.x % 32);
  auto load = [&](int kk, uint32_t (&a)[MT][4], uint32_t (&b)[NT][2]) { frags.load(a_base, b_base, kk, a, b); };
  float acc[MT][NT][4] = {};
  uint32_t a[2][MT][4], b[2][NT][2];
  load(0, a[0], b[0]);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int kk = 0; kk < K_STEPS; ++kk) {
      load((kk + 1) % K_STEPS, a[(kk + 1) % 2], b[(kk + 1) % 2]);
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) ptx::mma_m16n8k16_f32_f16(acc[i][j], a[kk % 2][i], b[kk % 2][j]);
    }
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) s += acc[i][j][0] + acc[i][j][3];
  if (s == 12345.f) *sink = s;  // keeps the loop alive; practically never true
}

Status time_mma_ceiling(bool f16_accum, bool ldmatrix_fed, int sm_count, int launches, std::vector<float>* ms,
                        double* flops) {
  if (ldmatrix_fed && f16_accum)
    return Status::Error(StatusCode::not_supported, "the ldmatrix-fed ceiling is f32 accumulation only");
  // Either loop runs ~1.5-2 ms per launch on an H200, about an 8192^3 GEMM's time.
  const int iters = ldmatrix_fed ? 2048 : 4096, blocks = ldmatrix_fed ? sm_count : sm_count * 4;
  const int threads = ldmatrix_fed ? LdmatrixCeilingCfg::THREADS : 256;
  float* sink = nullptr;
  TCGEMM_CUDA_TRY(cudaMalloc(&sink, sizeof(float)));
  cudaEvent_t start, stop;
  TCGEMM_CUDA_TRY(cudaEventCreate(&start));
  TCGEMM_CUDA_TRY(cudaEventCreate(&stop));
  auto launch = [&] {
    if (ldmatrix_fed) mma_ldmatrix_ceiling_kernel<<<blocks, threads>>>(iters, sink);
    else if (f16_accum) mma_ceiling_kernel<true><<<blocks, threads>>>(iters, sink);
    else mma_ceiling_kernel<false><<<blocks, threads>>>(iters, sink);
  };
  launch();  // warm-up
  Status s = check_launch(ldmatrix_fed ? "mma_ldmatrix_ceiling_kernel" : "mma_ceiling_kernel");
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
  using C = LdmatrixCeilingCfg;
  const double mmas_per_warp_iter = ldmatrix_fed ? C::K_STEPS * C::MT * C::NT : 16 /*chains*/;
  *flops = 2.0 * 16 * 8 * 16 * mmas_per_warp_iter * iters * (threads / 32) * blocks;
  return s;
}

}  // namespace tcgemm::sm89
