// Pieces every Hopper kernel shares: element types, the shared-memory
// operand layouts that TMA writes and wgmma reads, the wgmma call for a tile
// width, the tensor maps of the operands and the kernels' parameters. The
// epilogues are parts of their own (epilogue_*.cuh).
//
// Operand layouts in shared memory (one pipeline stage, BK = 64 so that one
// row of K is exactly one 128-byte swizzle row; PTX ISA: "Shared Memory
// Matrix Layout" and "Matrix Descriptor Format"; CUDA driver API:
// CU_TENSOR_MAP_SWIZZLE_128B):
//   A    (K-major)  BM rows of 64 k, 128 B each; 8-row groups of 1024 B.
//        k16 step kk starts 32*kk bytes into the row; SBO = 1024.
//   B TN (K-major)  BN rows (n) of 64 k: the same layout as A.
//   B NN (MN-major) BN/64 blocks of [64 k rows][64 n = 128 B]; one block is
//        one TMA box of 8 KB. k16 step kk starts 16*kk rows (2 KB) in;
//        SBO = 1024 (next 8 k rows), LBO = 8 KB (next 64 columns of n).
//   A    (MN-major) the swapped NN problem (swap-AB, D^T = B^T A^T): its A is
//        the caller's K x N weight, laid out as B NN is, BM/64 blocks of
//        [64 k rows][64 m]; a consumer's 64 rows are one block.
// Every stage buffer is 1024-byte aligned, so the swizzle pattern (a function
// of the address bits) starts at its beginning and the descriptors' base
// offset is 0.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/element.cuh"
#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "ptx/mbarrier.h"
#include "ptx/tma.h"
#include "ptx/wgmma.h"
#include "sched/raster.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"
#include "tma/tensor_map.h"

// Device code of this family uses sm_90a-only instructions (wgmma,
// setmaxnreg): emit it only for that target.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TCGEMM_SM90_DEVICE 1
#else
#define TCGEMM_SM90_DEVICE 0
#endif

namespace tcgemm::sm90 {

constexpr int BK = 64;               // K per stage: 64 x 2 bytes = one 128-byte swizzle row
constexpr int kRowBytes = BK * 2;    // 128
constexpr int kAtomBytes = 8 * kRowBytes;  // 1024: the 128B-swizzle pattern repeats every 8 rows
constexpr int kWarpgroup = 128;

// One m64nNk16 wgmma for the element type and tile width N. L is B's
// layout in shared memory (NN: MN-major); kMnMajorA: A is MN-major too (the
// swapped NN problem).
template <DType DT, int N, Layout L, bool kMnMajorA = false>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b) {
  constexpr int kTransA = kMnMajorA ? 1 : 0;
  constexpr int kTransB = L == Layout::NN ? 1 : 0;  // NN: B is MN-major in shared memory
  if constexpr (DT == DType::f16 && N == 16) ptx::wgmma_m64n16k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 16) ptx::wgmma_m64n16k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::f16 && N == 32) ptx::wgmma_m64n32k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 32) ptx::wgmma_m64n32k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::f16 && N == 64) ptx::wgmma_m64n64k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 64) ptx::wgmma_m64n64k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::f16 && N == 128) ptx::wgmma_m64n128k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 128) ptx::wgmma_m64n128k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::f16 && N == 192) ptx::wgmma_m64n192k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 192) ptx::wgmma_m64n192k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::f16 && N == 256) ptx::wgmma_m64n256k16_f32_f16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  if constexpr (DT == DType::bf16 && N == 256) ptx::wgmma_m64n256k16_f32_bf16<kTransA, kTransB>(d, desc_a, desc_b, 1);
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192 || N == 256,
                "tile widths with a wgmma wrapper: 16, 32, 64, 128, 192, 256");
}

// One m64nNk32 FP8 wgmma (both operands K-major; ptx/wgmma.h). scale_d 0
// starts the accumulators afresh (block scaling's per-128-K partial sums).
template <DType DA, DType DB, int N>
__device__ __forceinline__ void wgmma_fp8(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  constexpr int kA = DA == DType::e5m2, kB = DB == DType::e5m2;
  static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 192 || N == 256,
                "FP8 tile widths with a wgmma wrapper: 16, 32, 64, 128, 192, 256");
  if constexpr (N == 16) ptx::wgmma_m64n16k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
  if constexpr (N == 32) ptx::wgmma_m64n32k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
  if constexpr (N == 64) ptx::wgmma_m64n64k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
  if constexpr (N == 128) ptx::wgmma_m64n128k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
  if constexpr (N == 192) ptx::wgmma_m64n192k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
  if constexpr (N == 256) ptx::wgmma_m64n256k32_f32_f8<kA, kB>(d, desc_a, desc_b, scale_d);
}

// Descriptor of rows [row0, row0 + 64) of a K-major tile (A, or B in TN) for
// k16 step kk (k32 for FP8: the same 32 bytes of the row).
__device__ __forceinline__ uint64_t desc_k_major(uint32_t tile, int row0, int kk) {
  return ptx::wgmma_desc(tile + row0 * kRowBytes + kk * 32, 16, kAtomBytes, ptx::WgmmaSwizzle::b128);
}

// Descriptor of the whole MN-major B tile (NN) for k16 step kk.
__device__ __forceinline__ uint64_t desc_mn_major(uint32_t tile, int kk) {
  return ptx::wgmma_desc(tile + kk * 16 * kRowBytes, BK * kRowBytes, kAtomBytes, ptx::WgmmaSwizzle::b128);
}

template <Layout L>
__device__ __forceinline__ uint64_t desc_b(uint32_t tile, int kk) {
  if constexpr (L == Layout::NN) return desc_mn_major(tile, kk);
  else return desc_k_major(tile, 0, kk);
}

// Descriptor of rows [row0, row0 + 64) of the A tile for k16 step kk:
// K-major, or MN-major (row0 / 64 is a whole block of the layout above).
template <bool kMnMajorA>
__device__ __forceinline__ uint64_t desc_a(uint32_t tile, int row0, int kk) {
  if constexpr (kMnMajorA) return desc_mn_major(tile + (row0 / 64) * BK * kRowBytes, kk);
  else return desc_k_major(tile, row0, kk);
}

// The TMA loads of the B tile (k0, n0) of width BN. With `parts` > 1 the
// tile is split among the CTAs of a cluster and this call loads part `part`,
// multicast to all of them (cta_mask); otherwise the whole tile.
//   TN: part p is rows [p*BN/parts, (p+1)*BN/parts): one box of that height.
//   NN: part p is the 64-column blocks [p*blocks/parts, (p+1)*blocks/parts)
//       of the tile's BN/64, one box each: parts may differ by one block
//       (BN = 192 over 2 CTAs: 2 and 1). Every CTA's full barrier expects the
//       whole stage whichever part it issues, so the split only moves who
//       issues which box.
// Every map is 3-D (tma::add_batch_dim): z is the batch coordinate, 0 for
// an operand shared by all batches.
template <Layout L, int BN, int PARTS>
__device__ __forceinline__ void load_b(uint32_t tile, const CUtensorMap* map, uint32_t bar, int k0, int n0, int z,
                                       int part, uint16_t cta_mask) {
  if constexpr (L == Layout::TN) {
    constexpr int rows = BN / PARTS;
    const uint32_t dst = tile + part * rows * kRowBytes;
    if constexpr (PARTS == 1) ptx::tma_load_3d(dst, map, bar, k0, n0, z);
    else ptx::tma_load_3d_multicast(dst, map, bar, k0, n0 + part * rows, z, cta_mask);
  } else {
    constexpr int blocks = BN / 64;
    static_assert(blocks >= PARTS && BN % 64 == 0, "NN splits B into whole 64-column blocks");
    const int first = part * blocks / PARTS, last = (part + 1) * blocks / PARTS;
#pragma unroll
    for (int c = first; c < last; ++c) {
      const uint32_t dst = tile + c * BK * kRowBytes;
      if constexpr (PARTS == 1) ptx::tma_load_3d(dst, map, bar, n0 + c * 64, k0, z);
      else ptx::tma_load_3d_multicast(dst, map, bar, n0 + c * 64, k0, z, cta_mask);
    }
  }
}

// The TMA loads of the A tile (k0, m0) of height BM: one box {64 k, BM rows}
// (K-major), or with kMnMajorA (the swapped NN problem) the BM / 64 blocks of
// an MN-major tile -- exactly B NN's boxes, so load_b lays them out.
template <bool kMnMajorA, int BM>
__device__ __forceinline__ void load_a(uint32_t tile, const CUtensorMap* map, uint32_t bar, int k0, int m0, int z) {
  if constexpr (kMnMajorA) load_b<Layout::NN, BM, 1>(tile, map, bar, k0, m0, z, 0, 0);
  else ptx::tma_load_3d(tile, map, bar, k0, m0, z);
}

// The maps made 3-D by the batch (batch strides of A and B, in elements) and encoded.
inline Status encode_batched(tma::GemmMaps maps, int64_t batch, int64_t stride_a, int64_t stride_b,
                             CUtensorMap* map_a, CUtensorMap* map_b) {
  TCGEMM_TRY(tma::add_batch_dim(&maps.a, batch, stride_a));
  TCGEMM_TRY(tma::add_batch_dim(&maps.b, batch, stride_b));
  TCGEMM_TRY(tma::encode(maps.a, map_a));
  TCGEMM_TRY(tma::encode(maps.b, map_b));
  return Status::Ok();
}

// The operand maps of a kernel with a BM x BN tile: A boxes {64 k, BM rows};
// B boxes TN {64 k, BN/parts rows}, NN {64 n, 64 k rows}. 128-byte swizzle,
// zero fill outside the matrices. KS: K elements per 128-byte row (64; 128
// for FP8).
template <int BM, int BN, int PARTS, int KS = BK>
Status encode_operands(const GemmArgs& a, CUtensorMap* map_a, CUtensorMap* map_b) {
  tma::GemmMaps maps;
  TCGEMM_TRY(tma::gemm_operand_maps(a, BM, BN, KS, PARTS, tma::Swizzle::b128, &maps));
  return encode_batched(maps, a.batch, a.batch_stride_a, a.batch_stride_b, map_a, map_b);
}

// The swapped NN problem's maps (tma::swapped_nn_operand_maps), from the
// caller's problem `orig`: A is the caller's B, B the caller's A.
template <int BM, int BN>
Status encode_swapped_nn_operands(const GemmArgs& orig, CUtensorMap* map_a, CUtensorMap* map_b) {
  tma::GemmMaps maps;
  TCGEMM_TRY(tma::swapped_nn_operand_maps(orig, BM, BN, BK, tma::Swizzle::b128, &maps));
  return encode_batched(maps, orig.batch, orig.batch_stride_b, orig.batch_stride_a, map_a, map_b);
}

// D^T = B^T A^T: the TN problem with M and N, A and B exchanged (B of a TN
// problem is stored N x K, K-major, exactly as A is M x K), for decode
// shapes whose few rows of A would fill a sliver of a 64-row wgmma: the
// weight's rows fill wgmma's M instead. C stays the caller's D (M x N); the
// kernel that computes the swapped problem writes no C itself.
inline GemmArgs swap_ab(const GemmArgs& a) {
  GemmArgs s = a;
  s.A = a.B, s.B = a.A;
  s.M = a.N, s.N = a.M;
  s.lda = a.ldb, s.ldb = a.lda;
  s.batch_stride_a = a.batch_stride_b, s.batch_stride_b = a.batch_stride_a;
  // FP8: the operand pair and the tensor / row-wise scales follow their
  // operands (a row scale of x is a column scale of D^T).
  if (is_fp8(a.dtype)) {
    s.dtype = a.b_type(), s.dtype_b = a.dtype, s.dtype_c = a.c_type();
    s.scales.a = a.scales.b, s.scales.b = a.scales.a;
    s.scales.a_stride = a.scales.b_stride, s.scales.b_stride = a.scales.a_stride;
    s.scales.a_stride_k = a.scales.b_stride_k, s.scales.b_stride_k = a.scales.a_stride_k;
  }
  return s;
}

// What the kernels need besides the tensor maps.
struct Params {
  void* C;
  int M, N, K;
  int64_t ldc;  // elements
  int tiles_m, tiles_n;
  bool grouped;
  Epilogue ep;
  int batches;
  int batch0;              // batch of blockIdx.y == 0 (non-persistent kernels)
  int z_step_a, z_step_b;  // batch coordinate step of A and B: 1, or 0 when shared by all batches
  int64_t stride_c;        // elements between output matrices
  int splits;              // K slices (split-K kernels; 1 otherwise)
  int dp_rows;             // unit rows computed whole before a split tail (sched::PersistentSchedule)
  int partial_row0;        // the first row stored as partials: rows partial_row0 .. M-1
  float* partials;         // split-K: fp32 partial tiles, [batch][split][M - partial_row0][ld_partials]
  int64_t ld_partials;
  int64_t sk_tiles;  // stream-K: the last tiles streamed (sched::StreamKSchedule), and their workers
  int sk_workers;
  int* sk_flags;  // stream-K: a flag per worker and consumer (zeroed before the launch); p.partials: their slots
};

// FP8 kernels' parameters: Params and the dequantization scales, where the
// kernel reads them as scale_a[row * a_stride + kb * a_stride_k] and
// scale_b[col_or_block * b_stride + kb * b_stride_k] (scaled_params).
struct ScaledParams : Params {
  Scales scales;
};

inline Params make_params(const GemmArgs& a, int BM, int BN) {
  return Params{a.C,
                static_cast<int>(a.M),
                static_cast<int>(a.N),
                static_cast<int>(a.K),
                a.ldc,
                static_cast<int>(ceil_div(a.M, BM)),
                static_cast<int>(ceil_div(a.N, BN)),
                a.grid_swizzle,
                a.epilogue,
                static_cast<int>(a.batch),
                0,
                tma::batch_coord_step(a.batch_stride_a),
                tma::batch_coord_step(a.batch_stride_b),
                a.batch_stride_c,
                1,
                0,
                0,
                nullptr,
                0,
                0,
                0,
                nullptr};
}

// The scales as the kernels index them: ScaleMode::tensor is the row-wise
// form with strides 0 (every row and column reads entry 0).
inline Scales kernel_scales(const Scales& s) {
  Scales k = s;
  if (s.mode == ScaleMode::tensor) k.a_stride = k.a_stride_k = k.b_stride = k.b_stride_k = 0;
  if (s.mode == ScaleMode::rowwise) k.a_stride_k = k.b_stride_k = 0;
  return k;
}

// Dynamic shared memory is only 16-byte aligned: round the base up to the
// 1024 bytes the 128B swizzle needs (the kernels request 1 KB of slack).
__device__ __forceinline__ uint32_t align_1024(uint32_t addr) { return (addr + 1023u) & ~1023u; }

// Above 48 KB a block's dynamic shared memory must be opted into.
template <class Kernel>
Status set_smem(Kernel kernel, int bytes) {
  return opt_in_smem(kernel, bytes);  // once per kernel and device (core/launch_check.h)
}

}  // namespace tcgemm::sm90
