// Value types shared by every part of tcgemm: element types, operand layouts,
// accumulators, and the one argument block every kernel launch takes.
#pragma once
#include <cstdint>
#include <cuda_runtime_api.h>

namespace tcgemm {

enum class DType : int { f16 = 0, bf16 = 1 };
// Layout of B. A is always row-major (M x K, K contiguous) and C row-major.
//   NN: B is row-major K x N (N contiguous)           -- numpy C-contiguous (K, N)
//   TN: B is stored N x K row-major (K contiguous)    -- numpy F-contiguous (K, N), e.g. w.T
enum class Layout : int { NN = 0, TN = 1 };
enum class Accum : int { f32 = 0, f16 = 1 };

// Bit masks used by the registry to say what a kernel supports.
constexpr unsigned bit(DType d) { return 1u << static_cast<int>(d); }
constexpr unsigned bit(Layout l) { return 1u << static_cast<int>(l); }
constexpr unsigned bit(Accum a) { return 1u << static_cast<int>(a); }

const char* to_string(DType d);
const char* to_string(Layout l);
const char* to_string(Accum a);

// C[M x N] = A[M x K] * B[K x N]. Leading dimensions are in elements; every
// pointer must be 16-byte aligned and every leading dimension a multiple of 8
// elements (16 bytes): DeviceBuffer guarantees both.
struct GemmArgs {
  const void* A = nullptr;
  const void* B = nullptr;
  void* C = nullptr;
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  DType dtype = DType::f16;
  Layout layout = Layout::NN;
  Accum accum = Accum::f32;
  bool grid_swizzle = true;  // L2-friendly grouped tile raster (sched/raster.h)
  cudaStream_t stream = nullptr;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace tcgemm
