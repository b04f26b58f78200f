// gemm(): argument checks, kernel resolution, launch.
#include <climits>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "core/launch_check.h"
#include "tcgemm/device.h"
#include "tcgemm/gemm.h"

namespace tcgemm {

namespace {

// rows16: the 16-byte rule of cp.async/TMA kernels (starts 16-byte aligned,
// rows and matrices 16-byte multiples apart); else rows anywhere, each
// element at its own alignment (kAnyRows kernels).
Status check_args_rows(const GemmArgs& a, bool rows16) {
  auto bad = [](const std::string& m) { return Status::Error(StatusCode::invalid_argument, m); };
  // Operand types: fp16/bf16 (both the same) or FP8, where one operand may be
  // e5m2 if the other is e4m3 (torch._scaled_mm's rule: e5m2's 2-bit mantissa
  // on both sides loses too much; PTX allows it, torch and cuBLASLt refuse it).
  auto operand = [](DType d) { return d == DType::f16 || d == DType::bf16 || is_fp8(d); };
  if (!operand(a.dtype)) return bad("unknown operand dtype (A: float16, bfloat16, float8_e4m3fn or float8_e5m2)");
  if (a.dtype_b != kSameAsA && !operand(a.dtype_b)) return bad("unknown dtype of B");
  const DType tb = a.b_type(), tc = a.c_type();
  if (tb != a.dtype && !(is_fp8(a.dtype) && is_fp8(tb)))
    return bad(std::string("A and B must have the same dtype unless both are FP8 (got ") + to_string(a.dtype) +
               " and " + to_string(tb) + ")");
  if (a.dtype == DType::e5m2 && tb == DType::e5m2)
    return bad("float8_e5m2 x float8_e5m2 is not supported (one operand must be float8_e4m3fn, as torch._scaled_mm)");
  if (a.dtype_c != kSameAsA && !(tc == DType::f16 || tc == DType::bf16 || tc == DType::f32))
    return bad("unknown output dtype (float16, bfloat16 or float32)");
  if (is_fp8(a.dtype) && is_fp8(tc))
    return bad("FP8 operands need an output dtype (dtype_c): float16, bfloat16 or float32");
  if (static_cast<int>(a.layout) < 0 || static_cast<int>(a.layout) > 1) return bad("unknown layout");
  if (static_cast<int>(a.accum) < 0 || static_cast<int>(a.accum) > 2) return bad("unknown accumulator");
  if (a.accum == Accum::fast && !is_fp8(a.dtype))
    return bad("accumulate='fast' (use_fast_accum) is for FP8 operands; float16 and bfloat16 sum in f32 or f16");
  if (a.M < 1 || a.N < 1 || a.K < 1)
    return bad("M, N and K must be >= 1 (got " + std::to_string(a.M) + ", " + std::to_string(a.N) + ", " +
               std::to_string(a.K) + ")");
  if (a.M > INT_MAX || a.N > INT_MAX || a.K > INT_MAX) return bad("M, N and K must each be < 2^31");
  if (!a.A || !a.B || !a.C) return bad("A, B and C must be non-null device pointers");
  // What a caller that meets the 16-byte rule nowhere can do instead.
  const char* any_rows = rows16 ? " (or name a kernel that reads rows anywhere: feature any_rows)" : "";
  auto misaligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; };
  // Without the 16-byte rule: each element at its own alignment.
  auto unaligned = [](const void* p, DType t) { return reinterpret_cast<uintptr_t>(p) % element_bytes(t) != 0; };
  if (rows16 && (misaligned(a.A) || misaligned(a.B) || misaligned(a.C)))
    return bad(std::string("A, B and C must be 16-byte aligned (cp.async/TMA move 16-byte chunks)") + any_rows);
  if (unaligned(a.A, a.dtype) || unaligned(a.B, tb) || unaligned(a.C, tc))
    return bad("A, B and C must be aligned to their element size");
  const int64_t b_cols = a.layout == Layout::NN ? a.N : a.K;  // elements per stored row of B
  // 16-byte rows: the element count that is depends on the element's size.
  struct Ld { const char* name; int64_t ld, min; int per16; } lds[] = {{"lda", a.lda, a.K, 16 / element_bytes(a.dtype)},
                                                                      {"ldb", a.ldb, b_cols, 16 / element_bytes(tb)},
                                                                      {"ldc", a.ldc, a.N, 16 / element_bytes(tc)}};
  for (const auto& l : lds) {
    if (l.ld < l.min)
      return bad(std::string(l.name) + " = " + std::to_string(l.ld) + " is smaller than the row length " + std::to_string(l.min));
    if (rows16 && l.ld % l.per16 != 0)
      return bad(std::string(l.name) + " = " + std::to_string(l.ld) + " must be a multiple of " + std::to_string(l.per16) +
                 " elements (16-byte rows; DeviceBuffer pads for you)" + any_rows);
  }
  // Batches.
  if (a.batch < 1 || a.batch > INT_MAX) return bad("batch must be in 1 .. 2^31-1 (got " + std::to_string(a.batch) + ")");
  struct Stride { const char* name; int64_t v; int per16; } strides[] = {
      {"batch_stride_a", a.batch_stride_a, 16 / element_bytes(a.dtype)},
      {"batch_stride_b", a.batch_stride_b, 16 / element_bytes(tb)},
      {"batch_stride_c", a.batch_stride_c, 16 / element_bytes(tc)},
      {"batch_stride_source", a.epilogue.batch_stride_source, 16 / element_bytes(tc)}};
  for (const auto& st : strides)
    if (st.v < 0 || (rows16 && st.v % st.per16 != 0))
      return bad(std::string(st.name) + " = " + std::to_string(st.v) +
                 (rows16 ? " must be a non-negative multiple of " + std::to_string(st.per16) +
                               " elements (each matrix starts 16-byte aligned)" + any_rows
                         : std::string(" must be non-negative")));
  if (a.batch > 1 && a.batch_stride_c < a.M * a.ldc)
    return bad("batch_stride_c = " + std::to_string(a.batch_stride_c) + " < M * ldc = " + std::to_string(a.M * a.ldc) +
               ": the output matrices of a batch would overlap");
  // Epilogue.
  const Epilogue& e = a.epilogue;
  if (static_cast<int>(e.act) < 0 || static_cast<int>(e.act) > 3) return bad("unknown activation");
  if (static_cast<int>(e.bias_type) < 0 || static_cast<int>(e.bias_type) > 2) return bad("unknown bias type");
  if (e.beta != 0.0f) {
    if (!e.source) return bad("beta != 0 needs a source matrix (matmul's c)");
    if (rows16 ? misaligned(e.source) : unaligned(e.source, tc))
      return bad(rows16 ? "the source matrix must be 16-byte aligned" : "the source matrix must be aligned to its element size");
    const int per16 = 16 / element_bytes(tc);
    if (e.ld_source < a.N || (rows16 && e.ld_source % per16 != 0))
      return bad("ld_source = " + std::to_string(e.ld_source) + " must be >= N" +
                 (rows16 ? " and a multiple of " + std::to_string(per16) + " elements" : std::string()));
  }
  if (e.bias && reinterpret_cast<uintptr_t>(e.bias) % 4 != 0) return bad("bias must be 4-byte aligned");
  if (a.split_k < 0 || a.split_k > 256) return bad("split_k must be in 0 .. 256 (0: the kernel chooses)");
  if (a.workspace && misaligned(a.workspace)) return bad("the workspace must be 16-byte aligned");
  // Scales.
  const Scales& sc = a.scales;
  if (static_cast<int>(sc.mode) < 0 || static_cast<int>(sc.mode) > 3) return bad("unknown scale mode");
  if (is_fp8(a.dtype) && sc.mode == ScaleMode::none)
    return bad("FP8 operands need scales: ScaleMode tensor, rowwise or block (tensor scales of 1 for none)");
  if (sc.mode != ScaleMode::none) {
    if (!is_fp8(a.dtype)) return bad(std::string("scales are for FP8 operands (A is ") + to_string(a.dtype) + ")");
    if (!sc.a || !sc.b) return bad("scale mode " + std::string(to_string(sc.mode)) + " needs both scale pointers");
    if (reinterpret_cast<uintptr_t>(sc.a) % 4 != 0 || reinterpret_cast<uintptr_t>(sc.b) % 4 != 0)
      return bad("the scales must be 4-byte aligned fp32");
    if (sc.a_stride < 0 || sc.a_stride_k < 0 || sc.b_stride < 0 || sc.b_stride_k < 0)
      return bad("scale strides must be non-negative");
    if (a.batch > 1) return bad("scaled GEMMs take one matrix (batch = 1)");
  }
  return Status::Ok();
}

}  // namespace

Status check_args(const GemmArgs& a) { return check_args_rows(a, true); }

Status check_args(const GemmArgs& a, const KernelInfo* k) {
  return check_args_rows(a, !(k && (k->features & kAnyRows)));
}

namespace {

// Resolves the kernel for `args` on the current device (uncached).
Status resolve(const GemmArgs& args, const std::string& kernel, const KernelInfo** out) {
  Status s;
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
  *out = k;
  return Status::Ok();
}

using PlanKey =
    std::tuple<int, int64_t, int64_t, int64_t, int64_t, int, int, int, bool, int, std::string, int, int, int, bool>;

PlanKey key_of(int device, const GemmArgs& a, const std::string& kernel) {
  return PlanKey{device, a.M, a.N, a.K, a.batch, static_cast<int>(a.dtype), static_cast<int>(a.layout),
                 static_cast<int>(a.accum), a.epilogue.plain(), a.split_k, kernel.empty() ? "auto" : kernel,
                 static_cast<int>(a.b_type()), static_cast<int>(a.c_type()), static_cast<int>(a.scales.mode),
                 a.b_ragged};
}

}  // namespace

Status workspace_size(const KernelInfo& k, const GemmArgs& args, size_t* bytes) {
  *bytes = 0;
  return k.workspace ? k.workspace(args, bytes) : Status::Ok();
}

Status plan_gemm(const GemmArgs& shape, const std::string& kernel, const Plan** out) {
  // The shape must be valid on its own; the pointers are not looked at.
  if (shape.M < 1 || shape.N < 1 || shape.K < 1 || shape.batch < 1)
    return Status::Error(StatusCode::invalid_argument, "plan: M, N, K and batch must be >= 1");
  if (!kernel.empty() && kernel != "auto" && !find_kernel(kernel))  // a bad name is a bad name, GPU or not
    return Status::Error(StatusCode::invalid_argument, "unknown kernel '" + kernel + "' (see tcgemm.kernels())");
  int dev = -1;
  if (device_count() == 0)
    return Status::Error(StatusCode::no_device, "no CUDA device was found (no GPU, or no NVIDIA driver)");
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  // Plans live in a deque (stable addresses) for the life of the process, so
  // a handle given out stays valid: one plan (~100 bytes) per distinct shape
  // a process uses.
  static std::mutex mu;
  static std::map<PlanKey, const Plan*> index;
  static std::deque<Plan> plans;
  const PlanKey key = key_of(dev, shape, kernel);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = index.find(key);
    if (it != index.end()) return *out = it->second, Status::Ok();
  }
  Plan p;
  TCGEMM_TRY(resolve(shape, kernel, &p.kernel));
  TCGEMM_TRY(workspace_size(*p.kernel, shape, &p.workspace_bytes));
  p.device = dev, p.M = shape.M, p.N = shape.N, p.K = shape.K, p.batch = shape.batch;
  p.dtype = shape.dtype, p.dtype_b = shape.b_type(), p.dtype_c = shape.c_type();
  p.layout = shape.layout, p.accum = shape.accum, p.scale_mode = shape.scales.mode;
  p.plain = shape.epilogue.plain(), p.split_k = shape.split_k;
  std::lock_guard<std::mutex> lock(mu);
  auto it = index.find(key);
  if (it != index.end()) return *out = it->second, Status::Ok();
  plans.push_back(p);
  index.emplace(key, &plans.back());
  *out = &plans.back();
  return Status::Ok();
}

Status run_plan(const Plan& plan, const GemmArgs& args) {
  TCGEMM_TRY(check_args(args, plan.kernel));
  if (args.M != plan.M || args.N != plan.N || args.K != plan.K || args.batch != plan.batch ||
      args.dtype != plan.dtype || args.b_type() != plan.dtype_b || args.c_type() != plan.dtype_c ||
      args.scales.mode != plan.scale_mode || args.layout != plan.layout || args.accum != plan.accum ||
      args.epilogue.plain() != plan.plain || args.split_k != plan.split_k)
    return Status::Error(StatusCode::invalid_argument, "run_plan: the arguments do not match the plan's shape");
  int dev = -1;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  if (dev != plan.device)
    return Status::Error(StatusCode::invalid_argument, "run_plan: the plan was made for device " +
                                                           std::to_string(plan.device) + ", the current device is " +
                                                           std::to_string(dev));
  if (args.workspace && args.workspace_bytes < plan.workspace_bytes)
    return Status::Error(StatusCode::invalid_argument,
                         "workspace of " + std::to_string(args.workspace_bytes) + " bytes, the kernel needs " +
                             std::to_string(plan.workspace_bytes));
  return plan.kernel->launch(args);
}

Status gemm(const GemmArgs& args, const std::string& kernel, const KernelInfo** chosen) {
  // A named kernel's own rows rule; "auto" chooses among kernels that need
  // the 16-byte one -- or, where that rule refuses the operands and the
  // rows-anywhere one takes them, a kernel that reads rows anywhere if a
  // family names one for the shape (asked through GemmArgs::b_ragged).
  const bool is_auto = kernel.empty() || kernel == "auto";
  const KernelInfo* named = is_auto ? nullptr : find_kernel(kernel);
  Status s = check_args(args, named);
  if (!s.ok() && is_auto && check_args_rows(args, false).ok()) {
    GemmArgs r = args;
    r.b_ragged = true;
    const Plan* p = nullptr;
    TCGEMM_TRY(plan_gemm(r, kernel, &p));
    if (!(p->kernel->features & kAnyRows)) return s;  // the 16-byte rule's refusal
    if (chosen) *chosen = p->kernel;
    return run_plan(*p, r);
  }
  if (!s.ok()) return s;
  const Plan* p = nullptr;
  TCGEMM_TRY(plan_gemm(args, kernel, &p));
  if (chosen) *chosen = p->kernel;
  return run_plan(*p, args);
}

}  // namespace tcgemm
