// The Blackwell family's scheduling arithmetic (cpp/src/sm100/descriptors.h on
// top of the shared sched/persistent.h and sched/pipeline.h): 2-CTA M-first
// pairing, the static persistent schedule of pair tiles per cluster, and the
// double-buffered TMEM accumulator's phase sequence. Host only.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "check.h"
#include "sm100/descriptors.h"

using namespace tcgemm;
using namespace tcgemm::sm100;
using tcgemm::sched::TileCoord;

// Each 128-row CTA tile inside M is computed by exactly one CTA, the two
// ranks of a cluster share N and are M-neighbours (2*pm, 2*pm + 1), for both
// the row-major and the grouped raster of pair tiles.
static void pairing_covers_once(int tiles_m, int tiles_n, int group) {
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n, 0);
  bool neighbours = true, in_n = true;
  const int64_t pairs = pair_schedule(tiles_m, tiles_n, group).units();
  for (int64_t p = 0; p < pairs; ++p) {
    const TileCoord t0 = pair_tile(p, 0, tiles_m, tiles_n, group), t1 = pair_tile(p, 1, tiles_m, tiles_n, group);
    neighbours &= t0.n == t1.n && t1.m == t0.m + 1 && t0.m % 2 == 0;
    for (const TileCoord& t : {t0, t1}) {
      in_n &= t.n >= 0 && t.n < tiles_n && t.m >= 0 && t.m <= tiles_m;  // m == tiles_m: the odd CTA past M
      if (t.m < tiles_m) ++seen[static_cast<size_t>(t.m) * tiles_n + t.n];
    }
  }
  bool once = true;
  for (int s : seen) once &= s == 1;
  CHECK_MSG(neighbours && in_n && once, "pairing tiles %dx%d group %d", tiles_m, tiles_n, group);
}

// The static persistent schedule of the v6 kernel (the shared
// sched::PersistentSchedule, cluster_m = 2): cluster c of `clusters` takes
// pair tiles c, c + clusters, ... -- every pair tile exactly once, each
// cluster's in increasing order, and the per-cluster counts add up.
static void persistent_covers_once(int tiles_m, int tiles_n, int64_t clusters) {
  const sched::PersistentSchedule s = pair_schedule(tiles_m, tiles_n, 8);
  const int64_t items = s.units();
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n, 0);
  bool ordered = true;
  int64_t total = 0;
  const int64_t grid = s.grid(clusters);
  for (int64_t c = 0; c < grid; ++c) {
    int64_t n = 0, last = -1;
    for (int64_t u = s.first(c); u < items; u = s.next(u, grid)) {  // the kernels' loop
      ordered &= u > last && (u - c) % grid == 0;
      last = u;
      ++n;
      for (int r = 0; r < 2; ++r) {
        const TileCoord t = s.tile(u, r);
        if (s.tile_valid(t)) ++seen[static_cast<size_t>(t.m) * tiles_n + t.n];
      }
    }
    ordered &= n == s.count(c, grid);
    total += n;
  }
  bool once = total == items && grid <= clusters && grid >= 1;
  for (int v : seen) once &= v == 1;
  CHECK_MSG(ordered && once, "persistent tiles %dx%d clusters %lld", tiles_m, tiles_n, static_cast<long long>(clusters));
}

static void tmem_double_buffer_phases() {
  // The double-buffered TMEM accumulator (v6/v7): tile t of a CTA uses
  // buffer t % 2; the epilogue waits tmem_full with parity (t / 2) & 1, the
  // MMA waits tmem_empty with the opposite parity (PTX ISA mbarrier
  // "phase completion": a fresh barrier's waiters on parity 1 pass at once).
  // Written out for tiles 0..7: (buffer, full parity, empty parity).
  const int want[8][3] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 0}, {1, 1, 0}};
  sched::PipeState<2> walk;  // what the kernels' roles do: advance() once per tile
  for (int t = 0; t < 8; ++t) {
    SCOPED_CASE("tile %d", t);
    const sched::PipeState<2> s = tmem_accum_state(t);
    CHECK(s.stage == want[t][0]);
    CHECK(s.phase == static_cast<uint32_t>(want[t][1]));
    CHECK((s.phase ^ 1u) == static_cast<uint32_t>(want[t][2]));
    CHECK(walk.stage == s.stage && walk.phase == s.phase);
    walk.advance();
  }
  // Consecutive uses of one buffer wait on alternating parities, so a waiter
  // can never pass on a stale phase.
  for (int64_t t = 0; t < 100; ++t) CHECK(tmem_accum_state(t).phase != tmem_accum_state(t + 2).phase);
}

int main() {
  const int sizes[] = {1, 2, 3, 5, 8, 9, 16, 33};
  for (int tm : sizes)
    for (int tn : sizes)
      for (int g : {1, 2, 4, 8}) pairing_covers_once(tm, tn, g);
  // The seed's M-first pairing, row-major raster (group 1): pair 0 -> tiles
  // (0,0),(1,0); pair 1 -> (0,1),(1,1); pair 3 of 3 columns -> (2,0),(3,0).
  CHECK(pair_tile(0, 0, 4, 3, 1).m == 0 && pair_tile(0, 1, 4, 3, 1).m == 1);
  CHECK(pair_tile(1, 0, 4, 3, 1).n == 1 && pair_tile(1, 1, 4, 3, 1).m == 1);
  CHECK(pair_tile(3, 0, 4, 3, 1).m == 2 && pair_tile(3, 0, 4, 3, 1).n == 0);
  // Grouped raster of pair rows (group 2): pairs walk down M first.
  CHECK(pair_tile(1, 0, 8, 4, 2).m == 2 && pair_tile(1, 0, 8, 4, 2).n == 0);
  // Odd tiles_m: the last pair's rank 1 lies past M.
  CHECK(pair_schedule(3, 2, 1).units() == 4);
  CHECK(pair_tile(3, 1, 3, 2, 1).m == 3);
  for (int tm : {1, 2, 7, 32, 33})
    for (int tn : {1, 3, 16, 17})
      for (int64_t clusters : {1, 2, 3, 74, 5000}) persistent_covers_once(tm, tn, clusters);
  tmem_double_buffer_phases();
  return finish("test_sm100_schedule");
}
