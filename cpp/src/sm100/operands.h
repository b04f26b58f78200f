// How the Blackwell kernels bring an operand tile into shared memory, host
// side: the tensor-map parameters of each TMA load style of the ladder
// (v1a 2-D 16-byte boxes, v1b one 3-D box, v2a 2-D 128B-swizzled boxes, v2b
// one 3-D swizzled box), built with the shared cpp/src/tma/tensor_map.h, and
// the C map of v8's TMA-store epilogue (store_map).
// The shared-memory layouts these loads produce are the ones
// sm100/descriptors.h describes (tile_lbo_sbo); tests/cpp/test_sm100_tensor_maps
// checks the parameters, the device side is OperandTile in sm100/kernel_common.cuh.
#pragma once
#include "tcgemm/status.h"
#include "tcgemm/types.h"
#include "tma/tensor_map.h"

namespace tcgemm::sm100 {

enum class Load : int {
  tma2d_16B = 0,   // v1a: per K slice, one 2-D box per 16-byte column (no swizzle)
  tma3d_16B = 1,   // v1b: per K slice, one 3-D box (16-byte columns as the 3rd dim)
  tma2d_128B = 2,  // v2a: per K slice, one 2-D box per 128-byte column, 128B swizzle
  tma3d_128B = 3,  // v2b: per K slice, one 3-D box of 128-byte columns, 128B swizzle
};

constexpr bool load_is_3d(Load l) { return l == Load::tma3d_16B || l == Load::tma3d_128B; }
constexpr bool load_is_swizzled(Load l) { return l == Load::tma2d_128B || l == Load::tma3d_128B; }
// Elements per column of the shared tile: 16 bytes unswizzled, one 128-byte
// swizzle span otherwise (the widest box row a 128B-swizzled map allows).
constexpr int load_chunk(Load l) { return load_is_swizzled(l) ? 64 : 8; }

// The maps of one operand. `map2d` serves every load when there is no 3-D
// map, and the tile edges otherwise: a 3-D box splits the contiguous
// dimension into (chunk, count) and so cannot clip inside a chunk, so it is
// used only for boxes lying wholly inside the tensor (has_3d: at least one
// such box exists), the partial box at the edge going through map2d, whose
// out-of-bounds elements TMA zero-fills.
struct OperandMaps {
  tma::TensorMapParams map2d, map3d;
  bool has_3d = false;
};

// The maps for operand `op` (A, or B in args.layout) of a kernel whose tile
// is `rows` (its M or N extent) x `bk` (K), loaded in style `load`.
//   K-major (A, B TN), matrix rows_total x K, pitch ld:
//     2-D dims {K, rows_total}, box {chunk, rows}           -> smem [bk/chunk][rows][chunk]
//     3-D dims {chunk, rows_total, K/chunk}, strides {ld*2, chunk*2}, box {chunk, rows, bk/chunk}
//   MN-major (B NN), matrix K x N, pitch ld:
//     2-D dims {N, K}, box {chunk, bk}                      -> smem [rows/chunk][bk][chunk]
//     3-D dims {chunk, K, N/chunk}, strides {ld*2, chunk*2}, box {chunk, bk, rows/chunk}
Status operand_maps(const GemmArgs& args, tma::Operand op, Load load, int rows, int bk, OperandMaps* out);

// The C map of the TMA-store epilogue (v8): C (M x N, N contiguous, pitch
// ldc) as the 2-D tensor dims {N, M}, strides {ldc * 2}, stored in boxes
// {kStoreBoxCols = 64, rows} (one 128-byte swizzle span of columns x the
// CTA's rows) with the 128B swizzle: the staging layout store_staging_offset
// (descriptors.h). TMA writes only the box elements inside the tensor, so
// the M and N edges are clipped by the hardware.
Status store_map(const GemmArgs& args, int rows, tma::TensorMapParams* out);

}  // namespace tcgemm::sm100
