// gemm(): argument checks, kernel resolution, launch.
#include <climits>
#include <cstdint>
#include <string>

#include "tcgemm/gemm.h"

namespace tcgemm {

Status check_args(const GemmArgs& a) {
  auto bad = [](const std::string& m) { return Status::Error(StatusCode::invalid_argument, m); };
  if (static_cast<int>(a.dtype) < 0 || static_cast<int>(a.dtype) > 1) return bad("unknown dtype");
  if (static_cast<int>(a.layout) < 0 || static_cast<int>(a.layout) > 1) return bad("unknown layout");
  if (static_cast<int>(a.accum) < 0 || static_cast<int>(a.accum) > 1) return bad("unknown accumulator");
  if (a.M < 1 || a.N < 1 || a.K < 1)
    return bad("M, N and K must be >= 1 (got " + std::to_string(a.M) + ", " + std::to_string(a.N) + ", " +
               std::to_string(a.K) + ")");
  if (a.M > INT_MAX || a.N > INT_MAX || a.K > INT_MAX) return bad("M, N and K must each be < 2^31");
  if (!a.A || !a.B || !a.C) return bad("A, B and C must be non-null device pointers");
  auto misaligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; };
  if (misaligned(a.A) || misaligned(a.B) || misaligned(a.C))
    return bad("A, B and C must be 16-byte aligned (cp.async/TMA move 16-byte chunks)");
  const int64_t b_cols = a.layout == Layout::NN ? a.N : a.K;  // elements per stored row of B
  struct Ld { const char* name; int64_t ld, min; } lds[] = {{"lda", a.lda, a.K}, {"ldb", a.ldb, b_cols}, {"ldc", a.ldc, a.N}};
  for (const auto& l : lds) {
    if (l.ld < l.min)
      return bad(std::string(l.name) + " = " + std::to_string(l.ld) + " is smaller than the row length " + std::to_string(l.min));
    if (l.ld % 8 != 0)
      return bad(std::string(l.name) + " = " + std::to_string(l.ld) +
                 " must be a multiple of 8 elements (16-byte rows; DeviceBuffer pads for you)");
  }
  // Batches.
  if (a.batch < 1 || a.batch > INT_MAX) return bad("batch must be in 1 .. 2^31-1 (got " + std::to_string(a.batch) + ")");
  struct Stride { const char* name; int64_t v; } strides[] = {{"batch_stride_a", a.batch_stride_a},
                                                              {"batch_stride_b", a.batch_stride_b},
                                                              {"batch_stride_c", a.batch_stride_c},
                                                              {"batch_stride_source", a.epilogue.batch_stride_source}};
  for (const auto& st : strides)
    if (st.v < 0 || st.v % 8 != 0)
      return bad(std::string(st.name) + " = " + std::to_string(st.v) +
                 " must be a non-negative multiple of 8 elements (each matrix starts 16-byte aligned)");
  if (a.batch > 1 && a.batch_stride_c < a.M * a.ldc)
    return bad("batch_stride_c = " + std::to_string(a.batch_stride_c) + " < M * ldc = " + std::to_string(a.M * a.ldc) +
               ": the output matrices of a batch would overlap");
  // Epilogue.
  const Epilogue& e = a.epilogue;
  if (static_cast<int>(e.act) < 0 || static_cast<int>(e.act) > 3) return bad("unknown activation");
  if (static_cast<int>(e.bias_type) < 0 || static_cast<int>(e.bias_type) > 2) return bad("unknown bias type");
  if (e.beta != 0.0f) {
    if (!e.source) return bad("beta != 0 needs a source matrix (matmul's c)");
    if (misaligned(e.source)) return bad("the source matrix must be 16-byte aligned");
    if (e.ld_source < a.N || e.ld_source % 8 != 0)
      return bad("ld_source = " + std::to_string(e.ld_source) + " must be >= N and a multiple of 8 elements");
  }
  if (e.bias && reinterpret_cast<uintptr_t>(e.bias) % 4 != 0) return bad("bias must be 4-byte aligned");
  if (a.split_k < 0 || a.split_k > 256) return bad("split_k must be in 0 .. 256 (0: the kernel chooses)");
  return Status::Ok();
}

Status gemm(const GemmArgs& args, const std::string& kernel, const KernelInfo** chosen) {
  Status s = check_args(args);
  if (!s.ok()) return s;
  const KernelInfo* k = nullptr;
  if (kernel.empty() || kernel == "auto") {
    k = pick_auto(args, &s);
    if (!k) return s;
  } else {
    k = find_kernel(kernel);
    if (!k) return Status::Error(StatusCode::invalid_argument, "unknown kernel '" + kernel + "' (see tcgemm.kernels())");
    if (!(s = check_runnable(*k)).ok()) return s;
    if (!(s = check_supports(*k, args)).ok()) return s;
  }
  if (chosen) *chosen = k;
  return k->launch(args);
}

}  // namespace tcgemm
