// The persistent tile scheduler (sched/persistent.h) and the pipeline's
// stage/phase walk (sched/pipeline.h), host only.
#include <array>
#include <vector>

#include "check.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"

using namespace tcgemm::sched;

// Every tile of the grid is computed by exactly one (worker, rank), for a
// grid of g workers, and each worker's units are b, b+g, ...
static void covers_once(int tiles_m, int tiles_n, int group, int cluster, int64_t g) {
  SCOPED_CASE("tiles %dx%d group %d cluster %d grid %lld", tiles_m, tiles_n, group, cluster, (long long)g);
  const PersistentSchedule s{tiles_m, tiles_n, group, cluster};
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n, 0);
  bool ok = true;
  int64_t walked = 0;
  for (int64_t b = 0; b < g; ++b) {
    int64_t n = 0;
    for (int64_t u = s.first(b); u < s.units(); u = s.next(u, g), ++n) {
      if (u % g != b) ok = false;
      for (int r = 0; r < cluster; ++r) {
        const TileCoord t = s.tile(u, r);
        if (t.n < 0 || t.n >= tiles_n || t.m < 0) { ok = false; continue; }
        if (!s.tile_valid(t)) {
          // Only the last, partial cluster row may hang past the matrix.
          if (t.m >= s.unit_rows() * cluster) ok = false;
          continue;
        }
        ++seen[static_cast<size_t>(t.m) * tiles_n + t.n];
      }
    }
    if (n != s.count(b, g)) ok = false;
    walked += n;
  }
  if (walked != s.units()) ok = false;
  for (int v : seen) ok &= (v == 1);
  CHECK_MSG(ok, "a tile not walked exactly once, or a worker's units out of order");
}

template <int S>
static void pipe_walk() {
  // The state after n advances: stage n % S, phase (n / S) % 2.
  SCOPED_CASE("a ring of %d stages", S);
  PipeState<S> st;
  for (int n = 0; n < 5 * S + 3; ++n) {
    SCOPED_CASE("after %d advances", n);
    CHECK(st.stage == n % S && st.phase == static_cast<uint32_t>((n / S) & 1));
    const PipeState<S> jump = PipeState<S>().advanced(n);
    CHECK(jump.stage == st.stage && jump.phase == st.phase);
    const PipeState<S> from = st.advanced(7);
    PipeState<S> step = st;
    for (int i = 0; i < 7; ++i) step.advance();
    CHECK(from.stage == step.stage && from.phase == step.phase);
    st.advance();
  }
}

// The producer/consumer handshake as the mbarrier phases see it: a
// simulated ring where the producer may only fill slot s when the consumer's
// releases of it number its fills so far, and the consumer only reads a slot
// whose fill count matches its pass. Walking both with PipeState and the
// parity rules (consumer waits full parity `phase`, producer waits empty
// parity `phase ^ 1`) delivers every item in order.
template <int S>
static void pipe_handshake(int items, int lead) {
  SCOPED_CASE("handshake S=%d items=%d lead=%d", S, items, lead);
  std::vector<int> full_phases(S, 0), empty_phases(S, 0), slot(S, -1);
  PipeState<S> prod, cons;
  int produced = 0, consumed = 0;
  bool ok = true;
  // Completed phase count p: a wait for parity x succeeds when the phase with
  // that parity has completed, i.e. (p & 1) != x is false ... modelled as:
  // waiting for parity x succeeds iff p > 0 and ((p - 1) & 1) == x, or x == 1
  // and p == 0 (the fresh barrier's "previous" phase).
  auto passed = [](int p, uint32_t x) { return p == 0 ? x == 1 : static_cast<uint32_t>((p - 1) & 1) == x; };
  int guard = 0;
  while (consumed < items && ++guard < 100000) {
    // Producer runs up to `lead` items ahead when it can.
    for (int i = 0; i < lead && produced < items; ++i) {
      if (!passed(empty_phases[prod.stage], prod.phase ^ 1u)) break;
      // Only accept the wait if it is not a stale pass: the slot must be free.
      if (slot[prod.stage] != -1) { ok = false; break; }
      slot[prod.stage] = produced++;
      ++full_phases[prod.stage];
      prod.advance();
    }
    if (passed(full_phases[cons.stage], cons.phase) && slot[cons.stage] != -1) {
      if (slot[cons.stage] != consumed) ok = false;
      slot[cons.stage] = -1;
      ++consumed;
      ++empty_phases[cons.stage];
      cons.advance();
    }
  }
  CHECK_MSG(ok && consumed == items, "%d of %d items consumed%s", consumed, items, ok ? "" : ", out of order");
}

// Batches x K splits: every (tile, batch, K tile) is covered by exactly one
// unit, each split's K range is non-empty, and the ranges of one tile tile
// [0, k_tiles) in order (what the fixed-order reduction sums).
static void covers_batches_and_splits(int tiles_m, int tiles_n, int batches, int k_tiles, int splits, int64_t g) {
  SCOPED_CASE("tiles %dx%d batches %d k_tiles %d splits %d grid %lld", tiles_m, tiles_n, batches, k_tiles, splits,
              (long long)g);
  const PersistentSchedule s{tiles_m, tiles_n, 8, 1, batches, splits};
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n * batches * k_tiles, 0);
  bool ok = s.units() == static_cast<int64_t>(tiles_m) * tiles_n * batches * splits;
  for (int64_t b = 0; b < g; ++b)
    for (int64_t u = s.first(b); u < s.units(); u = s.next(u, g)) {
      const WorkUnit w = s.work(u, 0);
      if (w.batch < 0 || w.batch >= batches || w.split < 0 || w.split >= splits || !s.tile_valid(w.tile)) {
        ok = false;
        continue;
      }
      int begin = 0, end = 0;
      s.k_range(k_tiles, w.split, &begin, &end);
      if (begin >= end) ok = false;
      int prev_end = 0, dummy = 0;
      if (w.split > 0) s.k_range(k_tiles, w.split - 1, &dummy, &prev_end);
      if (begin != prev_end) ok = false;  // contiguous, in split order
      for (int kt = begin; kt < end; ++kt)
        ++seen[((static_cast<size_t>(w.batch) * tiles_m + w.tile.m) * tiles_n + w.tile.n) * k_tiles + kt];
    }
  for (int v : seen) ok &= (v == 1);
  CHECK_MSG(ok, "a (tile, batch, K tile) not covered exactly once, or a K range empty or out of order");
}

// The cluster split (sm90.ws_splitk.swap.dsmem): the schedule walks whole
// tiles (splits = 1) and rank r of a cluster of `slices` CTAs takes K slice r
// (k_slice): every (tile, batch, K tile) exactly once, no rank's slice
// empty, the slices contiguous in rank order (rank 0 sums them in that order).
static void covers_cluster_split(int tiles_m, int tiles_n, int batches, int k_tiles, int slices, int64_t g) {
  SCOPED_CASE("cluster split: tiles %dx%d batches %d k_tiles %d slices %d grid %lld", tiles_m, tiles_n, batches,
              k_tiles, slices, (long long)g);
  const PersistentSchedule s{tiles_m, tiles_n, 8, 1, batches, 1};
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n * batches * k_tiles, 0);
  bool ok = s.units() == static_cast<int64_t>(tiles_m) * tiles_n * batches;
  for (int64_t b = 0; b < g; ++b)
    for (int64_t u = s.first(b); u < s.units(); u = s.next(u, g))
      for (int rank = 0, prev_end = 0; rank < slices; ++rank) {
        const WorkUnit w = s.work(u, 0);
        int begin = 0, end = 0;
        k_slice(k_tiles, rank, slices, &begin, &end);
        if (begin >= end || begin != prev_end || s.partial(w)) ok = false;
        prev_end = end;
        for (int kt = begin; kt < end; ++kt)
          ++seen[((static_cast<size_t>(w.batch) * tiles_m + w.tile.m) * tiles_n + w.tile.n) * k_tiles + kt];
        if (rank == slices - 1 && end != k_tiles) ok = false;
      }
  for (int v : seen) ok &= (v == 1);
  CHECK_MSG(ok, "a (tile, batch, K tile) not covered exactly once, or a slice empty or out of order");
}

// The split tail: rows [0, dp_rows) whole (split -1), the rest split; every
// (tile, batch, K tile) still exactly once, the whole units first in the
// unit order, and every partial tile at or below the tail's first row.
// With clusters of cluster x cluster_n CTAs, every rank of every unit.
static void covers_split_tail(int tiles_m, int tiles_n, int cluster, int batches, int k_tiles, int splits, int dp_rows,
                              int64_t g, int cluster_n = 1) {
  SCOPED_CASE("split tail: tiles %dx%d cluster %dx%d batches %d k_tiles %d splits %d dp_rows %d grid %lld", tiles_m,
              tiles_n, cluster, cluster_n, batches, k_tiles, splits, dp_rows, (long long)g);
  const PersistentSchedule s{tiles_m, tiles_n, 8, cluster, batches, splits, dp_rows, cluster_n};
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n * batches * k_tiles, 0);
  const int64_t cols = (tiles_n + cluster_n - 1) / cluster_n;
  bool ok = s.units() == static_cast<int64_t>(dp_rows) * cols * batches +
                             static_cast<int64_t>(s.unit_rows() - dp_rows) * cols * batches * splits;
  for (int64_t b = 0; b < g; ++b)
    for (int64_t u = s.first(b); u < s.units(); u = s.next(u, g))
      for (int rank = 0; rank < cluster * cluster_n; ++rank) {
        const WorkUnit w = s.work(u, rank);
        if ((u < s.dp_units()) != (w.split < 0) || s.partial(w) != (splits > 1 && u >= s.dp_units())) ok = false;
        if (s.partial(w) && w.tile.m < s.tail_tile_row()) ok = false;
        if (!s.partial(w) && w.split >= 0 && splits > 1) ok = false;
        if (!s.tile_valid(w.tile)) continue;  // a cluster rank past the last row
        int begin = 0, end = 0;
        s.k_range(k_tiles, w.split, &begin, &end);
        if (begin >= end) ok = false;
        for (int kt = begin; kt < end; ++kt)
          ++seen[((static_cast<size_t>(w.batch) * tiles_m + w.tile.m) * tiles_n + w.tile.n) * k_tiles + kt];
      }
  for (size_t i = 0; i < static_cast<size_t>(tiles_m) * tiles_n * batches * k_tiles; ++i) ok &= (seen[i] == 1);
  CHECK_MSG(ok, "a (tile, batch, K tile) not covered exactly once, or a partial outside the tail");
}

// schedule_cost's closed form against the slowest worker counted one by one.
static void cost_is_the_slowest_worker(const PersistentSchedule& s, int k_tiles, int64_t workers) {
  SCOPED_CASE("cost: tiles %dx%d splits %d dp_rows %d k %d workers %lld", s.tiles_m, s.tiles_n, s.splits, s.dp_rows,
              k_tiles, (long long)workers);
  const int64_t units = s.units(), dp = s.dp_units(), g = workers < units ? workers : units;
  const int64_t whole_cost = k_tiles + kUnitCost;
  const int64_t slice = s.splits > 1 ? (k_tiles + s.splits - 1) / s.splits + kUnitCost + kPartialCost : whole_cost;
  std::vector<int64_t> load(static_cast<size_t>(g > 0 ? g : 0), 0);
  for (int64_t u = 0; u < units; ++u) load[static_cast<size_t>(u % g)] += u < dp ? whole_cost : slice;
  int64_t worst = 0;
  for (int64_t t : load) worst = t > worst ? t : worst;
  if (g > 0 && s.splits > 1) worst += kReduceCost;
  CHECK_MSG(schedule_cost(s, k_tiles, workers) == worst, "schedule_cost %lld, the slowest worker %lld",
            (long long)schedule_cost(s, k_tiles, workers), (long long)worst);
}

int main() {
  for (int tm : {1, 3, 20, 33})
    for (int tn : {1, 5, 17})
      for (int sp : {1, 2, 5})
        for (int dp = 0; dp < tm; ++dp)
          for (int k : {1, 9, 64})
            for (int64_t g : {1, 7, 66, 132}) cost_is_the_slowest_worker(PersistentSchedule{tm, tn, 8, 1, 2, sp, dp}, k, g);
  for (int cluster : {1, 2})
    for (int batches : {1, 3})
      for (int splits : {1, 2, 4})
        for (int dp_rows : {0, 1, 3})
          for (int64_t g : {1, 7, 132}) {
            covers_split_tail(5, 3, cluster, batches, 9, splits, cluster == 2 ? dp_rows / 2 : dp_rows, g);
            covers_split_tail(20, 8, cluster, batches, 16, splits, dp_rows, g);
            // 2x2 clusters (sm90.ws_mcast.2x2), odd tile counts both ways.
            covers_split_tail(5, 3, cluster, batches, 9, splits, cluster == 2 ? dp_rows / 2 : dp_rows, g, 2);
            covers_split_tail(21, 7, cluster, batches, 16, splits, dp_rows, g, 2);
          }
  // The split-tail policy and its time model (132 SMs, 128x256 tiles).
  {
    const PersistentSchedule s{20, 8};  // 2504x1896: 160 tiles, two waves, the second 28 tiles
    const SplitPlan p = choose_split_plan(0, s, 112, 132);
    CHECK(p.splits > 1 && p.dp_rows > 0 && p.dp_rows < 20);
    PersistentSchedule t = s;
    t.splits = p.splits, t.dp_rows = p.dp_rows;
    CHECK(schedule_cost(t, 112, 132) * 16 <= schedule_cost(s, 112, 132) * 15);
    CHECK(schedule_cost(s, 112, 132) == 2 * (112 + kUnitCost));
    // A last wave at least half full, a whole number of waves, or too little
    // K: no split.
    CHECK(choose_split_plan(0, PersistentSchedule{32, 16}, 64, 132).splits == 1);  // 4096^3: last wave 116/132
    CHECK(choose_split_plan(0, PersistentSchedule{33, 4}, 64, 132).splits == 1);   // exactly one wave
    CHECK(choose_split_plan(0, PersistentSchedule{20, 8}, 6, 132).splits == 1);    // K = 384
    // Decode shapes keep the full split, requests are taken as asked.
    const SplitPlan d = choose_split_plan(0, PersistentSchedule{1, 32}, 128, 132);
    CHECK(d.splits == 4 && d.dp_rows == 0);
    const SplitPlan r = choose_split_plan(3, PersistentSchedule{32, 16}, 64, 132);
    CHECK(r.splits == 3 && r.dp_rows == 0);
  }
  // 256x128 tiles in 1x2 clusters along N (sm90.ws_mcast.m256): the split-tail
  // shapes of its GPU test (test_epilogue.py, TAIL) split their last unit
  // rows, and only those, at every resident cluster count of 58-66; the
  // schedule walks every tile once.
  for (const auto& [M, N, batch] : {std::array<int, 3>{1377, 2902, 1}, {2250, 1847, 1}, {795, 2058, 2}}) {
    SCOPED_CASE("m256 %dx%d batch %d", M, N, batch);
    const PersistentSchedule s{(M + 255) / 256, (N + 127) / 128, 1, 1, batch, 1, 0, 2};
    for (int workers = 58; workers <= 66; ++workers) {
      const SplitPlan p = choose_split_plan(0, s, (2777 + 63) / 64, workers);
      CHECK(p.splits > 1 && p.dp_rows > 0 && p.dp_rows < s.unit_rows());
      covers_split_tail(s.tiles_m, s.tiles_n, 1, batch, (2777 + 63) / 64, p.splits, p.dp_rows, workers, 2);
    }
  }
  for (int batches : {1, 2, 5})
    for (int splits : {1, 2, 3, 4, 7})
      for (int k_tiles : {7, 16, 128})
        for (int64_t g : {1, 5, 132}) {
          if (splits > k_tiles) continue;
          covers_batches_and_splits(1, 32, batches, k_tiles, splits, g);
          covers_batches_and_splits(3, 5, batches, k_tiles, splits, g);
        }
  for (int slices = 1; slices <= 8; ++slices)
    for (int k_tiles : {8, 9, 64, 257})
      for (int64_t g : {1, 33, 132}) covers_cluster_split(32, 1, 2, k_tiles, slices, g);
  // The cluster split's slice count, with an H200's resident clusters of 1-8
  // CTAs (ncu: 66 of 2, 30 of 4; the others as the GPCs would give them).
  {
    const int64_t h200[9] = {0, 132, 66, 42, 30, 24, 18, 18, 15};
    CHECK(choose_cluster_split(0, 32, 64, h200) == 3);    // 16x4096x4096: 4 would take two rounds of 30
    CHECK(choose_cluster_split(0, 112, 64, h200) == 1);   // 16x14336x4096: the tiles fill the GPU already
    CHECK(choose_cluster_split(0, 64, 128, h200) == 2);   // 64x8192x8192
    CHECK(choose_cluster_split(0, 80, 128, h200) == 1);   // 64x10240x8192: 2 or 3 slices would take two rounds
    CHECK(choose_cluster_split(0, 48, 64, h200) == 2);    // 64x6144x4096: 3 would take two rounds of 42
    CHECK(choose_cluster_split(0, 8, 128, h200) == 8);    // 8 tiles, a long K: every slice
    CHECK(choose_cluster_split(0, 32, 7, h200) == 1);     // K = 448: slices of at least 4 K tiles
    CHECK(choose_cluster_split(16, 32, 64, h200) == 8);   // a request: at most the portable cluster size,
    CHECK(choose_cluster_split(5, 32, 3, h200) == 3);     // and the K tiles
    CHECK(choose_cluster_split(2, 500, 64, h200) == 2);   // otherwise as asked
    const int64_t no_fours[9] = {0, 132, 66, 42, 0, 0, 0, 0, 0};
    CHECK(choose_cluster_split(0, 8, 128, no_fours) == 3);  // sizes that do not fit are not candidates
    CHECK(cluster_split_cost(32, 64, 4, 30) == 2 * (16 + kClusterSliceCost));
    CHECK(cluster_split_cost(32, 64, 4, 0) < 0);
    // The swap's tile height: 64 rows while they fit in one wave.
    CHECK(cluster_split_tile_rows(4096, 1, 132) == 64);    // 64 tiles, 2 slices each: 128 CTAs
    CHECK(cluster_split_tile_rows(8448, 1, 132) == 64);    // 132
    CHECK(cluster_split_tile_rows(8449, 1, 132) == 128);   // 133
    CHECK(cluster_split_tile_rows(10240, 1, 132) == 128);
    CHECK(cluster_split_tile_rows(4096, 3, 132) == 128);   // batches count: 192 tiles
    CHECK(cluster_split_tile_rows(1, 1, 132) == 64);
  }
  // The split-K policy (sm90.ws_splitk on 132 SMs).
  CHECK(choose_splits(0, 32, 128, 132) == 4);   // M <= 128 vs N = K = 8192 with 256-wide tiles: 128 units
  CHECK(choose_splits(0, 128, 128, 132) == 1);  // M = 512: the tiles fill the GPU already
  CHECK(choose_splits(0, 66, 128, 132) == 1);   // exactly half the SMs: no split
  CHECK(choose_splits(0, 1, 512, 132) == 16);   // at most 16 slices
  CHECK(choose_splits(0, 1, 128, 132) == 8);    // 128 K tiles: 8 slices of 16
  CHECK(choose_splits(0, 4, 64, 132) == 4);     // slices at least 16 K tiles deep
  CHECK(choose_splits(0, 32, 16, 132) == 1);    // 1000^3: too little K to split
  CHECK(choose_splits(0, 4, 3, 132) == 1);
  CHECK(choose_splits(5, 1, 3, 132) == 3);      // a request is capped at the K tiles
  CHECK(choose_splits(2, 500, 64, 132) == 2);   // and otherwise taken as asked

  const int sizes[] = {1, 2, 3, 7, 16, 33};
  for (int tm : sizes)
    for (int tn : sizes)
      for (int group : {1, 8})
        for (int cluster : {1, 2})
          for (int64_t g : {1, 2, 3, 5, 66, 132, 1000}) covers_once(tm, tn, group, cluster, g);
  covers_once(64, 32, 8, 1, 132);  // 8192^2 with 128x256 tiles on 132 SMs
  covers_once(64, 32, 8, 2, 66);

  // Grid sizes: one worker per unit, capped by what is resident.
  PersistentSchedule s{32, 16, 8, 1};
  CHECK(s.units() == 512 && s.grid(132) == 132 && s.grid(1000) == 512);
  PersistentSchedule c{33, 16, 8, 2};
  CHECK(c.unit_rows() == 17 && c.units() == 17 * 16);
  // A cluster's two ranks take vertically adjacent tiles of one unit.
  const TileCoord t0 = c.tile(5, 0), t1 = c.tile(5, 1);
  CHECK(t1.m == t0.m + 1 && t1.n == t0.n && t0.m % 2 == 0);
  // The grouped order: consecutive units walk down M inside a group.
  CHECK(s.tile(0, 0).m == 0 && s.tile(1, 0).m == 1 && s.tile(8, 0).m == 0 && s.tile(8, 0).n == 1);
  CHECK(s.count(0, 132) == 4 && s.count(131, 132) == 3);

  pipe_walk<1>();
  pipe_walk<2>();
  pipe_walk<4>();
  pipe_walk<5>();
  for (int items : {1, 3, 17, 64})
    for (int lead : {1, 2, 8}) {
      pipe_handshake<1>(items, lead);
      pipe_handshake<3>(items, lead);
      pipe_handshake<4>(items, lead);
    }
  return finish("test_pipeline_sched");
}
