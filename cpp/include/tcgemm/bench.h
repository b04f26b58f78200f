// Timing support for the benchmark: CUDA events around single launches.
#pragma once
#include <string>
#include <vector>

#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

// Runs `warmup` untimed then `iters` timed launches of `kernel`, cycling
// through `rotation` (argument sets over different buffers, so consecutive
// launches do not find their inputs in L2), each launch bracketed by its own
// pair of CUDA events. Appends one time in milliseconds per timed launch.
Status time_gemm(const std::vector<GemmArgs>& rotation, const std::string& kernel, int warmup, int iters,
                 std::vector<float>* ms);

}  // namespace tcgemm
