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
// synchronise. `chosen`, if given, receives the kernel actually used.
Status gemm(const GemmArgs& args, const std::string& kernel = "auto",
            const KernelInfo** chosen = nullptr);

// The argument checks alone (pure; used by gemm and by the host tests).
Status check_args(const GemmArgs& args);

}  // namespace tcgemm
