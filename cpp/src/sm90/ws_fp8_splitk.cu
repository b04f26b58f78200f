// Registry entry sm90.ws_fp8.splitk -- sm90.ws_splitk's schedule for FP8:
// 128x256 tiles (wgmma m64n256k32 per consumer) with no cluster, where the
// split policy (sched::choose_split_plan) says so the last wave's tile rows
// split along K into fp32 partials, each scaled (tensor / row-wise scales
// are linear) before splitk_reduce sums the slices in a fixed order and
// applies bias and activation; whole tiles leave through the TMA store.
// The 16-bit ladder's step past ws_mcast at 8192^3 (ws_persistent, no
// cluster, 0.99x cuBLAS; ws_splitk 1.01x: bench/results/h100_squares.md),
// taken for FP8, where ws_fp8.wide (2-CTA clusters) leaves a half-full last
// round (8192^3: 15.5 rounds of 128x256 tiles). bf16 / fp16 output, as the
// reduction and the TMA store write.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8SplitK{.tile_n = 256,
                              .stages = 4,
                              .schedule = Schedule::split_k,
                              .store = Store::tma,
                              .fp8 = Fp8::e4m3_e4m3,
                              .scaling = Scaling::epilogue};

Status launch_ws_fp8_splitk(const GemmArgs& a) { return launch_ws_scaled<kFp8SplitK>(a); }

// The partials' bytes do not depend on the operand pair or the output type.
Status workspace_ws_fp8_splitk(const GemmArgs& a, size_t* bytes) { return workspace_bytes<WsTraits<kFp8SplitK>>(a, bytes); }

}  // namespace tcgemm::sm90
