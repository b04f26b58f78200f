// The fused epilogue every family applies to its fp32 accumulators before
// rounding them to the output type (types.h, Epilogue):
//   D = act(alpha * acc + beta * S + bias)
// One function per output pair, because every kernel's accumulator fragment
// hands a thread two adjacent columns of one row (mma.sync / wgmma lanes hold
// column pairs 2t, 2t+1; tcgen05.ld 32x32b gives a thread a whole row). The
// kernels call it where they used to call Element::pack, so the epilogue adds
// no pass over D. S is read only when beta != 0 (BLAS: with beta = 0, S may
// hold NaN or be unset); reads are clipped to M x N, so edge tiles may call it
// for pairs they will not store.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/element.cuh"
#include "tcgemm/types.h"

namespace tcgemm {

__device__ __forceinline__ float activate(Activation act, float x) {
  switch (act) {
    case Activation::relu:
      return x < 0.f ? 0.f : x;  // keeps NaN (fmaxf(NaN, 0) would return 0)
    case Activation::gelu: {
      constexpr float kSqrt2OverPi = 0.7978845608028654f;
      return 0.5f * x * (1.f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
    }
    case Activation::silu:
      return x / (1.f + __expf(-x));
    default:
      return x;
  }
}

__device__ __forceinline__ float load_bias(const Epilogue& e, int col) {
  switch (e.bias_type) {
    case BiasType::f16: return __half2float(static_cast<const __half*>(e.bias)[col]);
    case BiasType::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(e.bias)[col]);
    default: return static_cast<const float*>(e.bias)[col];
  }
}

// One output value at (row, col) of batch `b`, from its fp32 accumulator.
// The caller makes sure row < M and col < N.
template <DType DT>
__device__ __forceinline__ float epilogue_value(const Epilogue& e, float acc, int row, int col, int64_t b) {
  using T = typename Element<DT>::T;
  float x = e.alpha * acc;
  if (e.beta != 0.f) {
    const T* s = static_cast<const T*>(e.source) + b * e.batch_stride_source;
    x += e.beta * static_cast<float>(s[static_cast<int64_t>(row) * e.ld_source + col]);
  }
  if (e.bias) x += load_bias(e, col);
  return activate(e.act, x);
}

// The packed output pair (row, col), (row, col + 1). Elements outside
// M x N come back as 0 without reading anything.
template <DType DT>
__device__ __forceinline__ uint32_t epilogue_pair(const Epilogue& e, float v0, float v1, int row, int col, int M,
                                                  int N, int64_t b) {
  if (e.plain()) return Element<DT>::pack(v0, v1);
  const bool in = row < M;
  const float o0 = in && col < N ? epilogue_value<DT>(e, v0, row, col, b) : 0.f;
  const float o1 = in && col + 1 < N ? epilogue_value<DT>(e, v1, row, col + 1, b) : 0.f;
  return Element<DT>::pack(o0, o1);
}

}  // namespace tcgemm
