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

// Batches and K splits: the unit space is batches x splits copies of one
// matrix's tiles, a matrix's tiles consecutive (so the units in flight share
// panels in L2): unit u is tile u % tiles_per_matrix of (batch, split)
// number u / tiles_per_matrix, split fastest.
struct WorkUnit {
  TileCoord tile;
  int batch;
  int split;  // K slice 0 .. splits-1
};

struct PersistentSchedule {
  int tiles_m = 1, tiles_n = 1;
  int group = 8;      // tile rows (units) per group of the grouped raster
  int cluster_m = 1;  // CTAs per cluster along M
  int batches = 1;
  int splits = 1;

  TCGEMM_SCHED_FN int unit_rows() const { return (tiles_m + cluster_m - 1) / cluster_m; }
  TCGEMM_SCHED_FN int64_t units_per_matrix() const { return static_cast<int64_t>(unit_rows()) * tiles_n; }
  TCGEMM_SCHED_FN int64_t units() const { return units_per_matrix() * batches * splits; }

  // The tile that cluster rank `rank` computes for work unit `unit`.
  TCGEMM_SCHED_FN TileCoord tile(int64_t unit, int rank) const {
    const TileCoord u = raster_grouped(unit % units_per_matrix(), unit_rows(), tiles_n, group);
    return {u.m * cluster_m + rank, u.n};
  }
  TCGEMM_SCHED_FN WorkUnit work(int64_t unit, int rank) const {
    const int64_t copy = unit / units_per_matrix();
    return {tile(unit, rank), static_cast<int>(copy / splits), static_cast<int>(copy % splits)};
  }
  TCGEMM_SCHED_FN bool tile_valid(const TileCoord& t) const { return t.m < tiles_m && t.n < tiles_n; }

  // K tiles [*begin, *end) of K slice `split` of k_tiles: near-equal parts,
  // none empty when splits <= k_tiles.
  TCGEMM_SCHED_FN void k_range(int k_tiles, int split, int* begin, int* end) const {
    *begin = static_cast<int>(static_cast<int64_t>(k_tiles) * split / splits);
    *end = static_cast<int>(static_cast<int64_t>(k_tiles) * (split + 1) / splits);
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
// Measured on the H200 (bench/NOTES.md): 4 slices of 32 K tiles turn the
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

}  // namespace tcgemm::sched
