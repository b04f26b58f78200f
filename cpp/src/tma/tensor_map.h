// Host side of TMA: the parameters of cuTensorMapEncodeTiled for a kernel's
// operand, every rule of the CUDA driver API checked before the call (a
// Status names the broken rule), and the call itself through the runtime's
// driver entry point, so the library never links libcuda.
// CUDA Driver API: "Tensor Map Object Management: cuTensorMapEncodeTiled".
//
// Dimensions are listed innermost (contiguous) first, as the driver wants.
// A row-major R x C matrix with a pitch of ld elements is the 2-D tensor
// dims {C, R}, strides {ld * elem_bytes}; a box {box_cols, box_rows} lands in
// shared memory as box_rows rows of box_cols elements (swizzled in place).
#pragma once
#include <cuda.h>  // CUtensorMap and the encode enums (types only: libcuda is not linked)

#include <cstdint>
#include <string>

#include "core/launch_check.h"  // TCGEMM_TRY / cuda_status for callers composing these Statuses
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::tma {

// Shared-memory swizzle of the box (CUtensorMapSwizzle): 16-byte chunks of a
// row are XOR-permuted over a span of 32/64/128 bytes, the layouts the
// wgmma / tcgen05 shared-memory descriptors name.
enum class Swizzle : int { none = 0, b32 = 1, b64 = 2, b128 = 3 };
int swizzle_span_bytes(Swizzle s);  // 0 for none, else 32 / 64 / 128
const char* to_string(Swizzle s);

// What elements outside the tensor read as (CUtensorMapFloatOOBfill):
// zeros, or NaN (debugging: an unmasked use of padding shows up).
enum class OobFill : int { zero = 0, nan = 1 };

constexpr int kMaxRank = 5;

// The arguments of cuTensorMapEncodeTiled, in our words.
struct TensorMapParams {
  const void* base = nullptr;     // globalAddress
  DType dtype = DType::f16;       // tensorDataType (FLOAT16 / BFLOAT16 / FLOAT32; UINT8 for FP8)
  int rank = 2;                   // tensorRank
  uint64_t dims[kMaxRank] = {};   // globalDim, elements, innermost first
  uint64_t strides[kMaxRank - 1] = {};  // globalStrides, bytes, of dims 1 .. rank-1
  uint32_t box[kMaxRank] = {};    // boxDim, elements
  uint32_t elem_strides[kMaxRank] = {1, 1, 1, 1, 1};  // elementStrides
  Swizzle swizzle = Swizzle::b128;
  OobFill oob = OobFill::zero;
  int l2_promotion_bytes = 256;   // 0, 64, 128 or 256 (CUtensorMapL2promotion)

  int elem_bytes() const { return element_bytes(dtype); }
  // Bytes one box delivers to shared memory (the mbarrier tx-count).
  uint32_t box_bytes() const;
};

// Every rule of cuTensorMapEncodeTiled for a non-interleaved tiled map:
//   rank 1..5; global address non-null and 16-byte aligned; each dim in
//   1..2^32; each stride a multiple of 16 bytes and < 2^40; each box dim in
//   1..256; inner box bytes a multiple of 16 and, when swizzled, <= the
//   swizzle span; each element stride in 1..8; l2 promotion 0/64/128/256.
// The message of a failure starts with the rule.
Status check_params(const TensorMapParams& p);

// A row-major rows x cols matrix with a pitch of `ld` elements, read or
// written in boxes of box_rows x box_cols. Fills *out and checks it.
Status matrix_2d(const void* base, DType dtype, int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows,
                 uint32_t box_cols, Swizzle swizzle, TensorMapParams* out);

// A 3-D tensor: dims innermost first, strides (bytes) of dims 1 and 2.
Status tensor_3d(const void* base, DType dtype, const uint64_t (&dims)[3], const uint64_t (&strides)[2],
                 const uint32_t (&box)[3], Swizzle swizzle, TensorMapParams* out);

// GEMM operands as 2-D maps (types.h fixes their storage):
//   A:    M x K, K contiguous                      -> dims {K, M}
//   B TN: stored N x K, K contiguous (K-major)     -> dims {K, N}
//   B NN: stored K x N, N contiguous (MN-major)    -> dims {N, K}
//   C:    M x N, N contiguous                      -> dims {N, M}
// box_inner elements along the contiguous dimension, box_outer rows.
enum class Operand : int { A = 0, B = 1, C = 2 };
Status gemm_operand(const GemmArgs& args, Operand op, uint32_t box_inner, uint32_t box_outer, Swizzle swizzle,
                    TensorMapParams* out);

// The A and B maps of a TMA GEMM kernel with a BM x BN x BK tile (BK: the
// K elements of one swizzle row, e.g. 64 for 2-byte elements and 128B):
//   A:    box {BK, BM}
//   B TN: box {BK, BN / b_parts}  (b_parts CTAs each load a slice of rows of
//                                  the B tile, e.g. 2 for a multicast pair)
//   B NN: box {span / 2, BK}      (one swizzle-span-wide column block of the
//                                  K x BN tile; the kernel loads BN/(span/2))
struct GemmMaps {
  TensorMapParams a, b;
};
Status gemm_operand_maps(const GemmArgs& args, int bm, int bn, int bk, int b_parts, Swizzle swizzle,
                         GemmMaps* out);

// The maps of the swapped NN problem, D^T = B^T A^T for x @ w with the
// weight w stored K x N (args: the caller's NN problem): the swapped A is
// the caller's B, MN-major, read in B NN's boxes {span / 2 columns, bk rows}
// (a BM-row tile of it is BM / (span / 2) boxes); the swapped B is the
// caller's A, K-major, boxes {bk, bn rows}. bm must be whole boxes.
Status swapped_nn_operand_maps(const GemmArgs& args, int bm, int bn, int bk, Swizzle swizzle, GemmMaps* out);

// A 2-D operand map made 3-D by a batch dimension (box 1 along it): dims
// {inner, outer, batch}, the batch stride in bytes. A batch stride of 0 (the
// same matrix for every batch) becomes a batch dimension of 1, so the kernel
// reads it at batch coordinate 0 (batch_coord_step() says which).
Status add_batch_dim(TensorMapParams* p, int64_t batch, int64_t batch_stride_elems);
// 1 when the operand has its own matrix per batch, 0 when it is broadcast.
inline int batch_coord_step(int64_t batch_stride_elems) { return batch_stride_elems != 0 ? 1 : 0; }

// check_params, then cuTensorMapEncodeTiled (found through
// cudaGetDriverEntryPointByVersion). A failing CUresult is reported by name.
Status encode(const TensorMapParams& p, CUtensorMap* out);

// "CUDA_ERROR_INVALID_VALUE" etc. for the codes the encode call can return
// (and a few more); "CUresult <n>" for others.
std::string curesult_name(int code);

}  // namespace tcgemm::tma
