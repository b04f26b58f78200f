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

// mma.sync.m16n8k16 (fp16 inputs) with operands already in registers, on the
// current device: the Ada family's ceiling; with `ldmatrix_fed`, operands read
// from shared memory as the GEMMs' inner loop reads them (f32 accumulation
// only; see sm89/mma_ceiling.cu). time_mma_ceiling times `launches` back-to-
// back launches (ms each; FLOPs per launch); run long, it shows the ceiling at
// the board's power limit. mma_sync_peak: TFLOPS of the best of 5.
Status time_mma_ceiling(Accum accum, int launches, std::vector<float>* ms, double* flops, bool ldmatrix_fed = false);
Status mma_sync_peak(Accum accum, double* tflops, bool ldmatrix_fed = false);

}  // namespace tcgemm
