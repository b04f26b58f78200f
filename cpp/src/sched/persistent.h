// Static persistent tile scheduler: a grid of G CTAs (or G clusters) stays
// resident and CTA b walks the work units b, b + G, b + 2G, ... Each unit is
// mapped to output tiles through the grouped raster (sched/raster.h), so the
// units in flight at one time cover a compact patch of C and share their A
// and B panels in L2. Pure host/device functions: tests/cpp checks that every
// tile is computed exactly once for any grid size.
//
// With clusters of cluster_m x cluster_n CTAs (TMA multicast of the B tile
// shared along M, of the A tile shared along N), a unit is a cluster_m x
// cluster_n block of tiles and the CTA of cluster rank r takes tile
// (unit.m * cluster_m + r % cluster_m, unit.n * cluster_n + r / cluster_m);
// a rank whose tile lies past the last tile row or column still runs (its
// loads are TMA zero-filled) but stores nothing.
#pragma once
#include <cstdint>

#include "sched/raster.h"

namespace tcgemm::sched {

// Batches and K splits: the unit space is batches x splits copies of one
// matrix's tiles, a matrix's tiles consecutive (so the units in flight share
// panels in L2): unit u is tile u % tiles_per_matrix of (batch, split)
// number u / tiles_per_matrix, split fastest.
//
// Split tail ("data-parallel waves + split-K for the last wave"): with
// dp_rows > 0 only unit rows dp_rows .. unit_rows-1 are split; the rows above
// them are computed whole, as data-parallel units that come first in the
// unit order (so they fill the first waves), followed by the tail's split
// units, which spread the last partial wave over every worker. A whole unit
// has split = -1. dp_rows = 0 is plain split-K (every tile split).
struct WorkUnit {
  TileCoord tile;
  int batch;
  int split;  // K slice 0 .. splits-1, or -1: the whole of K
};

// K tiles [*begin, *end) of slice `split` of `splits` near-equal slices of
// k_tiles (none empty when splits <= k_tiles); split -1 is all of them.
TCGEMM_SCHED_FN void k_slice(int k_tiles, int split, int splits, int* begin, int* end) {
  if (split < 0) {
    *begin = 0, *end = k_tiles;
    return;
  }
  *begin = static_cast<int>(static_cast<int64_t>(k_tiles) * split / splits);
  *end = static_cast<int>(static_cast<int64_t>(k_tiles) * (split + 1) / splits);
}

struct PersistentSchedule {
  int tiles_m = 1, tiles_n = 1;
  int group = 8;      // tile rows (units) per group of the grouped raster
  int cluster_m = 1;  // CTAs per cluster along M
  int batches = 1;
  int splits = 1;
  int dp_rows = 0;  // unit rows computed whole before the split tail (0: all split)
  int cluster_n = 1;  // CTAs per cluster along N

  TCGEMM_SCHED_FN int unit_rows() const { return (tiles_m + cluster_m - 1) / cluster_m; }
  TCGEMM_SCHED_FN int unit_cols() const { return (tiles_n + cluster_n - 1) / cluster_n; }
  TCGEMM_SCHED_FN int tail_rows() const { return unit_rows() - dp_rows; }
  TCGEMM_SCHED_FN int64_t units_per_matrix() const { return static_cast<int64_t>(unit_rows()) * unit_cols(); }
  TCGEMM_SCHED_FN int64_t dp_units() const { return static_cast<int64_t>(dp_rows) * unit_cols() * batches; }
  TCGEMM_SCHED_FN int64_t tail_tiles() const { return static_cast<int64_t>(tail_rows()) * unit_cols(); }
  TCGEMM_SCHED_FN int64_t units() const { return dp_units() + tail_tiles() * batches * splits; }

  // The tile (and batch, and K slice) that cluster rank `rank` computes for
  // work unit `unit`.
  TCGEMM_SCHED_FN WorkUnit work(int64_t unit, int rank) const {
    const int64_t dp = dp_units();
    const int rm = rank % cluster_m, rn = rank / cluster_m;
    if (unit < dp) {
      const int64_t per = static_cast<int64_t>(dp_rows) * unit_cols();
      const TileCoord u = raster_grouped(unit % per, dp_rows, unit_cols(), group);
      return {{u.m * cluster_m + rm, u.n * cluster_n + rn}, static_cast<int>(unit / per), -1};
    }
    unit -= dp;
    const int64_t copy = unit / tail_tiles();
    const TileCoord u = raster_grouped(unit % tail_tiles(), tail_rows(), unit_cols(), group);
    return {{(dp_rows + u.m) * cluster_m + rm, u.n * cluster_n + rn}, static_cast<int>(copy / splits),
            static_cast<int>(copy % splits)};
  }
  TCGEMM_SCHED_FN TileCoord tile(int64_t unit, int rank) const { return work(unit, rank).tile; }
  TCGEMM_SCHED_FN bool tile_valid(const TileCoord& t) const { return t.m < tiles_m && t.n < tiles_n; }
  // Whether a unit's tile goes out as an fp32 partial (for the reduction).
  TCGEMM_SCHED_FN bool partial(const WorkUnit& w) const { return splits > 1 && w.split >= 0; }
  // The first tile row of the split tail (partials are stored from there).
  TCGEMM_SCHED_FN int tail_tile_row() const { return dp_rows * cluster_m; }

  // K tiles [*begin, *end) of K slice `split` of k_tiles: near-equal parts,
  // none empty when splits <= k_tiles; split -1 is all of them.
  TCGEMM_SCHED_FN void k_range(int k_tiles, int split, int* begin, int* end) const {
    k_slice(k_tiles, split, splits, begin, end);
  }

  // Work units of worker b (a CTA, or a cluster) in a grid of g workers:
  // first(b) then next(u, g) while u < units().
  TCGEMM_SCHED_FN int64_t first(int64_t b) const { return b; }
  TCGEMM_SCHED_FN int64_t next(int64_t u, int64_t g) const { return u + g; }
  // How many units worker b of g computes.
  TCGEMM_SCHED_FN int64_t count(int64_t b, int64_t g) const {
    const int64_t n = units();
    return b < n ? (n - b + g - 1) / g : 0;
  }

  // Workers to launch: one per unit, at most `max_workers` (the CTAs or
  // clusters that fit on the device at once).
  TCGEMM_SCHED_FN int64_t grid(int64_t max_workers) const {
    const int64_t n = units();
    return n < max_workers ? n : (max_workers < 1 ? 1 : max_workers);
  }
};

// How many K slices split-K uses for `tile_units` output tiles (all batches)
// of k_tiles K tiles each on `sms` SMs: split only when the tiles alone would
// leave more than half of the SMs idle; then about one unit per SM, each slice
// at least kMinSliceKTiles K tiles deep, at most 16 slices. A caller's
// request > 0 is taken as asked, capped at k_tiles (no empty slice).
// Measured on the H200 (docs/performance.md, "How the work is cut"): 4 slices of 32 K tiles turn the
// decode shapes (M <= 128, N = K = 8192) from 0.56-0.65x cuBLAS into
// 0.93-1.10x, but 4 slices of 4 K tiles made 1000^3 lose (1.05x against the
// unsplit 1.39x): the partials and the second launch need deep slices.
constexpr int kMinSliceKTiles = 16;
TCGEMM_SCHED_FN int choose_splits(int requested, int64_t tile_units, int k_tiles, int sms) {
  if (requested > 0) return requested < k_tiles ? requested : k_tiles;
  if (tile_units * 2 >= sms) return 1;
  int64_t s = sms / tile_units;
  if (s > k_tiles / kMinSliceKTiles) s = k_tiles / kMinSliceKTiles;
  if (s > 16) s = 16;
  return s < 1 ? 1 : static_cast<int>(s);
}

// The time model behind the split decisions, in K tiles of one tile computed
// by one worker (a CTA or cluster): a worker's time is the sum of its units'
// K tiles, plus kPartialCost for each fp32 partial tile it writes; a split
// adds the reduction launch after the slowest worker. Workers take units
// round robin (first/next above), so the slowest worker is found by counting.
// Constants from the H200 (docs/performance.md, "How the work is cut"): a 128x256x64 K tile takes
// ~0.75 us on one SM, writing its 128 KB fp32 partial ~3 us with the other
// SMs busy, the reduction launch 6-10 us.
constexpr int kUnitCost = 1;  // a unit's pipeline fill and epilogue, beyond its K tiles
constexpr int kPartialCost = 4;
constexpr int kReduceCost = 10;
constexpr int kMinTailSliceKTiles = 4;

TCGEMM_SCHED_FN int64_t schedule_cost(const PersistentSchedule& s, int k_tiles, int64_t workers) {
  const int64_t units = s.units(), dp = s.dp_units();
  const int64_t g = workers < units ? workers : units;
  if (g < 1) return 0;
  // Whole units cost k_tiles; a tail unit its slice (the deepest one) plus
  // its partial when split.
  const int64_t whole_cost = k_tiles + kUnitCost;
  const int64_t slice = s.splits > 1 ? (k_tiles + s.splits - 1) / s.splits + kUnitCost + kPartialCost : whole_cost;
  // Worker b's whole units and all its units each drop by one past b = dp % g
  // and b = units % g, so its time is constant between those two points: the
  // slowest worker is among b = 0, dp % g, units % g (O(1): the launch path
  // evaluates this on every call).
  int64_t worst = 0;
  const int64_t candidates[3] = {0, dp % g, units % g};
  for (const int64_t b : candidates) {
    const int64_t all = s.count(b, g);
    const int64_t whole = b < dp ? (dp - b + g - 1) / g : 0;
    const int64_t t = whole * whole_cost + (all - whole) * slice;
    if (t > worst) worst = t;
  }
  return worst + (s.splits > 1 ? kReduceCost : 0);
}

// The cluster split (sm90.ws_splitk.swap.dsmem, sm90.ws_splitk.dsmem): the K slices of a tile are
// the CTAs of one cluster, so a slice count S takes clusters of S CTAs, and
// how many of those are resident does not scale with S -- an H200 holds 66
// clusters of 2 but 30 of 4 (120 CTAs): a cluster lives within one GPC
// (ncu's Occupancy section: bench/results/logs/h200_runs_2026-12-04*.txt).
// `clusters[s]` is that count for s CTAs (0: none fit). Time, in K tiles
// of one CTA: ceil(tiles / clusters) rounds of one slice each, a slice its
// K tiles plus kClusterSliceCost for the pipeline fill and the exchange. The fewest
// slices among the cheapest, each at least kMinClusterSliceKTiles deep; a
// request > 0 as asked, capped at 8 and at the K tiles. 16 x 4096 x 4096
// (32 tiles of 64 K tiles): 4 slices take two rounds of 30 clusters, 3
// slices one round.
constexpr int kClusterSliceCost = 2;
constexpr int kMaxClusterSlices = 8;  // the portable cluster size (CUDA programming guide: thread block clusters)
TCGEMM_SCHED_FN int64_t cluster_split_cost(int64_t tiles, int k_tiles, int slices, int64_t clusters) {
  if (clusters < 1) return -1;
  return (tiles + clusters - 1) / clusters * ((k_tiles + slices - 1) / slices + kClusterSliceCost);
}
constexpr int kMinClusterSliceKTiles = 4;
TCGEMM_SCHED_FN int choose_cluster_split(int requested, int64_t tiles, int k_tiles, const int64_t* clusters) {
  if (requested > 0) {
    const int most = k_tiles < kMaxClusterSlices ? (k_tiles < 1 ? 1 : k_tiles) : kMaxClusterSlices;
    return requested < most ? requested : most;
  }
  const int deep = k_tiles / kMinClusterSliceKTiles;  // slices of at least kMinClusterSliceKTiles
  const int most = deep < kMaxClusterSlices ? deep : kMaxClusterSlices;
  // Decode streams the weight: once the tiles' CTAs are enough to keep the
  // memory busy, a split that adds a round only adds time (64 x 10240 x 8192:
  // 80 tiles, 3 slices in two rounds of 44 clusters 62 us, ws_splitk.swap
  // unsplit 54 us). So only slice counts as few rounds as the unsplit tiles.
  const int64_t rounds = clusters[1] > 0 ? (tiles + clusters[1] - 1) / clusters[1] : 0;
  int best = 1;
  int64_t best_cost = -1;
  for (int s = 1; s <= (most < 1 ? 1 : most); ++s) {
    const int64_t c = cluster_split_cost(tiles, k_tiles, s, clusters[s]);
    if (c < 0 || (rounds > 0 && (tiles + clusters[s] - 1) / clusters[s] > rounds)) continue;
    if (best_cost < 0 || c < best_cost) best_cost = c, best = s;
  }
  return best;
}

// The swap's cluster split (swap.cuh): the weight's tile height, 64 rows
// while its `weight_rows` (all batches) make no more 64-row tiles than there
// are SMs -- twice the tiles put twice the CTAs to streaming the weight --
// else 128 (H200, bench/results/logs/h200_runs_2026-12-04*.txt:
// 64-row tiles past one wave lost 0.97x -> 0.79x at 16 x 10240 x 8192).
TCGEMM_SCHED_FN int cluster_split_tile_rows(int64_t weight_rows, int64_t batches, int sms) {
  return (weight_rows + 63) / 64 * batches <= sms ? 64 : 128;
}

// How to split a persistent GEMM: {splits, dp_rows} for PersistentSchedule.
// A request (> 0) splits every tile as asked. Otherwise the decode policy
// above (choose_splits: every tile split when the tiles leave more than half
// of the workers idle); failing that, when the last wave is less than half
// full, the last unit rows are split where the time model says the
// balanced tail pays for its partials and reduction (by at least 1/16), e.g. 2504x1896x7136 with 128x256 tiles: 160 tiles on
// 132 SMs, two waves, become 128 whole tiles and 32 tiles split 4 ways.
struct SplitPlan {
  int splits = 1;
  int dp_rows = 0;
};

TCGEMM_SCHED_FN SplitPlan choose_split_plan(int requested, PersistentSchedule s, int k_tiles, int workers) {
  SplitPlan best;
  s.splits = 1, s.dp_rows = 0;
  const int full = choose_splits(requested, s.units(), k_tiles, workers);
  if (requested > 0 || full > 1) {
    best.splits = full;
    return best;
  }
  // As CUTLASS's stream-K heuristic: a last wave at least half full stays as it is.
  const int64_t last = workers > 0 ? s.units() % workers : 0;
  if (last == 0 || last * 2 >= workers) return best;
  int64_t best_cost = schedule_cost(s, k_tiles, workers);
  const int64_t plain = best_cost;
  const int rows = s.unit_rows();
  for (int tail = 1; tail <= rows; ++tail) {
    if (static_cast<int64_t>(tail) * s.unit_cols() * s.batches > 2 * static_cast<int64_t>(workers)) break;
    for (int sp = 2; sp <= 16 && k_tiles / sp >= kMinTailSliceKTiles; ++sp) {
      PersistentSchedule t = s;
      t.splits = sp, t.dp_rows = rows - tail;
      const int64_t c = schedule_cost(t, k_tiles, workers);
      if (c < best_cost) best_cost = c, best.splits = sp, best.dp_rows = rows - tail;
    }
  }
  if (best.splits > 1 && best_cost * 16 > plain * 15) best = SplitPlan{};  // not worth its risks
  return best;
}

}  // namespace tcgemm::sched
