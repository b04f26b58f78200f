// The entry point: C = A * B with a named kernel or "auto".
#pragma once
#include <string>

#include "tcgemm/registry.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

// Checks the arguments (shapes, pointers, alignment, leading dimensions),
// resolves the kernel, checks it can run here and take these arguments, and
// launches it on args.stream. Launch errors are reported; the call does not
// synchronise. `chosen`, if given, receives the kernel actually used. "auto"
// with operands off the 16-byte grid takes a kernel that reads rows anywhere
// where a family names one for the shape (GemmArgs::b_ragged), else refuses
// as the 16-byte rule does.
Status gemm(const GemmArgs& args, const std::string& kernel = "auto",
            const KernelInfo** chosen = nullptr);

// The argument checks alone (pure; used by gemm and by the host tests), with
// the rule every kernel but the kAnyRows ones needs: A, B, C and the source
// 16-byte aligned, leading dimensions and batch strides 16-byte multiples.
Status check_args(const GemmArgs& args);
// The checks for a call of kernel k: k's rows rule (kAnyRows: any leading
// dimension, 2-byte aligned starts); k == nullptr ("auto"): check_args(args).
Status check_args(const GemmArgs& args, const KernelInfo* k);

// What a call of a shape resolves to on the current device: the kernel
// ("auto" resolved, runnable, supporting the arguments) and the workspace it
// needs. Depends on the shape, dtypes, scale mode, layout, accumulator, whether the
// epilogue is plain, the batch count and split_k -- never on pointers -- so
// plan_gemm caches it (per device): a repeated shape is a lookup.
struct Plan {
  const KernelInfo* kernel = nullptr;
  size_t workspace_bytes = 0;
  int device = -1;
  // The shape it was made for (run_plan checks the call against it).
  int64_t M = 0, N = 0, K = 0, batch = 1;
  DType dtype = DType::f16, dtype_b = DType::f16, dtype_c = DType::f16;  // A's, B's, C's
  Layout layout = Layout::NN;
  Accum accum = Accum::f32;
  ScaleMode scale_mode = ScaleMode::none;
  bool plain = true;
  int split_k = 0;
};

// The plan for `shape` (its pointers are ignored) and `kernel`, from the
// per-process cache or made and cached. The returned pointer stays valid for
// the life of the process (plans are never evicted).
Status plan_gemm(const GemmArgs& shape, const std::string& kernel, const Plan** out);

// Checks `args` (as gemm does) and that they match the plan's shape and
// device, then launches the plan's kernel: no kernel lookup, no allocation
// when args.workspace is given (or none is needed).
Status run_plan(const Plan& plan, const GemmArgs& args);

// Bytes of workspace kernel `k` needs for `args` (0 for most kernels).
Status workspace_size(const KernelInfo& k, const GemmArgs& args, size_t* bytes);

}  // namespace tcgemm
