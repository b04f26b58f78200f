// The Hopper family's `auto`: the order in which it tries its kernels on an
// H100/H200, and the time model behind that order.
#include <algorithm>
#include <utility>

#include "core/families.h"
#include "sched/persistent.h"
#include "sm90/heuristics.h"

namespace tcgemm {

// The time model behind `auto` on the H200 for shapes whose 128x256 tiles
// fill the GPU, in K tiles of a 128x256 tile on one SM (sched::schedule_cost):
// each kernel's persistent schedule, scaled by its speed per tile against
// ws_persistent's, and by what rows that start 16 bytes into a 32-byte
// sector cost it (a pitch of 8 mod 16 elements: every other TMA box row
// touches an extra sector and is split into more L2 requests; first measured
// at 3072x5120x7000 bf16 TN: ws_persistent 0.64x cuBLAS, ws_mcast 0.94x --
// multicast halves B's requests -- ws_pingpong 0.51x, against 1.00x / 0.98x /
// 0.93x at K = 6976; bench/NOTES.md; the factors below are re-fitted over
// random shapes). The pitch is taken to be the shape's
// (K for A and a K-major B, N for a row-major B, rounded up to 8 as tcgemm's
// buffers are): plans are cached per shape.
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
  // Each configuration's speed per element against ws_persistent's, aligned
  // and on misaligned rows (docs/benchmarking.md, "How auto decides"), fitted
  // on the ninth session's run 1 (aligned seeds 11-14 and the llm preset,
  // every configuration named; the same fit on the eighth session's run 4
  // agrees within 2%, and seeds 15-18, measured after it, within 5%): each
  // kernel's measured time over its modelled time, relative to
  // ws_persistent's on the same row, per class of row.
  //   ping-pong: 9% slower than its earlier 0.93 said, on every class.
  //   multicast: its gain on misaligned rows is smaller than on the one shape
  //     first measured (0.83, not 0.94), and a cluster launch costs about
  //     kClusterCost K tiles more (its fill and its two cluster barriers):
  //     time = modelled / 0.965 + 5, behind on small shapes, ahead on large.
  //   128x192 tiles: 3/4 of a wide tile's work at 0.92 / 0.93 of their
  //     128x256 counterparts' speed (a consumer's m64n192k16 reads 1/15 more
  //     shared memory per MMA than m64n256k16; the epilogue's share grows).
  //   2x2 clusters: per SM as fast as a lone CTA, 0.85 on misaligned rows
  //     (run 2: 3072x5120x7000 bf16 TN 1.04x cuBLAS on 120 SMs, ws_mcast 0.98x
  //     on 132), but only 30 fit on the H200 at once (120 of its 132 SMs:
  //     the split-tail tests' plans on the device put
  //     cudaOccupancyMaxActiveClusters at 30-31; its GPCs' SM counts are not
  //     multiples of 4), so they win only where 30-wide waves fit better.
  struct Speed {
    double aligned, misaligned;
  };
  // Re-fitted on GPU time (tenth session, run 4: the same seeds and llm
  // preset, `--timing queued`): the launch-inclusive timer had charged the
  // cluster kernels their longer host launch (cudaLaunchKernelEx). Against
  // ws_persistent the clustered configurations ran 5-6% faster per element
  // than the factors above said (the medians of measured over modelled time:
  // ws_mcast 0.943 / 0.926 aligned / misaligned, ws_mcast.n192 0.942 / 0.979,
  // 2x2 0.952 / 0.901), ws_splitk.n192 0.975 / 1.01, ping-pong within 1%.
  // The cluster cost, scanned over 0-5 K tiles with these factors: the picks'
  // measured geomean 0.876-0.878 on those rows, and 0.863-0.870 on run 1's
  // (seed 15 fp16 TN and squares, another machine), best at 5 -- kept. Old
  // factors there: 0.872 and 0.853.
  constexpr Speed kWide{1.0, 0.64}, kMcast{1.023, 0.896}, kPingPong{0.85, 0.475};
  constexpr Speed kSplitK192{0.944, 0.583}, kMcast192{0.987, 0.817}, kQuad{1.05, 0.943};
  constexpr double kClusterCost = 5;
  // ws_splitk's split tail (and full split) as measured beside ws_mcast's
  // (run 6 of 2026-12-04, four aligned shapes with a short last wave:
  // ws_mcast 2-4% ahead where the counts put it 2-7% behind): where every SM
  // streams its own A and B the partial sums and their reduction cost more
  // than kPartialCost/kReduceCost say.
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

// Measured winners first (bench/results/).
std::vector<const char*> sm90_preference(int cc, const GemmArgs& args, int sms) {
  if (cc != 90) return {};
  const int k_tiles = static_cast<int>(ceil_div(args.K, 64));
  if (args.split_k > 1) return {"sm90.ws_splitk"};  // asked for by the caller
  // Too few 128x256 tiles to fill the GPU (decode shapes, small squares).
  // M <= 64 against big weights: the split-K kernel, when its policy would
  // split (sched::choose_splits with ws_splitk's 64 x 256 tile): 1.04-1.08x
  // cuBLAS at M = 16, 0.90-0.95x at M = 64 (bench/results/h200_sweep.md).
  // Its 64-row tile also wins unsplit where those tiles fill half the GPU
  // or more: 16 x 28672 x 4096 against 128-row tiles 0.86x (the same
  // tiles, half of each an MMA on padding).
  // With x @ w.T (TN) A and B swapped, where the weight's 128-row tiles
  // fit in one wave: n16-n64 tiles instead of 64 x 256 ones whose rows are
  // mostly padding: 16 x 4096 x 4096 0.70x -> 0.82x cuBLAS, 16 x 4096 x
  // 14336 0.80x -> 0.88x, GPU time; at 224 swapped tiles (16 x 28672 x
  // 4096) 0.91x -> 0.84x, hence one wave only (tenth session, run 3).
  const int64_t swap_tiles = ceil_div(args.N, 128) * args.batch;  // the weight's 128-row tiles
  const bool swap = args.layout == Layout::TN && swap_tiles <= sms;
  // The swap's K slices meet in a cluster's shared memory
  // (ws_splitk.swap.dsmem): one kernel, no partials (twelfth session, GPU
  // time: 16 x 4096 x 4096 0.78-0.83x -> 0.87-0.90x, 16 x 14336 x 4096
  // 0.87-0.89x -> 0.96x, 64 x 8192 x 8192 0.86-0.87x -> 0.92-0.94x). With
  // 64-row tiles of the weight where those fit in one wave (thirteenth
  // session, run 2) it is ahead of the partials' swap on every measured
  // row: 64 x 4096 x 4096 0.70x -> 0.82x, 48 x 1000 x 4104 0.84x / 0.82x.
  const std::vector<const char*> decode =
      swap ? std::vector<const char*>{"sm90.ws_splitk.swap.dsmem", "sm90.ws_splitk.swap", "sm90.ws_splitk",
                                      "sm90.ws_persistent"}
           : std::vector<const char*>{"sm90.ws_splitk", "sm90.ws_persistent"};
  const int64_t narrow_tiles = ceil_div(args.N, 256) * args.batch;
  if (args.M <= 64 && args.split_k != 1 &&
      (sched::choose_splits(args.split_k, narrow_tiles, k_tiles, sms) > 1 || narrow_tiles * 2 >= sms))
    return decode;
  // 65-128 rows against a weight at least 4096 wide whose 64-row tiles fit
  // in one wave: the cluster split, x's rows as wgmma's N (TN: the swap,
  // n128) or the weight's columns in 128x128 tiles (NN, ws_splitk.dsmem,
  // where two slices of each fit in one round). Thirteenth session, runs 1
  // and 2, bf16, against the earlier pick (ws_splitk.n192 or ping-pong):
  // TN 128 x 4096 x 4096 0.70x -> 0.85x (ping-pong 0.63-0.65x), 128 x 4096
  // x 14336 0.81x -> 0.95x, 128 x 8192 x 8192 0.83x -> 0.86x; NN 0.68x ->
  // 0.70x, 0.81x -> 0.86x, 0.81x -> 0.85x. Not where the 64-row tiles take
  // two waves (128 x 14336 x 4096: ping-pong 0.95x, the swap 0.88x), nor on
  // narrow weights (100 x 3000 x 5000: 0.61x against ws_mcast.n192's
  // 0.64x), nor K under two slices of 16 K tiles.
  const bool deep = k_tiles >= 2 * sched::kMinSliceKTiles;
  if (args.M > 64 && args.M <= 128 && args.split_k != 1 && args.N >= 4096 && deep) {
    if (args.layout == Layout::TN && sched::cluster_split_tile_rows(args.N, args.batch, sms) == 64)
      return {"sm90.ws_splitk.swap.dsmem", "sm90.ws_pingpong"};
    if (args.layout == Layout::NN && ceil_div(args.N, 128) * args.batch * 2 <= sms)
      return {"sm90.ws_splitk.dsmem", "sm90.ws_pingpong"};
  }
  // Otherwise, while even the 128x128 tiles fit in one wave, the ping-pong
  // kernel's tiles put twice the CTAs to work: M = 128 against 8192^2
  // weights 0.97-0.98x cuBLAS (split-K 0.82x, 128x256 tiles 0.58x), 1000^3
  // 1.21-1.33x (ws_persistent 1.00-1.04x). Once they take two waves
  // (2048^3, 512 x 8192^2) the 128x256 tiles are as fast or faster.
  const Sm90Costs c = sm90_costs(args, sms);
  const int64_t wide_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch;
  const int64_t square_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 128) * args.batch;
  // But where even those would leave more than 3/4 of the SMs idle and the
  // decode policy splits, split K: 600x752x4832 (30 square tiles) ping-pong
  // 0.76-0.83x, split-K 0.84-0.86x (M = 128 against 8192^2 has 64).
  // So too where they would leave half the SMs idle over a long K: M = 256
  // and 200 against 4096 x 14336 weights (64 square tiles of 224 k-tiles)
  // ping-pong 0.77-0.81x, split-K 0.97-1.01x, while M = 128 against 8192^2
  // (64 tiles of 128 k-tiles) stays with ping-pong (run 1 of 2026-12-04,
  // eighth session).
  const bool splits = sched::choose_splits(args.split_k, wide_tiles, k_tiles, sms) > 1;
  const bool few = splits && (square_tiles * 4 < sms || (square_tiles * 2 <= sms && k_tiles >= 192));
  if (wide_tiles < sms && square_tiles <= sms && !c.misaligned && !few)
    return {"sm90.ws_pingpong", "sm90.ws_persistent"};
  // M <= 64 that the rule above left to split: the 64-row split-K tiles.
  if (splits && args.M <= 64) return decode;
  // The cheapest in the time model (sm90_costs); where the decode policy
  // splits every 128x256 tile, only among the split-K configurations, each
  // with its own split plan: 424x3944x3952 NN ws_splitk 0.72x cuBLAS,
  // ws_mcast.n192 0.98x; 448x312x3952 0.79x / ws_splitk.n192 0.92x (run 1
  // of 2026-12-04, ninth session).
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
