// The Hopper family's `auto`: the order in which it tries its kernels on an
// H100/H200, and the time model behind that order. Figures are ratios to
// cuBLAS (torch) in GPU time from bench/results/ (vs_cublas: bf16 and fp16,
// or the dtype named); docs/benchmarking.md, "How auto decides", is the long
// form.
#include <algorithm>
#include <utility>

#include "core/families.h"
#include "sched/persistent.h"
#include "sm90/heuristics.h"
#include "sm90/lines.h"

namespace tcgemm {

// The time model for shapes whose 128x256 tiles fill the GPU, in K tiles of
// a 128x256 tile on one SM (sched::schedule_cost): each configuration's
// persistent schedule, scaled by its speed per element against
// ws_persistent's and by what rows that start 16 bytes into a 32-byte sector
// cost it. Such a row (a pitch of 8 mod 16 elements) makes every other TMA
// box row touch an extra sector and split into more L2 requests: 3072x5120
// bf16 TN at K = 7000 against K = 6976, ws_persistent 0.64x / 1.00x, ws_mcast
// 0.94x / 0.98x (multicast halves B's requests), ws_pingpong 0.51x / 0.93x
// (launch-timed; bench/results/logs/h200_runs_2026-12-04*.txt, in git
// history). The pitch is taken to be the shape's (K for A and a K-major B, N
// for a row-major B, rounded up to 8 as tcgemm's buffers are): plans are
// cached per shape.
Sm90Costs sm90_costs(const GemmArgs& a, int sms) {
  Sm90Costs c;
  const auto odd = [](int64_t cols) { return round_up(cols, 8) % 16 != 0; };
  c.misaligned = odd(a.K) || (a.layout == Layout::TN ? false : odd(a.N));
  const bool both = a.layout == Layout::TN && odd(a.K);  // A and B rows: the measured case
  const double pen = c.misaligned ? (both ? 1.0 : 0.5) : 0.0;  // share of the measured loss
  const int k_tiles = static_cast<int>(ceil_div(a.K, 64));
  const int batch = static_cast<int>(a.batch);
  const int tm = static_cast<int>(ceil_div(a.M, 128)), tn = static_cast<int>(ceil_div(a.N, 256));
  // A kernel's time scale on misaligned rows: its speed there against its speed aligned.
  const auto misaligned_scale = [&](double aligned, double misaligned) {
    return 1.0 + pen * (aligned / misaligned - 1.0);
  };
  // The schedule's cost under the split policy (sched::choose_split_plan, as
  // the split-K kernels apply it): a split tail, or every tile split, or 0
  // where it does not split.
  const auto split_cost = [&](sched::PersistentSchedule s, int workers) -> int64_t {
    const sched::SplitPlan p = sched::choose_split_plan(0, s, k_tiles, workers);
    if (a.split_k == 1 || p.splits < 2) return 0;
    s.splits = p.splits, s.dp_rows = p.dp_rows;
    return sched::schedule_cost(s, k_tiles, workers);
  };
  // A split-K kernel's cost: split where the policy splits, whole otherwise.
  const auto policy_cost = [&](const sched::PersistentSchedule& s, int workers) -> double {
    const int64_t split = split_cost(s, workers);
    return static_cast<double>(split ? split : sched::schedule_cost(s, k_tiles, workers));
  };
  // Each configuration's speed per element against ws_persistent's, on
  // aligned rows and on misaligned ones (where only B's rows are, NN with
  // N = 8 mod 16, half the difference is charged): each configuration's
  // measured time over its modelled time, relative to ws_persistent's on the
  // same row, the median per class of row, fitted in GPU time on random
  // seeds 11-14 and the llm preset with every configuration measured per row
  // (bench/results/logs/h200_runs_2026-12-04*.txt). The committed
  // files of those rows bear it out: over the rows of h200_random_aligned.md
  // and h200_llm.md whose 128x256 tiles fill the GPU (56 aligned, 52
  // misaligned) those medians under this model are 0.95-1.00 aligned (ping-
  // pong 0.95, the rest 0.99-1.00) and 0.97-1.01 misaligned; over the seeds
  // the fit never saw (h200_random_unseen.md, seeds 19-22, 27 / 55 rows)
  // 0.99-1.00 and 0.97-1.03.
  //   ping-pong: half a wide tile's work per tile, at 0.85 of the speed.
  //   multicast: a cluster launch costs about kClusterCost K tiles more (its
  //     fill and its two cluster barriers): behind on small shapes, ahead on
  //     large ones. The cost, scanned over 0-5 K tiles on the fit's rows: the
  //     picks' measured geomean 0.876-0.878, best at 5 (the same log).
  //   128x192 tiles: 3/4 of a wide tile's work at 0.94 / 0.96 of their
  //     128x256 counterparts' speed (a consumer's m64n192k16 reads 1/15 more
  //     shared memory per MMA than m64n256k16; the epilogue's share grows).
  //   2x2 clusters: per SM as fast as a lone CTA, but only 30 fit on the
  //     H200 at once (120 of its 132 SMs: cudaOccupancyMaxActiveClusters in
  //     the split-tail tests' plans on the device says 30-31; its GPCs' SM
  //     counts are not multiples of 4), so they win only where 30-wide waves
  //     fit better: 3328x8024x3096 bf16 NN (B's rows misaligned) ws_mcast.2x2
  //     1.02x, ws_mcast 0.93x (h200_random_aligned.md); 8192^3 0.84-0.89x
  //     against ws_mcast's 0.91-0.93x (h200.md).
  struct Speed {
    double aligned, misaligned;
  };
  constexpr Speed kWide{1.0, 0.64}, kMcast{1.023, 0.896}, kPingPong{0.85, 0.475};
  constexpr Speed kSplitK192{0.944, 0.583}, kMcast192{0.987, 0.817}, kQuad{1.05, 0.943};
  constexpr double kClusterCost = 5;
  // ws_splitk's split tail (and full split) against ws_mcast's: where every
  // SM streams its own A and B the partial sums and their reduction cost more
  // than kPartialCost/kReduceCost say. Set launch-timed on four aligned shapes
  // with a short last wave (ws_mcast 2-4% ahead where the counts put it 2-7%
  // behind; bench/results/logs/h200_runs_2026-12-04*.txt, in git
  // history). In GPU time h200_split_tail.md has ws_splitk level with or 1-4
  // points ahead of ws_mcast on six of its seven aligned shapes (2384x1792x4096
  // 0.81x / 0.78x, 2360x3440x3424 0.85x / 0.81x), ws_mcast ahead on
  // 4056x3120x6640 (0.94x / 0.93x): the factor is due a re-fit in GPU time.
  constexpr double kSplitTailSpeed = 0.92;
  const auto time = [&](double cost, Speed s) { return cost / s.aligned * misaligned_scale(s.aligned, s.misaligned); };
  const auto splitk_cost = [&](const sched::PersistentSchedule& s, int workers) -> double {
    const int64_t split = split_cost(s, workers);
    return split ? split / kSplitTailSpeed : static_cast<double>(sched::schedule_cost(s, k_tiles, workers));
  };

  const int tn192 = static_cast<int>(ceil_div(a.N, 192)), tn128 = static_cast<int>(ceil_div(a.N, 128));
  const sched::PersistentSchedule wide{tm, tn, 8, 1, batch, 1};          // 128x256
  const sched::PersistentSchedule pair{tm, tn, 8, 2, batch, 1};          // 128x256, 2x1 clusters
  const sched::PersistentSchedule quad{tm, tn, 8, 2, batch, 1, 0, 2};    // 128x256, 2x2 clusters
  const sched::PersistentSchedule square{tm, tn128, 8, 1, batch, 1};     // 128x128 (ping-pong)
  const sched::PersistentSchedule wide192{tm, tn192, 8, 1, batch, 1};    // 128x192
  const sched::PersistentSchedule pair192{tm, tn192, 8, 2, batch, 1};    // 128x192, 2x1 clusters
  c.persistent = time(static_cast<double>(sched::schedule_cost(wide, k_tiles, sms)), kWide);
  c.splitk = time(splitk_cost(wide, sms), kWide);
  c.mcast = time(policy_cost(pair, sms / 2), kMcast) + kClusterCost;  // its split policy over cluster rows
  c.mcast2x2 = time(policy_cost(quad, sms * 30 / 132), kQuad) + kClusterCost;
  c.pingpong = time(sched::schedule_cost(square, k_tiles, sms) * 0.5, kPingPong);
  c.splitk192 = time(splitk_cost(wide192, sms) * 0.75, kSplitK192);
  c.mcast192 = time(policy_cost(pair192, sms / 2) * 0.75, kMcast192) + kClusterCost;
  return c;
}

// FP8 (the wgmma kernels before Ada's, which on sm_90a run FP8 as fp16
// mma.sync, two HMMA per FP8 MMA), by the figures of every entry on the
// tuning shapes (h100_fp8_entries.md, TFLOPS, tensor scales):
// - Fewer 128x128 tiles than half the SMs and deep K: a tile's K slices in
//   one cluster (ws_fp8.dsmem, ws_fp8.block.dsmem) put the idle SMs to work:
//   16x7168x16384 69 against ws_fp8's 50, 128x4096x14336 402 against 353,
//   block 128x4096x7168 273 against 204. Block scales gain from K = 4096
//   (32 stages: 128x4096x4096 188 against 172), tensor / row-wise ones,
//   whose unsplit kernels are faster, from K = 8192 (there 16x4096x4096 is
//   23 against ping-pong's 29).
// - Rows whose pitch is a multiple of 32 bytes (K % 32 == 0: no row starts
//   inside a sector) and either a multiple of 128 (whole lines) with K up
//   to 8192, or K up to 2816 (22 stages of 128): ping-pong, whose epilogue
//   runs under the other consumer's wgmmas -- the shorter K, the larger the
//   epilogue's share: 4096x4096x4096 1276 against ws_fp8.wide's 1154, 8192^3
//   1395 / 1341, 6832x4384x416 469 / 277, 2080x2544x1184 542 / 361; on rows
//   of part lines (K % 128 != 0) up to K = 2720 1.12-1.42x the wide tiles
//   where their rounds are unequal (7000x2000x2336 820 / 681, 1800x2800x2720
//   790 / 557; at equal rounds the rows split both ways), which win from
//   K = 2848 (3300x5008x2976 988 / 887, 5000x4096x3104 1015 / 921;
//   bench/results/h100_fp8_part_lines.md) where their rounds of clusters
//   cost no more than the square tiles' rounds: on 13 such rows with either
//   sums 0.98-1.23x ping-pong (fast) and 1.01-1.32x .overlap (fp32); at
//   1.2-1.33x the rounds they lose by 9-13% (1200x7200x4000 759 / 839 and
//   648 / 746, 2900x2000x6112 862 / 948, 1800x6400x5600 828 / 921; the
//   second check there). Elsewhere on part lines ping-pong, ahead of ws_fp8
//   on every part-lines row timed (1800x6400x5600 921 against 826), in 2-CTA
//   clusters from 4.5 rounds of tiles (part_lines_mcast below).
// - Rows that start 16 bytes into a sector (K % 32 == 16) where the copy to
//   whole lines does not pay (lines_copy_pays below), and where the
//   128x256 tiles' rounds of clusters cost at most 1.5x the 128x128 tiles'
//   rounds (wide_rounds_fit): 128x256 tiles in 2-CTA clusters
//   (ws_fp8.wide), which ask the L2 for half the requests per flop --
//   6384x4000x5584 975 against ping-pong's 603. By
//   bench/results/h100_fp8_fast_wide.md (shapes no rule was fitted on),
//   1.11-1.38x ws_fp8 at 1.33-1.5x the rounds (3000x1536x7184 669 TFLOPS
//   against 514, 4200x2000x3088 646 / 562); at 2x the rounds it loses to
//   both 128x128 forms (6080x544x3600 381, ws_fp8 456, ping-pong 489;
//   368x2416x2192 173 / 272 / 329). There, and with one row of tiles,
//   ping-pong, faster than ws_fp8 on all fourteen such rows timed
//   (1.02-1.21x).
// - Else 128x256 tiles in 2-CTA clusters where their rounds of clusters,
//   each round twice a 128x128 tile's work, cost no more than 1.2x the
//   128x128 tiles' rounds: deep K leaves the epilogue little to hide
//   (4096x8192x28672 1523 / 1428).
// - Else ws_fp8 / ws_fp8.block: one row of tiles (M <= 128) would leave a
//   wide cluster's second CTA idle (128x14336x4096: 403 against 479).
// Ping-pong writes bf16 / fp16 only; fp32 output takes the next in line.
//
// Whether the 128x256 tiles in 2-CTA clusters fit: twice their rounds of
// clusters (a round of them is twice a 128x128 round's work) at most
// `tenths` / 10 of the 128x128 tiles' rounds, and two rows of tiles to
// pair in a cluster.
static int64_t wide_rounds(const GemmArgs& a, int sms, int64_t tm) {
  return ceil_div(ceil_div(tm, 2) * ceil_div(a.N, 256) * a.batch, std::max(sms / 2, 1));
}
static bool wide_rounds_fit(const GemmArgs& a, int sms, int64_t tiles, int64_t tm, int tenths) {
  return tm >= 2 && 2 * wide_rounds(a, sms, tm) * 10 <= ceil_div(tiles, sms) * tenths;
}

// Rows not whole lines apart, with operands read from HBM
// (bench/results/h100_fp8_lines_rotated.md: each call's operands rotated past
// the L2), fast sums:
// - Rows 16 bytes into a sector (K % 32 == 16) and two rounds of 128x128
//   tiles or more: ping-pong on copies of the operands at whole lines
//   (.pingpong.lines, the copy included) beats the wide tiles in place on 8
//   of 8 such rows with K <= 4608 (1.07-1.30x: 6496x7264x1968 1034 TFLOPS
//   against 794, 4176x4864x1744 915 / 730) and where the wide tiles' rounds
//   of clusters cost more than 1.2x the square tiles' (2768x2016x6800
//   1.19x); deeper K on equal rounds leaves the epilogue little to hide and
//   the wide tiles keep it (7472x4000x6544 0.95x, 4624x2224x7952 0.91x), as
//   at 1.5 rounds (2544x1248x4368 0.93x). Where the wide tiles do not fit
//   (ping-pong in place before) no row was timed rotated; hot in the L2,
//   ping-pong on the copies is 1.28-1.72x in place (h100_fp8_lines.md, both
//   sides >= 1312). Copies past kLinesMaxBytes are not taken: the workspace
//   is the operands' size.
// - Rows of part lines (K % 32 == 0, K % 128 != 0) where ping-pong is the
//   pick, from 4.5 rounds of tiles: ping-pong in 2-CTA clusters with B
//   multicast (.pingpong.mcast), half B's requests to the L2, no copy:
//   1.07-1.13x ping-pong on 5 of 5 such rows (4816x3968x4384 1074 / 950;
//   four rotated, 5120x1840x4384 hot in the L2);
//   at 4 rounds and fewer it ties or loses (848x4240x3552 0.75x). On whole
//   lines it loses 4-8% (bench/results/h100_fp8_lines_rotated.md, mcast
//   part, hot in the L2). Fitted on tensor scales; row-wise ones take the
//   same kernels and loops, and the same rules.
constexpr size_t kLinesMaxBytes = size_t{256} << 20;
// From the shape alone, as a plan is made (no pointers, no leading
// dimensions): operands that turn out to start at lines are read in place
// by the same entry, ping-pong on whole lines, the fastest there.
static bool lines_copy_pays(const GemmArgs& a, int sms, int64_t tiles, int64_t tm) {
  if (a.K % 32 != 16 || tiles < 2 * int64_t{sms}) return false;
  if (sm90::lines_workspace_bytes(a) > kLinesMaxBytes) return false;
  return a.K <= 4608 || !wide_rounds_fit(a, sms, tiles, tm, 12);
}
static bool part_lines_mcast(const GemmArgs& a, int sms, int64_t tiles) {
  return a.K % 32 == 0 && a.K % 128 != 0 && tiles * 2 >= int64_t{sms} * 9;
}

// The 192x192 tiles and the 128x256 tiles without a cluster, by
// bench/results/h100_fp8_tiles.md (the fast-sum entries auto chooses among
// beside auto and _scaled_mm on 97 rows -- the tile192 part's shapes, seeds
// 75-81 -- operands rotated past the L2, tensor scales, bf16 output; checked
// on seeds 82-84, which no rule was fitted on, and with row-wise scales on
// seeds 77-78's shapes):
// - Rows 16 bytes into a sector: 192x192 tiles in 2-CTA clusters
//   (ws_fp8.tile192) where their rounds of clusters, each 9/8 of a 128x256
//   round's work per SM, cost at most 1.03x the wide tiles' rounds and
//   K > 4608 (7 rows, 0.98-1.36x the pick without them: 3392x4176x7088 1.16x
//   .wide; shorter K keeps the copies to whole lines, which it trails on
//   most such rows: 0.66-1.06x them, median 0.86), or at most 0.8x at any K
//   (6080x544x3600 1.54x ping-pong, 5136x1584x2224 1.03x .pingpong.lines).
//   16-bit output only: fp32 output is untimed on these tiles.
// - Whole lines: the same tiles where their rounds cost at most 0.8x the
//   128x128 tiles' (3072x1536x7168: one round against three, 1.20x
//   ping-pong); at 0.9x they lose (2304x4224x4096 0.97x).
// - Part lines from three rounds of 128x128 tiles: the 128x256 tiles
//   without a cluster (ws_fp8.splitk), 0.97-1.28x the pick without them on 28
//   rows (geomean 1.11; 7232x5744x7840 1.24x ping-pong in clusters,
//   7088x8096x4320 1.22x .wide). Not by its split: at 9.9 rounds, the last
//   wave nearly whole, it is 1.25x the same tile in clusters stored from
//   registers (.wide; which of the two costs, these figures do not say). Under
//   three rounds it wins and loses (0.72-1.15x: 5184x864x1984 0.89x,
//   6544x304x3008 1.15x). One row of tiles (M <= 128) is untimed: the
//   square / wide tiles' pick stays.
static bool tile192_pays(const GemmArgs& a, int sms, int64_t tiles, int64_t tm) {
  if (a.dtype_c == DType::f32) return false;
  const int64_t rounds = ceil_div(ceil_div(ceil_div(a.M, 192), 2) * ceil_div(a.N, 192) * a.batch, std::max(sms / 2, 1));
  if (a.K % 32 == 16) {
    const int64_t wide = wide_rounds(a, sms, tm);
    return (a.K > 4608 && 900 * rounds <= 824 * wide) || 45 * rounds <= 32 * wide;
  }
  return a.K % 128 == 0 && 45 * rounds <= 16 * ceil_div(tiles, sms);
}
static bool splitk_pays(const GemmArgs& a, int sms, int64_t tiles, int64_t tm) {
  return a.K % 32 == 0 && a.K % 128 != 0 && tiles >= 3 * int64_t{sms} && tm >= 2;
}

static std::vector<const char*> with_first(const char* first, std::vector<const char*> rest) {
  rest.insert(rest.begin(), first);
  return rest;
}

static std::vector<const char*> sm90_fp8_square_and_wide_tiles(const GemmArgs& a, int sms, int64_t tiles,
                                                               int64_t tm) {
  if (a.K % 32 != 0) {  // (fp32 output skips the ping-pong entries: the in-place rule's pick follows)
    const char* in_place = wide_rounds_fit(a, sms, tiles, tm, 15) ? "sm90.ws_fp8.wide" : "sm90.ws_fp8.pingpong";
    if (lines_copy_pays(a, sms, tiles, tm)) return {"sm90.ws_fp8.pingpong.lines", in_place, "sm90.ws_fp8"};
    return {in_place, "sm90.ws_fp8"};
  }
  const bool wide = wide_rounds_fit(a, sms, tiles, tm, 12);
  const char* pingpong = part_lines_mcast(a, sms, tiles) ? "sm90.ws_fp8.pingpong.mcast" : "sm90.ws_fp8.pingpong";
  if ((a.K % 128 == 0 && a.K <= 8192) || a.K <= 2816)
    return {pingpong, wide ? "sm90.ws_fp8.wide" : "sm90.ws_fp8", "sm90.ws_fp8"};
  if (a.K % 128 != 0) {  // part lines
    if (wide_rounds_fit(a, sms, tiles, tm, 10)) return {"sm90.ws_fp8.wide", "sm90.ws_fp8"};
    return {pingpong, "sm90.ws_fp8"};
  }
  if (wide) return {"sm90.ws_fp8.wide", "sm90.ws_fp8"};
  return {"sm90.ws_fp8", "sm90.ws_fp8.pingpong"};
}
// The tiles above come first where they pay; the square / wide tiles' pick
// follows them (fp32 output, which .splitk does not write, takes it).
static std::vector<const char*> sm90_fp8_fast_tiles(const GemmArgs& a, int sms, int64_t tiles, int64_t tm,
                                                    int64_t k_stages, bool few) {
  if (few && k_stages >= 64) return {"sm90.ws_fp8.dsmem", "sm90.ws_fp8"};
  std::vector<const char*> square_wide = sm90_fp8_square_and_wide_tiles(a, sms, tiles, tm);
  if (tile192_pays(a, sms, tiles, tm)) return with_first("sm90.ws_fp8.tile192", std::move(square_wide));
  if (splitk_pays(a, sms, tiles, tm)) return with_first("sm90.ws_fp8.splitk", std::move(square_wide));
  return square_wide;
}

// The promoting entries and the decode swap, by their figures on an H200
// (h200_fp8_entries_graph.md, CUDA-graph GPU time, bf16 output):
// - Promotion of tensor / row-wise scales with fp32 sums (torch's
//   use_fast_accum=False) overlapped with the next block's wgmmas (.overlap)
//   on every shape timed: +1-8% on eight (4096^3 1055 TFLOPS against 991).
//   The cluster split (.promoted.dsmem) for fewer 128x128 tiles than half
//   the SMs from 48 K stages of 128 (bench/results/h100_fp8_split_f32.md):
//   at 32-33 stages .overlap is 1.07-1.18x it (64x4096x4096 122 against
//   104, 1000x1008x4112 390 / 330), at 48 the split 1.08x (256x2048x6144
//   326 / 301), at 112 1.18x (128x4096x14336 421 / 357).
// - Block scales, by h100_fp8_block.md (H100, CUDA-graph time, the block
//   scales loaded two blocks ahead with nothing reading them early): each
//   block's sum waited on (ws_fp8.block) beats the overlapped form on all
//   nine shapes in two runs, 1-9% (4096x7168x16384 951 against 875,
//   7168x2048x9984 908 / 859), and the overlapped form as it was when the
//   loop read its scales early, that build run alternately with it, on seven
//   of eight pairs (-2.9% to +10.5%). Where the 128x128 tiles take at most two rounds (and more than
//   one row of them), the 128x256 tiles (.block.wide) are faster still:
//   512x7168x16384 959 / 907, 1000x3008x5120 651 / 633; past that they lose
//   (2048x7168x4096 760 / 859, 3000x1536x7168 561 / 720). On eight shapes
//   not fitted on, auto is 1.025-1.099x the overlapped form and within 1%
//   of the fastest entry. Past that, two rows of tiles or more: the
//   overlapped form with its scales brought by the scale warp
//   (h100_fp8_scale_warp.md): 1.036x .block in geomean on the ten shapes
//   above (0.993-1.111), 1.020x on eight it was not fitted on (0.977-1.065).
// - Decode, M <= 64 with FP8 wgmma's own sums (use_fast_accum=True): the
//   weight as A (ws_fp8.swap: its rows fill wgmma's M, x's few rows its N,
//   K slices summed in a cluster), 0.90-1.66x _scaled_mm where the square
//   tiles reach 0.52-0.91x, faster on all ten shapes timed (16x4096x4096 67
//   TFLOPS against 37, 64x7168x16384 390 against 270). Past 64 rows it loses on a wide weight (100x14336x4096
//   0.81x against 0.91x). bf16 / fp16 output only: fp32 takes the next.
// - fp32 sums on rows that start 16 bytes into a sector (K % 32 == 16):
//   128x256 tiles promoted one 128-column part at a time (.promoted.wide),
//   which ask the L2 for half the requests per flop, by h100_fp8_wide.md:
//   faster than .overlap on 14 of 15 such rows (1000x3008x5008 722 TFLOPS
//   against 480, 4096x4096x4112 984 / 601, 1200x2560x8208 852 / 530), also
//   where their rounds of clusters fit worse than the square tiles'
//   (3000x1536x7184 622 / 502, 5000x1024x3600 570 / 489); 3000x3008x1040
//   380 / 387 -- up to 1.5x the square tiles' rounds, as the fast sums'
//   rule; at 2x .overlap is 1.12-1.72x it (bench/results/h100_fp8_wide_fit.md:
//   6080x544x3600 467 against 352, 368x2416x2192 276 / 160). On rows of
//   part lines (K % 128 != 0, whole sectors) past K = 2048 too, where the
//   wide rounds cost no more than the square ones: 1.01-1.32x .overlap on
//   16 shapes (1500x5120x5216 924 / 801, 900x3600x5344 774 / 585,
//   5600x2800x2656 843 / 761), 0.97-1.00x at K = 1376-1632; at 1.1-1.33x
//   the rounds 0.79-0.98x (1200x7200x4000 648 / 746, 1800x6400x5600
//   747 / 827, 1800x2800x2720 518 / 652; bench/results/h100_fp8_part_lines.md).
//   Where rows are whole lines the part-by-part wait costs what the wide
//   tile saves (4096^3 1050 / 1057, 6144x5120x3072 846 / 905, deep K
//   4096x7168x16384 1135 / 1071): .overlap.
// - Decode with fp32 sums, M <= 128: the swap promoting each 128-K block
//   (ws_fp8.promoted.swap), 1.08-2.07x the 128x128 entries on all sixteen
//   rows timed, tensor and row-wise scales (16x4096x4096 63 TFLOPS against
//   30, 128x4096x4096 307 / 263, 64x7168x16384 310 / 287 for the cluster
//   split; bench/results/h100_fp8_decode_f32.md). bf16 / fp16 output only.
static std::vector<const char*> sm90_fp8_preference(const GemmArgs& a, int sms) {
  const int64_t tm = ceil_div(a.M, 128), tiles = tm * ceil_div(a.N, 128) * a.batch;
  const int64_t k_stages = ceil_div(a.K, 128);
  const bool few = tiles <= sms / 2;
  if (a.scales.mode == ScaleMode::block) {
    if (few && k_stages >= 32) return {"sm90.ws_fp8.block.dsmem", "sm90.ws_fp8.block"};
    if (tm >= 2 && tiles <= 2 * sms) return {"sm90.ws_fp8.block.wide", "sm90.ws_fp8.block"};
    if (tm >= 2) return {"sm90.ws_fp8.block.overlap.scale_warp", "sm90.ws_fp8.block"};
    return {"sm90.ws_fp8.block", "sm90.ws_fp8.block.overlap"};
  }
  std::vector<const char*> v;
  if (a.accum == Accum::f32) {
    if (a.M <= 128) v.push_back("sm90.ws_fp8.promoted.swap");
    if (few && k_stages >= 48) v.insert(v.end(), {"sm90.ws_fp8.promoted.dsmem", "sm90.ws_fp8.promoted.overlap"});
    else if ((a.K % 32 != 0 && wide_rounds_fit(a, sms, tiles, tm, 15)) ||
             (a.K % 128 != 0 && a.K > 2048 && wide_rounds_fit(a, sms, tiles, tm, 10)))
      v.insert(v.end(), {"sm90.ws_fp8.promoted.wide", "sm90.ws_fp8.promoted.overlap"});
    else
      v.insert(v.end(), {"sm90.ws_fp8.promoted.overlap", "sm90.ws_fp8.promoted"});
    return v;
  }
  if (a.M <= 64) v.push_back("sm90.ws_fp8.swap");
  for (const char* name : sm90_fp8_fast_tiles(a, sms, tiles, tm, k_stages, few)) v.push_back(name);
  return v;
}

// Measured winners first.
std::vector<const char*> sm90_preference(int cc, const GemmArgs& args, int sms) {
  if (cc != 90) return {};
  if (is_fp8(args.dtype)) return sm90_fp8_preference(args, sms);
  const int k_tiles = static_cast<int>(ceil_div(args.K, 64));
  if (args.split_k > 1) return {"sm90.ws_splitk"};  // asked for by the caller
  // Too few 128x256 tiles to fill the GPU (decode shapes, small squares).
  // M <= 64 against wide weights: the split-K kernel's 64 x 256 tiles, when
  // its policy splits (sched::choose_splits) or those tiles fill half the
  // GPU unsplit. NN 16 x 8192 x 8192 fp16 ws_splitk 0.90x (ws_persistent
  // 0.51x, ping-pong 0.57x), 64 x 8192 x 8192 0.75x (ping-pong 0.63x;
  // h200_sweep.md); unsplit, TN 16 x 28672 x 4096 0.94-0.97x against the
  // 128-row tiles' 0.75-0.78x, half of whose MMA rows are padding
  // (h200_llm.md).
  // A and B swapped where the weight's 128-row tiles fit in one wave: the
  // weight's rows fill wgmma's M and x's few rows its N (n16-n64), and a
  // tile's K slices meet in a cluster's shared memory (ws_splitk.swap.dsmem:
  // one kernel, no partials; 64-row tiles of the weight where those fit in
  // one wave). Both layouts: x @ w.T reads the weight K-major, x @ w
  // MN-major (wgmma's transpose-A), at the same speed. ws_splitk /
  // ws_splitk.swap.dsmem, TN (h200_decode.md): 16 x 4096 x 4096 0.74-0.75x /
  // 0.96-0.97x, 64 x 4096 x 4096 0.64-0.66x / 0.82-0.83x, 48 x 1000 x 4104
  // 0.64x / 0.81-0.82x; NN (h100_decode.md, an H100): 16 x 4096 x 4096
  // 0.76-0.79x / 0.93-0.95x, 16 x 14336 x 4096 0.92-0.93x / 1.06x, 64 x 4096
  // x 4096 0.66-0.67x / 0.79-0.80x, 48 x 1000 x 4104 0.54-0.55x / 0.63-0.64x,
  // 8 x 8192 x 28672 0.95-0.96x / 0.94x. One wave only: at 224 swapped tiles
  // (16 x 28672 x 4096, TN) 0.94-0.98x / 0.93-0.95x.
  const int64_t swap_tiles = ceil_div(args.N, 128) * args.batch;  // the weight's 128-row tiles
  const bool swap = swap_tiles <= sms;
  const std::vector<const char*> decode =
      swap ? std::vector<const char*>{"sm90.ws_splitk.swap.dsmem", "sm90.ws_splitk.swap", "sm90.ws_splitk",
                                      "sm90.ws_persistent"}
           : std::vector<const char*>{"sm90.ws_splitk", "sm90.ws_persistent"};
  const int64_t narrow_tiles = ceil_div(args.N, 256) * args.batch;
  if (args.M <= 64 && args.split_k != 1 &&
      (sched::choose_splits(args.split_k, narrow_tiles, k_tiles, sms) > 1 || narrow_tiles * 2 >= sms))
    return decode;
  // 65-128 rows against a weight at least 4096 wide, K at least two slices
  // of 16 K tiles: the swapped cluster split (x's rows as wgmma's N, n128)
  // while the weight's 64-row tiles fit in one wave, either layout. The
  // swap / ping-pong, TN (h200_m128.md): 128 x 4096 x 4096 0.84x / 0.63x,
  // 128 x 8192 x 8192 0.88-0.89x / 0.81-0.83x; NN (h100_decode.md): 128 x
  // 4096 x 4096 0.75-0.76x / 0.68-0.70x (the unswapped cluster split,
  // ws_splitk.dsmem, 0.63x), 128 x 8192 x 8192 0.93-0.94x / 0.94-0.95x
  // (0.86x), 96 x 4096 x 4096 0.68x / 0.67-0.68x. Not where the 64-row tiles
  // take two waves (NN 128 x 14336 x 4096: ping-pong 0.99x, the swap 0.94x),
  // nor on narrow weights (100 x 3000 x 5000 TN: 0.61x against
  // ws_mcast.n192's 0.64x).
  const bool deep = k_tiles >= 2 * sched::kMinSliceKTiles;
  if (args.M > 64 && args.M <= 128 && args.split_k != 1 && args.N >= 4096 && deep &&
      sched::cluster_split_tile_rows(args.N, args.batch, sms) == 64)
    return {"sm90.ws_splitk.swap.dsmem", "sm90.ws_pingpong"};
  // Otherwise, while even the 128x128 tiles fit in one wave, the ping-pong
  // kernel's tiles put twice the CTAs to work: 1000^3 fp16 0.74-0.77x
  // (ws_persistent 0.56-0.57x; h200_sweep.md), 128 x 14336 x 4096 0.95-0.98x
  // (h200_m128.md). Once they take two waves the 128x256 tiles are as fast
  // or faster: 2048^3 ws_persistent 0.94-0.95x, ping-pong 0.92x; 512 x 8192
  // x 8192 1.00x / 0.92-0.93x (h200_sweep.md).
  const Sm90Costs c = sm90_costs(args, sms);
  const int64_t wide_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch;
  const int64_t square_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 128) * args.batch;
  // But where even those would leave more than 3/4 of the SMs idle and the
  // decode policy splits, split K: 600 x 752 x 4832 fp16 TN (30 square
  // tiles) ping-pong 0.48x, ws_splitk 0.53x, the pick (ws_splitk.n192)
  // 0.60x (h200_split_tail.md). So too where they would leave half the SMs
  // idle over a long K of 192 K tiles or more: 256 x 4096 x 14336 TN (64
  // square tiles of 224 K tiles) ping-pong 0.66-0.67x, ws_splitk 0.85-0.86x
  // (h200_llm.md).
  const bool splits = sched::choose_splits(args.split_k, wide_tiles, k_tiles, sms) > 1;
  const bool few = splits && (square_tiles * 4 < sms || (square_tiles * 2 <= sms && k_tiles >= 192));
  if (wide_tiles < sms && square_tiles <= sms && !c.misaligned && !few)
    return {"sm90.ws_pingpong", "sm90.ws_persistent"};
  // M <= 64 that the rule above left to split: the 64-row split-K tiles.
  if (splits && args.M <= 64) return decode;
  // The cheapest in the time model (sm90_costs); where the decode policy
  // splits every 128x256 tile, only among the split-K configurations, each
  // with its own split plan: 448 x 312 x 3952 bf16 TN ws_splitk 0.46x, the
  // pick (ws_splitk.n192) 0.54x; 424 x 3944 x 3952 fp16 NN ws_splitk 0.56x,
  // the pick (ws_mcast) 0.65x, ws_splitk.n192 0.77x (h200_random_aligned.md).
  // Picks of the model: 3072 x 5120 x 6976 bf16 ws_mcast.n192 0.96x (the best
  // of eight within 0.01); 2304 x 2816 x 4096 bf16 (396 square tiles, three
  // waves exactly) ping-pong 0.93-0.95x against <= 0.83x for the others
  // (h200_pick_checks.md).
  std::vector<std::pair<double, const char*>> by_cost = {{c.splitk, "sm90.ws_splitk"},
                                                         {c.mcast, "sm90.ws_mcast"},
                                                         {c.splitk192, "sm90.ws_splitk.n192"},
                                                         {c.mcast192, "sm90.ws_mcast.n192"},
                                                         {c.mcast2x2, "sm90.ws_mcast.2x2"}};
  if (!splits) by_cost.insert(by_cost.begin(), {{c.persistent, "sm90.ws_persistent"}, {c.pingpong, "sm90.ws_pingpong"}});
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<const char*> v;
  for (const auto& e : by_cost) v.push_back(e.second);
  if (splits) v.push_back("sm90.ws_persistent");
  return v;
}

}  // namespace tcgemm
