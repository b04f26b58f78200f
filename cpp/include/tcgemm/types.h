// Value types shared by every part of tcgemm: element types, operand layouts,
// accumulators, and the one argument block every kernel launch takes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

// Member functions the kernels call too.
#if defined(__CUDACC__)
#define TCGEMM_HD __host__ __device__
#else
#define TCGEMM_HD
#endif

namespace tcgemm {

enum class DType : int { f16 = 0, bf16 = 1 };
// Layout of B. A is always row-major (M x K, K contiguous) and C row-major.
//   NN: B is row-major K x N (N contiguous)           -- numpy C-contiguous (K, N)
//   TN: B is stored N x K row-major (K contiguous)    -- numpy F-contiguous (K, N), e.g. w.T
enum class Layout : int { NN = 0, TN = 1 };
enum class Accum : int { f32 = 0, f16 = 1 };
// The element-wise function the epilogue ends with. GELU is the tanh form
// (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), SiLU is x / (1 + e^-x).
enum class Activation : int { none = 0, relu = 1, gelu = 2, silu = 3 };
// Element type of the bias vector.
enum class BiasType : int { f16 = 0, bf16 = 1, f32 = 2 };

// Bit masks used by the registry to say what a kernel supports.
constexpr unsigned bit(DType d) { return 1u << static_cast<int>(d); }
constexpr unsigned bit(Layout l) { return 1u << static_cast<int>(l); }
constexpr unsigned bit(Accum a) { return 1u << static_cast<int>(a); }

const char* to_string(DType d);
const char* to_string(Layout l);
const char* to_string(Accum a);
const char* to_string(Activation a);

// What the kernels' epilogues do to the fp32 accumulators before rounding:
//   D = act(alpha * (A B) + beta * S + bias)
// S ("source", matmul's `c`) is an M x N matrix of the output's dtype, read
// only when beta != 0 (so with beta == 0 it may hold NaN or be null, as in
// BLAS); it may be the output itself (in-place accumulate). bias holds N
// values, one per column, broadcast over rows (and batches).
struct Epilogue {
  float alpha = 1.0f, beta = 0.0f;
  const void* source = nullptr;
  int64_t ld_source = 0;            // elements
  int64_t batch_stride_source = 0;  // elements; 0 = the same S for every batch
  const void* bias = nullptr;
  BiasType bias_type = BiasType::f32;
  Activation act = Activation::none;
  // D = A B: the epilogue only rounds.
  TCGEMM_HD bool plain() const { return alpha == 1.0f && beta == 0.0f && bias == nullptr && act == Activation::none; }
};

// C[M x N] = epilogue(A[M x K] * B[K x N]), for each of `batch` matrices.
// Leading dimensions and batch strides are in elements; every pointer must be
// 16-byte aligned and every leading dimension and batch stride a multiple of
// 8 elements (16 bytes): DeviceBuffer guarantees both. A batch stride of 0 for
// A or B uses the same matrix for every batch (NumPy's broadcasting).
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
  Epilogue epilogue;
  int64_t batch = 1;
  int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_c = 0;
  // K split into this many slices whose fp32 partial sums are reduced in a
  // fixed order (deterministic): 0 lets a kernel that splits choose, 1 never
  // splits; kernels without the feature take only 0 or 1.
  int split_k = 0;
  // Scratch memory for kernels that need it (split-K's fp32 partials), from
  // the caller's allocator: at least workspace_size() bytes, 16-byte aligned,
  // not touched by anything else until this launch's work on `stream` is done.
  // Null: the kernel takes it from tcgemm's own stream-ordered pool
  // (core/workspace.h) -- capturable, but not the caller's memory.
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace tcgemm
