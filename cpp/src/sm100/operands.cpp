// Tensor-map parameters of the Blackwell load styles (see operands.h).
#include "sm100/operands.h"

#include "sm100/descriptors.h"

namespace tcgemm::sm100 {

Status operand_maps(const GemmArgs& a, tma::Operand op, Load load, int rows, int bk, OperandMaps* out) {
  if (op == tma::Operand::C) return Status::Error(StatusCode::invalid_argument, "operand_maps: A or B only");
  const tma::Swizzle sw = load_is_swizzled(load) ? tma::Swizzle::b128 : tma::Swizzle::none;
  const uint32_t chunk = static_cast<uint32_t>(load_chunk(load));
  const bool k_major = op == tma::Operand::A || a.layout == Layout::TN;
  OperandMaps m;
  // 2-D: chunk elements of the contiguous dimension by `rows` (K-major) or
  // `bk` (MN-major) rows of the other.
  TCGEMM_TRY(tma::gemm_operand(a, op, chunk, static_cast<uint32_t>(k_major ? rows : bk), sw, &m.map2d));
  if (load_is_3d(load)) {
    const void* base = op == tma::Operand::A ? a.A : a.B;
    const int64_t ld = op == tma::Operand::A ? a.lda : a.ldb;
    const int64_t outer = k_major ? (op == tma::Operand::A ? a.M : a.N) : a.K;  // the strided dimension
    const int64_t inner = k_major ? a.K : a.N;                                   // the contiguous one
    const int64_t box_inner = k_major ? bk : rows;  // contiguous extent of one box
    m.has_3d = inner >= box_inner;
    if (m.has_3d) {
      const uint64_t dims[3] = {chunk, static_cast<uint64_t>(outer), static_cast<uint64_t>(inner / chunk)};
      const uint64_t strides[2] = {static_cast<uint64_t>(ld) * 2u, chunk * 2u};
      const uint32_t box[3] = {chunk, static_cast<uint32_t>(k_major ? rows : bk),
                               static_cast<uint32_t>(box_inner / chunk)};
      TCGEMM_TRY(tma::tensor_3d(base, a.dtype, dims, strides, box, sw, &m.map3d));
    }
  }
  if (!m.has_3d) m.map3d = m.map2d;  // never used by the kernel; keeps the parameter valid
  *out = m;
  return Status::Ok();
}

Status store_map(const GemmArgs& a, int rows, tma::TensorMapParams* out) {
  if (rows < 1 || rows > 256) return Status::Error(StatusCode::invalid_argument, "store_map: 1..256 rows per box");
  return tma::gemm_operand(a, tma::Operand::C, kStoreBoxCols, static_cast<uint32_t>(rows), tma::Swizzle::b128, out);
}

}  // namespace tcgemm::sm100
