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
// Not run yet: compiled and SASS-checked (tests/python/test_sass.py).
#include "sm90/swap.cuh"

namespace tcgemm::sm90 {

// kPair: the kernel's pair, A the weight (the caller's B), B x.
template <Fp8 kPair>
Status launch_fp8_swap(const GemmArgs& a) {
  return swap_dispatch<Schedule::cluster_split, 0, kPair>(a, [&](auto cfg) -> Status {
    using Cfg = decltype(cfg);
    switch (a.c_type()) {
      case DType::bf16: return launch_ws<Cfg, DType::bf16, Layout::TN>(a);
      case DType::f16: return launch_ws<Cfg, DType::f16, Layout::TN>(a);
      default:
        return Status::Error(StatusCode::not_supported,
                             "the FP8 swap writes bfloat16 or float16 (its transposed store packs 16-bit pairs)");
    }
  });
}

Status launch_ws_fp8_swap(const GemmArgs& a) {
  if (a.accum != Accum::f32)
    return Status::Error(StatusCode::not_supported, "the sm90 kernels accumulate in f32 only");
  if (a.layout != Layout::TN)
    return Status::Error(StatusCode::not_supported, "FP8 wgmma reads B K-major only: layout TN (B stored N x K)");
  if (a.scales.mode == ScaleMode::block)
    return Status::Error(StatusCode::not_supported, "the FP8 swap takes tensor-wise or row-wise scales");
  if (a.b_type() == DType::e5m2) return launch_fp8_swap<Fp8::e5m2_e4m3>(a);
  if (a.dtype == DType::e5m2) return launch_fp8_swap<Fp8::e4m3_e5m2>(a);
  return launch_fp8_swap<Fp8::e4m3_e4m3>(a);
}

}  // namespace tcgemm::sm90
