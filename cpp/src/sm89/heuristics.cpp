// The Ada family's `auto`: the order in which it tries its kernels.
#include "core/families.h"

namespace tcgemm {

std::vector<const char*> sm89_preference(int cc, const GemmArgs& args, int sms) {
  if (is_fp8(args.dtype)) {
    // FP8 (tested on sm_90a, not timed on sm_89: no measurement orders these). Block
    // scales only on the 128x128 entry; otherwise the 16-bit family's rule
    // by analogy: the 128x256 block once its tiles take four waves.
    if (args.scales.mode == ScaleMode::block) return {"sm89.fp8_mma.s3"};
    const bool many_waves = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch >= 4 * int64_t{sms};
    if (many_waves) return {"sm89.fp8_mma_8w.s4", "sm89.fp8_mma.s3"};
    return {"sm89.fp8_mma.s3", "sm89.fp8_mma_8w.s4"};
  }
  if (cc == 90) {
    // On an H100/H200 the Ada kernels (built for sm_90a too) follow the
    // Hopper family's and run what it does not (f16 accumulation). The
    // spread-copy steps lead on both layouts (fp16, 4096^3 / 8192^3: +5-23%
    // over mma_iter{,_db}, +7-18% over mma_iter_8w{,_db}); the 8-warp 128x256
    // block once its tiles take four waves (8192^3: +8% TN, +8% NN over the
    // 4-warp blocks), the 4-warp 128x128 blocks below that
    // (bench/results/h200_ada_tune.md, in git history).
    const bool many_waves = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch >= 4 * int64_t{sms};
    const char* four_warps = "sm89.mma_spread.s3";
    const char* eight_warps = "sm89.mma_spread_8w.s3";
    std::vector<const char*> ada = {many_waves ? eight_warps : four_warps, many_waves ? four_warps : eight_warps,
                                    "sm89.mma_2blk.s3", "sm89.mma_wt64_k64.s3"};
    // x @ w.T with w's rows off the 16-byte grid and at most 32 rows of x:
    // sm89.mma_skinny.s4 reads w in place where every other kernel has it
    // copied first (pick_auto takes it ahead of the Hopper kernels when
    // args.b_ragged): 1.5-2.3x faster than the copy at 1-32 rows; at 33 and
    // 64 rows the copy and the Hopper kernel are faster, so the rule stops at
    // 32 (bench/results/h100_skinny.md).
    if (args.b_ragged && args.layout == Layout::TN && args.accum == Accum::f32 && args.M <= 32)
      ada.insert(ada.begin(), "sm89.mma_skinny.s4");
    return ada;
  }
  // sm_89: no Ada card has measured the family here (bench/results/ holds no
  // sm_89 file); the order is seed 000's RTX 4090 measurement, where the
  // A&B-swizzled x4 variant is the fastest from 4096^3 up.
  if (cc == 89) return {"sm89.mma_swz_x4.s3", "sm89.mma_bk32.s3", "sm89.mma_2blk.s3"};
  return {};
}

}  // namespace tcgemm
