// Static persistent tile scheduler: a grid of G CTAs (or G clusters) stays
// resident and CTA b walks the work units b, b + G, b + 2G, ... Each unit is
// mapped to output tiles through the grouped raster (sched/raster.h), so the
// units in flight at one time cover a compact patch of C and share their A
// and B panels in L2. Pure host/device functions: tests/cpp checks that every
// tile is computed exactly once for any grid size.
//
// With clusters of `cluster_m` CTAs along M (TMA multicast of the shared B
// tile), a unit is a column of cluster_m vertically adjacent tiles and the
// CTA of cluster rank r takes tile row unit.m * cluster_m + r; a rank whose
// row lies past the last tile row still runs (its loads are TMA
// zero-filled) but stores nothing.
#pragma once
#include <cstdint>

#include "sched/raster.h"

namespace tcgemm::sched {

struct PersistentSchedule {
  int tiles_m = 1, tiles_n = 1;
  int group = 8;      // tile rows (units) per group of the grouped raster
  int cluster_m = 1;  // CTAs per cluster along M

  TCGEMM_SCHED_FN int unit_rows() const { return (tiles_m + cluster_m - 1) / cluster_m; }
  TCGEMM_SCHED_FN int64_t units() const { return static_cast<int64_t>(unit_rows()) * tiles_n; }

  // The tile that cluster rank `rank` computes for work unit `unit`.
  TCGEMM_SCHED_FN TileCoord tile(int64_t unit, int rank) const {
    const TileCoord u = raster_grouped(unit, unit_rows(), tiles_n, group);
    return {u.m * cluster_m + rank, u.n};
  }
  TCGEMM_SCHED_FN bool tile_valid(const TileCoord& t) const { return t.m < tiles_m && t.n < tiles_n; }

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

}  // namespace tcgemm::sched
