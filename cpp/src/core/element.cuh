// The element types a kernel stores, by DType: the CUDA type and how two
// fp32 accumulators round into one packed 32-bit pair. Shared by every family.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "tcgemm/types.h"

namespace tcgemm {

template <DType DT>
struct Element;

template <>
struct Element<DType::f16> {
  using T = __half;
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }
};

template <>
struct Element<DType::bf16> {
  using T = __nv_bfloat16;
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }
};

// fp32 output (FP8 GEMMs): stored as it is, a pair at a time (no pack).
template <>
struct Element<DType::f32> {
  using T = float;
};

}  // namespace tcgemm
