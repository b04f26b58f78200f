// Tile rasters (cpp/src/sched/raster.h): every tile exactly once, any grid.
#include <vector>

#include "check.h"
#include "sched/raster.h"

using namespace tcgemm::sched;

static void covers_each_tile_once(int tiles_m, int tiles_n, bool grouped, int group) {
  SCOPED_CASE("tiles %dx%d grouped=%d group=%d", tiles_m, tiles_n, grouped, group);
  std::vector<int> seen(static_cast<size_t>(tiles_m) * tiles_n, 0);
  bool in_range = true;
  for (int64_t id = 0; id < static_cast<int64_t>(tiles_m) * tiles_n; ++id) {
    TileCoord t = raster(id, tiles_m, tiles_n, grouped, group);
    if (t.m < 0 || t.m >= tiles_m || t.n < 0 || t.n >= tiles_n) { in_range = false; continue; }
    ++seen[static_cast<size_t>(t.m) * tiles_n + t.n];
  }
  bool once = true;
  for (int s : seen) once &= (s == 1);
  CHECK_MSG(in_range, "a tile outside the grid");
  CHECK_MSG(once, "a tile walked other than once");
}

int main() {
  const int sizes[] = {1, 2, 3, 7, 8, 9, 16, 31, 64, 129};
  for (int tm : sizes)
    for (int tn : sizes) {
      covers_each_tile_once(tm, tn, false, 1);
      for (int g : {1, 2, 3, 8, 16, 200}) covers_each_tile_once(tm, tn, true, g);
    }
  // The grouped order walks down M first inside a group of 8 tile rows.
  TileCoord t0 = raster_grouped(0, 32, 32, 8), t1 = raster_grouped(1, 32, 32, 8), t8 = raster_grouped(8, 32, 32, 8);
  CHECK(t0.m == 0 && t0.n == 0);
  CHECK(t1.m == 1 && t1.n == 0);
  CHECK(t8.m == 0 && t8.n == 1);
  // The last, partial group (rows 8..9 of 10) still walks M first.
  TileCoord p = raster_grouped(8 * 4 + 1, 10, 4, 8);
  CHECK(p.m == 9 && p.n == 0);
  // Row-major: consecutive ids walk along N.
  TileCoord r = raster_row_major(5, 3, 4);
  CHECK(r.m == 1 && r.n == 1);
  return finish("test_sched");
}
