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

// Element types. e4m3 and e5m2 are the OCP FP8 formats (torch.float8_e4m3fn,
// torch.float8_e5m2): operands only, and only scaled (GemmArgs::scales). f32
// is an output type only (GemmArgs::dtype_c).
enum class DType : int { f16 = 0, bf16 = 1, e4m3 = 2, e5m2 = 3, f32 = 4 };
// GemmArgs::dtype_b / dtype_c's default: the same type as A's (GemmArgs::dtype).
constexpr DType kSameAsA = static_cast<DType>(-1);
constexpr bool is_fp8(DType d) { return d == DType::e4m3 || d == DType::e5m2; }
constexpr int element_bytes(DType d) { return d == DType::f32 ? 4 : is_fp8(d) ? 1 : 2; }
// Layout of B. A is always row-major (M x K, K contiguous) and C row-major.
//   NN: B is row-major K x N (N contiguous)           -- numpy C-contiguous (K, N)
//   TN: B is stored N x K row-major (K contiguous)    -- numpy F-contiguous (K, N), e.g. w.T
enum class Layout : int { NN = 0, TN = 1 };
// How the products are summed:
//   f32:  in fp32 (FP8 on Hopper: every 128-K block's wgmma sum added into
//         fp32 registers -- promotion -- as cuBLASLt's default FP8 path)
//   f16:  in fp16 (fp16 operands on Ada only)
//   fast: FP8 only, torch._scaled_mm's use_fast_accum=True: Hopper's FP8 wgmma
//         keeps the sum over a tile's whole K in its own accumulator, which
//         adds with fewer bits than fp32 (docs/fp8.md, Accuracy); a kernel
//         that sums in fp32 takes it too
enum class Accum : int { f32 = 0, f16 = 1, fast = 2 };
// The element-wise function the epilogue ends with. GELU is the tanh form
// (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), SiLU is x / (1 + e^-x).
enum class Activation : int { none = 0, relu = 1, gelu = 2, silu = 3 };
// Element type of the bias vector.
enum class BiasType : int { f16 = 0, bf16 = 1, f32 = 2 };

// Bit masks used by the registry to say what a kernel supports.
constexpr unsigned bit(DType d) { return 1u << static_cast<int>(d); }
constexpr unsigned bit(Layout l) { return 1u << static_cast<int>(l); }
constexpr unsigned bit(Accum a) { return 1u << static_cast<int>(a); }

// Scale modes of an FP8 GEMM, as torch._scaled_mm's: the scales dequantize,
// D = act(alpha * (scale_a * scale_b) (A B) + beta * S + bias).
//   tensor:  one float each for A and B
//   rowwise: A one per row (M), B one per column (N)
//   block:   A one per row per 128-K block (M x ceil(K/128), DeepSeek's 1 x 128),
//            B one per 128 x 128 block (ceil(N/128) x ceil(K/128))
enum class ScaleMode : int { none = 0, tensor = 1, rowwise = 2, block = 3 };
// K (and N, for B) per block-scale entry.
constexpr int kScaleBlockSize = 128;

const char* to_string(DType d);
const char* to_string(ScaleMode m);
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

// The fp32 dequantization scales, in device memory, 4-byte aligned. Entry
// (i, kb) of A's is a[i * a_stride + kb * a_stride_k] (i a row of A, kb a
// 128-K block); entry (j, kb) of B's is b[j * b_stride + kb * b_stride_k] (j a
// column of B for rowwise, a 128-column block for block). Strides are in
// elements, so row-major scales and DeepGEMM's MN-major (TMA-aligned: column
// kb of A's starts at kb * round_up(M, 4)) are both one pointer and two strides.
// Unused strides (tensor: all; rowwise: the _k ones) are ignored.
struct Scales {
  ScaleMode mode = ScaleMode::none;
  const float* a = nullptr;
  const float* b = nullptr;
  int64_t a_stride = 1, a_stride_k = 0;
  int64_t b_stride = 1, b_stride_k = 0;
  TCGEMM_HD float scale_a(int64_t row, int64_t kb) const {
    return mode == ScaleMode::tensor ? a[0] : a[row * a_stride + (mode == ScaleMode::block ? kb * a_stride_k : 0)];
  }
  // col: a column of B (rowwise) or of the output; block mode divides it by 128.
  TCGEMM_HD float scale_b(int64_t col, int64_t kb) const {
    if (mode == ScaleMode::tensor) return b[0];
    if (mode == ScaleMode::rowwise) return b[col * b_stride];
    return b[(col / kScaleBlockSize) * b_stride + kb * b_stride_k];
  }
};

// Number of 128-K blocks (block scales' second extent); a partial last block counts.
TCGEMM_HD constexpr int64_t scale_blocks(int64_t k) { return (k + kScaleBlockSize - 1) / kScaleBlockSize; }

// C[M x N] = epilogue(A[M x K] * B[K x N]), for each of `batch` matrices.
// Leading dimensions and batch strides are in elements; every pointer must be
// 16-byte aligned and every leading dimension and batch stride a multiple of
// 16 bytes (8 fp16/bf16 elements, 16 FP8, 4 f32): DeviceBuffer guarantees both. A batch stride of 0 for
// A or B uses the same matrix for every batch (NumPy's broadcasting).
struct GemmArgs {
  const void* A = nullptr;
  const void* B = nullptr;
  void* C = nullptr;
  int64_t M = 0, N = 0, K = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  DType dtype = DType::f16;  // A's element type (and B's and C's unless given below)
  DType dtype_b = kSameAsA;  // FP8 only: e4m3 x e5m2 and e5m2 x e4m3 mix (never e5m2 x e5m2)
  DType dtype_c = kSameAsA;  // FP8 operands: bf16, f16 or f32 output
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
  // FP8 dequantization scales: FP8 operands need a mode other than none.
  Scales scales;
  // A planning hint for `auto`: operands off the 16-byte grid (a leading
  // dimension that is no multiple of 8 elements) -- B's rows, where the Python
  // call path sets it; any operand, where gemm() does -- so every kernel but
  // those that read rows anywhere (kAnyRows) needs them copied into padded
  // buffers first. A family may then prefer such a kernel where it beats the copy.
  bool b_ragged = false;
  DType b_type() const { return dtype_b == kSameAsA ? dtype : dtype_b; }
  DType c_type() const { return dtype_c == kSameAsA ? dtype : dtype_c; }
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

}  // namespace tcgemm
