// Tile rasterisation: which output tile a block (or a persistent CTA's n-th
// work item) computes. Pure __host__ __device__ functions so that host tests
// can prove every tile is visited exactly once.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define TCGEMM_SCHED_FN __host__ __device__ __forceinline__
#else
#define TCGEMM_SCHED_FN inline
#endif

namespace tcgemm::sched {

struct TileCoord {
  int m;  // tile row    (0 .. tiles_m-1)
  int n;  // tile column (0 .. tiles_n-1)
};

// Row-major raster: consecutive blocks walk along N. Blocks running at the
// same time then share one A row-panel but touch many B column-panels.
TCGEMM_SCHED_FN TileCoord raster_row_major(int64_t id, int tiles_m, int tiles_n) {
  (void)tiles_m;
  return {static_cast<int>(id / tiles_n), static_cast<int>(id % tiles_n)};
}

// Grouped raster ("block swizzle"): blocks are taken in groups of `group`
// tile rows; inside a group they walk down M first, then along N. The blocks
// resident together then cover a group x (resident/group) square of C, so the
// A and B panels they read are re-used from L2 instead of re-fetched from HBM.
// A bijection on [0, tiles_m*tiles_n) for any group >= 1 (tests/cpp/test_sched).
TCGEMM_SCHED_FN TileCoord raster_grouped(int64_t id, int tiles_m, int tiles_n, int group) {
  const int64_t per_group = static_cast<int64_t>(group) * tiles_n;
  const int64_t g = id / per_group;
  const int first_m = static_cast<int>(g * group);
  const int rows = (tiles_m - first_m) < group ? (tiles_m - first_m) : group;
  const int64_t in_group = id % per_group;
  return {first_m + static_cast<int>(in_group % rows), static_cast<int>(in_group / rows)};
}

TCGEMM_SCHED_FN TileCoord raster(int64_t id, int tiles_m, int tiles_n, bool grouped, int group) {
  return grouped ? raster_grouped(id, tiles_m, tiles_n, group) : raster_row_major(id, tiles_m, tiles_n);
}

}  // namespace tcgemm::sched
