// The second half of split-K: D = epilogue(sum over s of partial[s]), the
// slices summed in the fixed order 0, 1, ..., splits-1 by one thread per
// output pair, so the result does not depend on which CTA finished first
// (bit-identical run to run; no atomics). The partials stay in L2 between
// the two launches at the decode shapes split-K is for (M x N x splits x 4
// bytes: 16 MB at M = 128, N = 8192, 4 splits).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

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
};

template <DType DT>
__global__ void splitk_reduce_kernel(const ReduceParams p) {
  using T = typename Element<DT>::T;
  const int64_t pairs_per_row = (p.N + 1) / 2;
  const int rows = p.M - p.row0;
  const int64_t per_batch = static_cast<int64_t>(rows) * pairs_per_row;
  const int64_t total = per_batch * p.batches;
  const int64_t slice = static_cast<int64_t>(rows) * p.ld;  // floats per (batch, split)
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int b = static_cast<int>(i / per_batch);
    const int64_t r = i % per_batch;
    const int tr = static_cast<int>(r / pairs_per_row), col = static_cast<int>(r % pairs_per_row) * 2;
    const int row = p.row0 + tr;
    const float* w = p.partials + static_cast<int64_t>(b) * p.splits * slice + tr * p.ld + col;
    float2 sum = make_float2(0.f, 0.f);
    for (int s = 0; s < p.splits; ++s) {
      const float2 v = *reinterpret_cast<const float2*>(w + s * slice);
      sum.x += v.x, sum.y += v.y;
    }
    const uint32_t packed = epilogue_pair<DT>(p.ep, sum.x, sum.y, row, col, p.M, p.N, b);
    T* dst = static_cast<T*>(p.C) + b * p.stride_c + static_cast<int64_t>(row) * p.ldc + col;
    if (col + 1 < p.N) *reinterpret_cast<uint32_t*>(dst) = packed;  // ldc and col even: 4-byte aligned
    else reinterpret_cast<uint16_t*>(dst)[0] = static_cast<uint16_t>(packed & 0xffffu);
  }
}

template <DType DT>
Status launch_splitk_reduce(const ReduceParams& p, cudaStream_t stream) {
  const int64_t total = static_cast<int64_t>(p.batches) * (p.M - p.row0) * ((p.N + 1) / 2);
  const int threads = 256;
  const int64_t blocks = (total + threads - 1) / threads;
  splitk_reduce_kernel<DT><<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), threads, 0, stream>>>(p);
  return check_launch("splitk_reduce_kernel");
}

}  // namespace tcgemm::sm90
