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

// TFLOPS of mma.sync.m16n8k16 (fp16 inputs) with operands already in
// registers, on the current device: the Ada family's ceiling.
Status mma_sync_peak(Accum accum, double* tflops);

}  // namespace tcgemm
