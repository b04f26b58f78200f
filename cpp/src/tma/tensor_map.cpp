// Tensor-map parameters, their checks, and the driver call (tensor_map.h).
#include "tma/tensor_map.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "core/launch_check.h"

namespace tcgemm::tma {

int swizzle_span_bytes(Swizzle s) {
  switch (s) {
    case Swizzle::b32: return 32;
    case Swizzle::b64: return 64;
    case Swizzle::b128: return 128;
    default: return 0;
  }
}

const char* to_string(Swizzle s) {
  switch (s) {
    case Swizzle::none: return "none";
    case Swizzle::b32: return "32B";
    case Swizzle::b64: return "64B";
    case Swizzle::b128: return "128B";
  }
  return "?";
}

uint32_t TensorMapParams::box_bytes() const {
  uint64_t b = static_cast<uint64_t>(elem_bytes());
  for (int i = 0; i < rank && i < kMaxRank; ++i) b *= box[i];
  return static_cast<uint32_t>(b);
}

namespace {

Status rule(const std::string& what) {
  return Status::Error(StatusCode::invalid_argument, "tensor map: " + what);
}

}  // namespace

Status check_params(const TensorMapParams& p) {
  if (p.rank < 1 || p.rank > kMaxRank)
    return rule("tensorRank must be in 1..5 (got " + std::to_string(p.rank) + ")");
  if (static_cast<int>(p.dtype) < 0 || static_cast<int>(p.dtype) > 4) return rule("unknown element type");
  if (p.oob == OobFill::nan && is_fp8(p.dtype))
    return rule("a NaN out-of-bounds fill needs a floating-point tensor-map type (FP8 maps are UINT8)");
  if (p.base == nullptr) return rule("global address must not be null");
  if (reinterpret_cast<uintptr_t>(p.base) % 16 != 0)
    return rule("global address must be 16-byte aligned (got " + std::to_string(reinterpret_cast<uintptr_t>(p.base)) + ")");
  for (int i = 0; i < p.rank; ++i) {
    if (p.dims[i] < 1 || p.dims[i] > (uint64_t(1) << 32))
      return rule("globalDim[" + std::to_string(i) + "] must be in 1..2^32 (got " + std::to_string(p.dims[i]) + ")");
  }
  for (int i = 0; i + 1 < p.rank; ++i) {
    if (p.strides[i] % 16 != 0)
      return rule("globalStrides[" + std::to_string(i) + "] must be a multiple of 16 bytes (got " +
                  std::to_string(p.strides[i]) + ")");
    if (p.strides[i] >= (uint64_t(1) << 40))
      return rule("globalStrides[" + std::to_string(i) + "] must be < 2^40 bytes (got " +
                  std::to_string(p.strides[i]) + ")");
  }
  for (int i = 0; i < p.rank; ++i) {
    if (p.box[i] < 1 || p.box[i] > 256)
      return rule("boxDim[" + std::to_string(i) + "] must be in 1..256 (got " + std::to_string(p.box[i]) + ")");
    if (p.elem_strides[i] < 1 || p.elem_strides[i] > 8)
      return rule("elementStrides[" + std::to_string(i) + "] must be in 1..8 (got " +
                  std::to_string(p.elem_strides[i]) + ")");
  }
  const uint64_t inner_bytes = uint64_t(p.box[0]) * p.elem_bytes();
  if (inner_bytes % 16 != 0)
    return rule("inner box bytes (boxDim[0] * element size) must be a multiple of 16 (got " +
                std::to_string(inner_bytes) + ")");
  const int span = swizzle_span_bytes(p.swizzle);
  if (span != 0 && inner_bytes > static_cast<uint64_t>(span))
    return rule("inner box bytes (boxDim[0] * element size = " + std::to_string(inner_bytes) +
                ") must not exceed the swizzle span (" + std::to_string(span) + " bytes for swizzle " +
                to_string(p.swizzle) + ")");
  if (p.l2_promotion_bytes != 0 && p.l2_promotion_bytes != 64 && p.l2_promotion_bytes != 128 &&
      p.l2_promotion_bytes != 256)
    return rule("L2 promotion must be 0, 64, 128 or 256 bytes (got " + std::to_string(p.l2_promotion_bytes) + ")");
  return Status::Ok();
}

Status matrix_2d(const void* base, DType dtype, int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows,
                 uint32_t box_cols, Swizzle swizzle, TensorMapParams* out) {
  if (rows < 1 || cols < 1) return rule("matrix must have at least one row and one column");
  if (ld < cols)
    return rule("row pitch (" + std::to_string(ld) + " elements) is smaller than the row length (" +
                std::to_string(cols) + ")");
  TensorMapParams p;
  p.base = base;
  p.dtype = dtype;
  p.rank = 2;
  p.dims[0] = static_cast<uint64_t>(cols);
  p.dims[1] = static_cast<uint64_t>(rows);
  p.strides[0] = static_cast<uint64_t>(ld) * p.elem_bytes();
  p.box[0] = box_cols;
  p.box[1] = box_rows;
  p.swizzle = swizzle;
  Status s = check_params(p);
  if (s.ok()) *out = p;
  return s;
}

Status tensor_3d(const void* base, DType dtype, const uint64_t (&dims)[3], const uint64_t (&strides)[2],
                 const uint32_t (&box)[3], Swizzle swizzle, TensorMapParams* out) {
  TensorMapParams p;
  p.base = base;
  p.dtype = dtype;
  p.rank = 3;
  for (int i = 0; i < 3; ++i) p.dims[i] = dims[i], p.box[i] = box[i];
  p.strides[0] = strides[0];
  p.strides[1] = strides[1];
  p.swizzle = swizzle;
  Status s = check_params(p);
  if (s.ok()) *out = p;
  return s;
}

Status add_batch_dim(TensorMapParams* p, int64_t batch, int64_t batch_stride_elems) {
  if (p->rank != 2) return rule("add_batch_dim takes a 2-D map (rank " + std::to_string(p->rank) + ")");
  if (batch < 1 || batch_stride_elems < 0) return rule("batch must be >= 1 and its stride >= 0");
  TensorMapParams q = *p;
  q.rank = 3;
  const bool broadcast = batch_stride_elems == 0 || batch == 1;
  q.dims[2] = broadcast ? 1 : static_cast<uint64_t>(batch);
  // A dimension of 1 is never stepped over; its stride still has to obey the
  // stride rules, so give it the matrix's own size.
  q.strides[1] = broadcast ? q.strides[0] * q.dims[1] : static_cast<uint64_t>(batch_stride_elems) * q.elem_bytes();
  q.box[2] = 1;
  Status s = check_params(q);
  if (s.ok()) *p = q;
  return s;
}

Status gemm_operand(const GemmArgs& a, Operand op, uint32_t box_inner, uint32_t box_outer, Swizzle swizzle,
                    TensorMapParams* out) {
  switch (op) {
    case Operand::A:
      return matrix_2d(a.A, a.dtype, a.M, a.K, a.lda, box_outer, box_inner, swizzle, out);
    case Operand::B:
      return a.layout == Layout::TN ? matrix_2d(a.B, a.b_type(), a.N, a.K, a.ldb, box_outer, box_inner, swizzle, out)
                                    : matrix_2d(a.B, a.b_type(), a.K, a.N, a.ldb, box_outer, box_inner, swizzle, out);
    case Operand::C:
      return matrix_2d(a.C, a.c_type(), a.M, a.N, a.ldc, box_outer, box_inner, swizzle, out);
  }
  return rule("unknown GEMM operand");
}

Status gemm_operand_maps(const GemmArgs& a, int bm, int bn, int bk, int b_parts, Swizzle swizzle,
                         GemmMaps* out) {
  if (bm < 1 || bn < 1 || bk < 1 || b_parts < 1 || bn % b_parts != 0)
    return rule("tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
                " cannot be split into " + std::to_string(b_parts) + " B parts");
  GemmMaps m;
  TCGEMM_TRY(gemm_operand(a, Operand::A, static_cast<uint32_t>(bk), static_cast<uint32_t>(bm), swizzle, &m.a));
  if (a.layout == Layout::TN) {
    TCGEMM_TRY(gemm_operand(a, Operand::B, static_cast<uint32_t>(bk), static_cast<uint32_t>(bn / b_parts), swizzle,
                            &m.b));
  } else {
    const int span = swizzle_span_bytes(swizzle);
    const uint32_t cols = static_cast<uint32_t>(span ? span / 2 : bn / b_parts);
    TCGEMM_TRY(gemm_operand(a, Operand::B, cols, static_cast<uint32_t>(bk), swizzle, &m.b));
  }
  *out = m;
  return Status::Ok();
}

Status swapped_nn_operand_maps(const GemmArgs& a, int bm, int bn, int bk, Swizzle swizzle, GemmMaps* out) {
  const int cols = swizzle_span_bytes(swizzle) / 2;  // elements per MN-major box row
  if (a.layout != Layout::NN) return rule("the swapped NN maps take an NN problem");
  if (cols == 0 || bm < 1 || bm % cols != 0 || bn < 1 || bk < 1)
    return rule("swapped NN tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
                " is not whole " + std::to_string(cols) + "-column boxes of a swizzled MN-major A");
  GemmMaps m;
  TCGEMM_TRY(gemm_operand(a, Operand::B, static_cast<uint32_t>(cols), static_cast<uint32_t>(bk), swizzle, &m.a));
  TCGEMM_TRY(gemm_operand(a, Operand::A, static_cast<uint32_t>(bk), static_cast<uint32_t>(bn), swizzle, &m.b));
  *out = m;
  return Status::Ok();
}

std::string curesult_name(int code) {
  switch (code) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 801: return "CUDA_ERROR_NOT_SUPPORTED";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return "CUresult " + std::to_string(code);
  }
}

namespace {

using EncodeTiledFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled (CUDA 12.0 ABI), looked up once.
Status encode_fn(EncodeTiledFn* out) {
  static std::once_flag once;
  static EncodeTiledFn fn = nullptr;
  static Status status;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    status = cuda_status(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q),
                         "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
    if (status.ok() && (q != cudaDriverEntryPointSuccess || p == nullptr))
      status = Status::Error(StatusCode::no_device,
                             q == cudaDriverEntryPointVersionNotSufficent
                                 ? "cuTensorMapEncodeTiled: the CUDA driver is too old (needs CUDA 12.0+)"
                                 : "cuTensorMapEncodeTiled: not found in the CUDA driver");
    fn = reinterpret_cast<EncodeTiledFn>(p);
  });
  *out = fn;
  return status;
}

}  // namespace

Status encode(const TensorMapParams& p, CUtensorMap* out) {
  TCGEMM_TRY(check_params(p));
  EncodeTiledFn fn = nullptr;
  TCGEMM_TRY(encode_fn(&fn));
  cuuint64_t dims[kMaxRank], strides[kMaxRank - 1];
  cuuint32_t box[kMaxRank], estr[kMaxRank];
  for (int i = 0; i < p.rank; ++i) dims[i] = p.dims[i], box[i] = p.box[i], estr[i] = p.elem_strides[i];
  for (int i = 0; i + 1 < p.rank; ++i) strides[i] = p.strides[i];
  // FP8 has no tensor-map type of its own: TMA moves bytes (UINT8); only
  // the OOB fill's zero matters, and 0x00 is +0 in both FP8 formats.
  const CUtensorMapDataType type = p.dtype == DType::bf16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : p.dtype == DType::f32  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : is_fp8(p.dtype)        ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const CUtensorMapSwizzle sw = p.swizzle == Swizzle::b128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                : p.swizzle == Swizzle::b64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                : p.swizzle == Swizzle::b32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                            : CU_TENSOR_MAP_SWIZZLE_NONE;
  const CUtensorMapL2promotion l2 = p.l2_promotion_bytes == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                    : p.l2_promotion_bytes == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                    : p.l2_promotion_bytes == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                                                  : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  // FLOAT_OOB_FILL_NONE fills with zeros (the GEMM edges rely on it).
  const CUtensorMapFloatOOBfill oob =
      p.oob == OobFill::nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  const CUresult r = fn(out, type, static_cast<cuuint32_t>(p.rank), const_cast<void*>(p.base), dims, strides, box,
                        estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, l2, oob);
  if (r != CUDA_SUCCESS) {
    // String operations, not an ostringstream: see core/registry.cpp (built_ccs).
    std::string m = "cuTensorMapEncodeTiled failed: " + curesult_name(static_cast<int>(r)) + " (rank " +
                    std::to_string(p.rank) + ", dims";
    for (int i = 0; i < p.rank; ++i) m += " " + std::to_string(p.dims[i]);
    m += ", box";
    for (int i = 0; i < p.rank; ++i) m += " " + std::to_string(p.box[i]);
    m += std::string(", swizzle ") + to_string(p.swizzle) + ")";
    return Status::Error(StatusCode::cuda_error, m);
  }
  return Status::Ok();
}

}  // namespace tcgemm::tma
