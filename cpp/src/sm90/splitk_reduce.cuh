// The second half of split-K: D = epilogue(sum over s of partial[s]) (or of
// its transpose, after a swap-AB kernel), the
// slices summed in the fixed order 0, 1, ..., splits-1 by the one thread
// that owns the output, so the result does not depend on which CTA finished first
// (bit-identical run to run; no atomics). The partials stay in L2 between
// the two launches at the decode shapes split-K is for (M x N x splits x 4
// bytes: 16 MB at M = 128, N = 8192, 4 splits).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/element.cuh"
#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "tcgemm/types.h"

namespace tcgemm::sm90 {

struct ReduceParams {
  const float* partials;  // [batch][split][M - row0][ld]
  int64_t ld;             // a multiple of 4, >= N
  int splits, batches, M, N;
  int row0;               // rows row0 .. M-1 were split (those above are already in C)
  void* C;
  int64_t ldc, stride_c;  // elements
  Epilogue ep;
  // Swap-AB: the partials hold D^T ([batch][split][N][ld], ld >= M, row0 = 0).
  bool transposed = false;
};

// One thread per four consecutive outputs of a row: 16-byte loads (ld is a
// multiple of 4 and every slice starts 16-byte aligned: launch_ws), and the
// loads of kInFlight slices issued before the first of them is added, so a
// thread waits for splits / kInFlight rounds of L2 latency, not splits
// (ncu on an H200, bench/results/logs/h200_runs_2026-12-04*.txt:
// 7-11 us for the split tail's reduction when each thread read one float2
// per slice, one slice after the other). The adds
// stay in slice order.
constexpr int kReduceInFlight = 4;
template <DType DT>
__global__ void __launch_bounds__(128) splitk_reduce_kernel(const ReduceParams p) {
  using T = typename Element<DT>::T;
  const int64_t quads_per_row = (p.N + 3) / 4;
  const int rows = p.M - p.row0;
  const int64_t per_batch = static_cast<int64_t>(rows) * quads_per_row;
  const int64_t total = per_batch * p.batches;
  const int64_t slice = static_cast<int64_t>(rows) * p.ld;  // floats per (batch, split)
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int b = static_cast<int>(i / per_batch);
    const int64_t r = i % per_batch;
    const int tr = static_cast<int>(r / quads_per_row), col = static_cast<int>(r % quads_per_row) * 4;
    const int row = p.row0 + tr;
    const float4* w = reinterpret_cast<const float4*>(p.partials + static_cast<int64_t>(b) * p.splits * slice +
                                                      tr * p.ld + col);
    const int64_t step = slice / 4;  // float4s per slice
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
    int s = 0;
    for (; s + kReduceInFlight <= p.splits; s += kReduceInFlight) {
      float4 v[kReduceInFlight];
#pragma unroll
      for (int j = 0; j < kReduceInFlight; ++j) v[j] = __ldg(w + (s + j) * step);
#pragma unroll
      for (int j = 0; j < kReduceInFlight; ++j) sum.x += v[j].x, sum.y += v[j].y, sum.z += v[j].z, sum.w += v[j].w;
    }
    for (; s < p.splits; ++s) {
      const float4 v = __ldg(w + s * step);
      sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
    }
    T* dst = static_cast<T*>(p.C) + b * p.stride_c + static_cast<int64_t>(row) * p.ldc + col;
    const float pair[2][2] = {{sum.x, sum.y}, {sum.z, sum.w}};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = col + 2 * h;
      if (c >= p.N) break;
      const uint32_t packed = epilogue_pair<DT>(p.ep, pair[h][0], pair[h][1], row, c, p.M, p.N, b);
      if (c + 1 < p.N) *reinterpret_cast<uint32_t*>(dst + 2 * h) = packed;  // ldc and c even: 4-byte aligned
      else reinterpret_cast<uint16_t*>(dst + 2 * h)[0] = static_cast<uint16_t>(packed & 0xffffu);
    }
  }
}

// After a swap-AB kernel the partials are D^T ([n][m], m contiguous) and D
// is [m][n]: a block of 128 threads sums a 32 (n) x 16 (m) tile, reading it
// along m (16 lanes read 16 consecutive floats of one partial row), transposes
// it through shared memory and writes it along n (16 lanes write 32
// consecutive outputs of one row). Each thread keeps its 4 loads of a slice
// in flight together, so a call waits for `splits` rounds of L2 latency.
constexpr int kReduceTileN = 32, kReduceTileM = 16;
template <DType DT>
__global__ void __launch_bounds__(128) splitk_reduce_transposed_kernel(const ReduceParams p) {
  using T = typename Element<DT>::T;
  __shared__ float tile[kReduceTileN][kReduceTileM + 1];  // +1: the column reads below spread over the banks
  const int n0 = blockIdx.x * kReduceTileN, m0 = blockIdx.y * kReduceTileM, b = blockIdx.z;
  const int t = threadIdx.x;
  const int64_t slice = static_cast<int64_t>(p.N) * p.ld;  // floats per (batch, split)
  const float* w = p.partials + static_cast<int64_t>(b) * p.splits * slice;
  const int m = m0 + t % 16, nr = t / 16;  // this thread's column of D^T; rows nr, nr + 8, ... of the tile
  float v[4] = {};
  for (int s = 0; s < p.splits; ++s)  // slices in order
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int n = n0 + nr + 8 * j;
      if (m < p.M && n < p.N) v[j] += w[s * slice + static_cast<int64_t>(n) * p.ld + m];
    }
#pragma unroll
  for (int j = 0; j < 4; ++j) tile[nr + 8 * j][t % 16] = v[j];
  __syncthreads();
  const int col = n0 + 2 * (t % 16);
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int r = t / 16 + 8 * j, row = m0 + r;
    if (row >= p.M || col >= p.N) continue;
    const uint32_t packed =
        epilogue_pair<DT>(p.ep, tile[2 * (t % 16)][r], tile[2 * (t % 16) + 1][r], row, col, p.M, p.N, b);
    T* dst = static_cast<T*>(p.C) + b * p.stride_c + static_cast<int64_t>(row) * p.ldc + col;
    if (col + 1 < p.N) *reinterpret_cast<uint32_t*>(dst) = packed;  // ldc and col even: 4-byte aligned
    else reinterpret_cast<uint16_t*>(dst)[0] = static_cast<uint16_t>(packed & 0xffffu);
  }
}

// The transposing reduction's grid is (N / 32, M / 16, batches), and a
// grid's y and z are at most 65535.
inline Status transposed_reduce_fits(int64_t M, int64_t batches) {
  if ((M + kReduceTileM - 1) / kReduceTileM > 65535 || batches > 65535)
    return Status::Error(StatusCode::not_supported,
                         "swap-AB: at most 65535 * " + std::to_string(kReduceTileM) + " rows and 65535 batches");
  return Status::Ok();
}

template <DType DT>
Status launch_splitk_reduce(const ReduceParams& p, cudaStream_t stream) {
  if (p.transposed) {
    // transposed_reduce_fits(M, batches) was checked before the GEMM was launched.
    const dim3 grid(static_cast<unsigned>((int64_t{p.N} + kReduceTileN - 1) / kReduceTileN),
                    static_cast<unsigned>((int64_t{p.M} + kReduceTileM - 1) / kReduceTileM),
                    static_cast<unsigned>(p.batches));
    splitk_reduce_transposed_kernel<DT><<<grid, 128, 0, stream>>>(p);
    return check_launch("splitk_reduce_transposed_kernel");
  }
  const int64_t total = static_cast<int64_t>(p.batches) * (p.M - p.row0) * ((p.N + 3) / 4);
  const int threads = 128;  // small blocks: a decode shape's few thousand threads still reach most SMs
  const int64_t blocks = (total + threads - 1) / threads;
  splitk_reduce_kernel<DT><<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), threads, 0, stream>>>(p);
  return check_launch("splitk_reduce_kernel");
}

}  // namespace tcgemm::sm90
