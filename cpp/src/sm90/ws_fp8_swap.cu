// Registry entry sm90.ws_fp8.swap -- FP8 decode as ws_splitk.swap.dsmem
// computes 16-bit decode (swap.cuh): D^T = W X^T, the weight's rows in
// wgmma's 64-row M (tiles of 64 or 128 weight rows), x's few rows its N
// (m64n16/32/64/128k32), a tile's K slices summed in a cluster's shared
// memory and stored transposed. Both operands stay K-major (the weight N x K,
// x M x K), which is all FP8 wgmma reads. Each slice scales its own sum
// before the exchange, with the scales swapped as the operands are
// (swap_ab): x's row scales are D^T's column scales. bf16 / fp16 output
// (the transposed store packs 16-bit pairs); tensor and row-wise scales (a
// block scale's factor would vary along x's rows, the swapped columns).
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

Status launch_ws_fp8_swap(const GemmArgs& a) { return launch_fp8_swap<Promotion::none>(a); }

}  // namespace tcgemm::sm90
