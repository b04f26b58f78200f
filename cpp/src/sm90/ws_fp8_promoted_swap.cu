// Registry entry sm90.ws_fp8.promoted.swap -- the decode swap (ws_fp8.swap:
// D^T = W X^T, the weight's rows in wgmma's M, x's few rows its N, a tile's
// K slices summed in a cluster's shared memory) with ws_fp8.promoted.dsmem's
// fp32 sums: each slice's 128-K blocks start a fresh wgmma sum that is
// waited on and added into fp32 registers (use_fast_accum=False, torch's
// default), then scaled and handed to rank 0. The configuration differs from
// ws_fp8.swap's in its promotion only; a fresh sum is as wide as x's rows
// (n16-n128: at most 64 + 64 registers a thread). Decode streams the weight,
// so the wait after each block's few wgmmas hides behind the loads in
// flight. bf16 / fp16 output, tensor and row-wise scales, as ws_fp8.swap.
// Not run yet: compiled and SASS-checked (tests/python/test_sass.py).
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

Status launch_ws_fp8_promoted_swap(const GemmArgs& a) { return launch_fp8_swap<Promotion::per_block>(a); }

}  // namespace tcgemm::sm90
