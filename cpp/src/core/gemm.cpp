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
