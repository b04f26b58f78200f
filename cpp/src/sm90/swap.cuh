// The decode swap's configurations and dispatch, shared by
// sm90.ws_splitk.swap (ws_splitk_swap.cu: every tile an fp32 partial, reduced
// and transposed by a second kernel) and sm90.ws_splitk.swap.dsmem
// (ws_splitk_swap_dsmem.cu: a tile's K slices in one cluster,
// Schedule::cluster_split).
//
// ws_splitk for decode (M <= 64, x @ w.T): the kernel computes D^T = W X^T,
// so the weight's rows fill wgmma's 64-row M and the few rows of x its N
// (n16 / n32 / n64: the narrowest that holds M; the cluster split also n128
// for 65-128 rows), where ws_splitk's 64 x 256
// tile spends 48 of every 64 MMA rows on zeros at M = 16 and leaves N / 256
// tiles to spread over the SMs. With 128-row tiles a stage is 16 KB of
// weight and 2-8 KB of x, so 8-10 stages keep 150-200 KB of loads in flight
// per SM: decode is a stream of the weight (64-row tiles: 8 KB of weight,
// 12-16 stages, 120-190 KB).
#pragma once
#include <type_traits>

#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// kSchedule: Schedule::split_k (the partials) or Schedule::cluster_split.
// kFp8: the kernel's FP8 pair (its A is the weight, the caller's B), with
// tensor / row-wise scales (ws_fp8_swap.cu); none for 16-bit operands.
// kPromotion: FP8 wgmma's own sums (none) or fp32 ones, each 128-K block
// promoted and waited on (per_block, ws_fp8_promoted_swap.cu).
template <int BN, int STAGES, Schedule kSchedule, int kConsumers = 2, Fp8 kFp8 = Fp8::none,
          Promotion kPromotion = Promotion::none>
using SwapAB = WsTraits<WsConfig{.tile_n = BN,
                                 .stages = STAGES,
                                 .consumers = kConsumers,
                                 .schedule = kSchedule,
                                 .operands = Operands::swapped,
                                 .fp8 = kFp8,
                                 .scaling = kFp8 == Fp8::none ? Scaling::none : Scaling::epilogue,
                                 .promotion = kPromotion}>;

// NN (x @ w with w stored K x N): the swapped A is the weight MN-major
// (the mainloop reads it as NN reads B, with wgmma's transpose-A); the
// cluster split takes it (ws_splitk_swap_dsmem_nn.cu), the partials' swap runs
// ws_splitk's kernel for NN. F(Cfg) launches the width that holds x's rows,
// or asks its workspace.
// kConsumers: 2 (128-row tiles of the weight), 1 (64-row tiles, more stages
// where the shared memory has room: about the same bytes in flight), or 0:
// choose per call (swap_consumers). Only the cluster split takes x wider
// than 64 rows (n128 tiles); the partials' transposed reduction is built for
// up to 64, and wider x runs n64 tiles side by side.
// An FP8 stage (128 k of one byte) is as many bytes as a 16-bit one, so the
// same stage counts fit.
template <Schedule kSchedule, int kConsumers, Fp8 kFp8 = Fp8::none, Promotion kP = Promotion::none, class F>
Status swap_by_width(const GemmArgs& a, F&& f) {
  constexpr int kMore = kConsumers == 1 ? 16 : 10;
  if (a.M <= 16) return f(SwapAB<16, kMore, kSchedule, kConsumers, kFp8, kP>{});
  if (a.M <= 32) return f(SwapAB<32, kMore, kSchedule, kConsumers, kFp8, kP>{});
  if constexpr (kSchedule == Schedule::cluster_split) {
    if (a.M > 64) return f(SwapAB<128, kConsumers == 1 ? 7 : 4, kSchedule, kConsumers, kFp8, kP>{});
  }
  return f(SwapAB<64, kConsumers == 1 ? 12 : 8, kSchedule, kConsumers, kFp8, kP>{});
}

// The weight's tile height for the cluster split (sched::cluster_split_tile_rows):
// 64 rows (one consumer) while those tiles fit in one wave unsplit, else 128.
// Decode streams the weight: 16 x 4096 x 4096 is 64 tiles in clusters of 2
// on 128 SMs, where 128-row tiles made 32 clusters of 3 on 96 (H200, bf16,
// paired with cuBLAS, bench/results/logs/h200_runs_2026-12-04*.txt:
// 0.88x -> 0.97-0.98x; 64 x 4096 x 4096 0.70x -> 0.82-0.84x, 16 x 4096 x
// 14336 0.86x -> 0.96x). Past one wave the 64-row tiles lose (16 x 10240 x
// 8192, 160 of them: 0.79-0.80x against 0.97-0.98x).
inline Status swap_consumers(const GemmArgs& a, int* consumers) {
  int sms = 0;
  TCGEMM_TRY(sm_count(&sms));  // core/launch_check.h
  *consumers = sched::cluster_split_tile_rows(a.N, a.batch, sms) / 64;
  return Status::Ok();
}

template <Schedule kSchedule, int kConsumers, Fp8 kFp8 = Fp8::none, Promotion kP = Promotion::none, class F>
Status swap_dispatch(const GemmArgs& a, F&& f) {
  if constexpr (kConsumers == 0) {
    int consumers = 2;
    TCGEMM_TRY(swap_consumers(a, &consumers));
    if (consumers == 1) return swap_by_width<kSchedule, 1, kFp8, kP>(a, f);
    return swap_by_width<kSchedule, 2, kFp8, kP>(a, f);
  } else {
    return swap_by_width<kSchedule, kConsumers, kFp8, kP>(a, f);
  }
}

// The swapped TN problem (x @ w.T).
template <Schedule kSchedule, int kConsumers = 2>
Status launch_swap(const GemmArgs& a) {
  return swap_dispatch<kSchedule, kConsumers>(
      a, [&](auto cfg) { return launch_ws_layout<decltype(cfg), Layout::TN>(a); });
}

// The FP8 swaps (ws_fp8_swap.cu, ws_fp8_promoted_swap.cu): the cluster split
// with tensor / row-wise scales, the kernel's pair chosen from the
// arguments' -- its A is the weight (the caller's B), its B x -- and its
// sums by kP (FP8 wgmma's own, or promoted every 128-K block).
template <Promotion kP>
Status launch_fp8_swap(const GemmArgs& a) {
  TCGEMM_TRY(check_scaled_launch(a, false, kP != Promotion::none));
  auto launch = [&](auto pair) {
    return swap_dispatch<Schedule::cluster_split, 0, decltype(pair)::value, kP>(
        a, [&](auto cfg) { return launch_ws_scaled_out<decltype(cfg)>(a); });
  };
  if (a.b_type() == DType::e5m2) return launch(std::integral_constant<Fp8, Fp8::e5m2_e4m3>{});
  if (a.dtype == DType::e5m2) return launch(std::integral_constant<Fp8, Fp8::e4m3_e5m2>{});
  return launch(std::integral_constant<Fp8, Fp8::e4m3_e4m3>{});
}

// The partials' workspace (the cluster split needs none).
template <int kConsumers = 2>
Status workspace_swap(const GemmArgs& a, size_t* bytes) {
  return swap_dispatch<Schedule::split_k, kConsumers>(
      a, [&](auto cfg) { return workspace_bytes<decltype(cfg)>(a, bytes); });
}

}  // namespace tcgemm::sm90
