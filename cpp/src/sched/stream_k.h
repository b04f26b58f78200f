// Stream-K tile scheduler: a persistent grid of `workers` CTAs, all resident
// at once, shares the MAC-loop iterations (tiles x K tiles) so that no SM
// idles through a short last wave. Hybrid "data-parallel + stream-K": the
// first dp_tiles() tiles (a whole number of waves) are computed whole, one
// wave per round, and only the last sk_tiles tiles are streamed: their
// sk_tiles * k_tiles iterations, numbered tile by tile (iteration i is K tile
// i % k_tiles of streamed tile i / k_tiles), are cut into sk_workers
// contiguous ranges of near-equal length, one per worker 0 .. sk_workers-1.
// A range cut at tile boundaries gives the worker's stream-K units
// (tile, k_begin, k_end); it computes them first, in decreasing iteration
// (the K tiles within a unit still in increasing K), then its whole tiles.
//
// The fix-up, and why it cannot deadlock. Only the highest unit of a range
// can end inside a tile (k_end < k_tiles), only the lowest can start inside
// one. The worker whose range holds a tile's last K tile finishes it: that
// piece, K tiles [b, k_tiles), is the lowest unit of its range, so it runs
// last of its stream-K units; then it adds the partials of the tile's other
// contributors -- workers last-1, ..., first, each of which computed its
// piece as the highest unit of its range, so first of all -- in decreasing
// K, and stores the tile through the epilogue. A contributor that does not
// finish the tile (k_end < k_tiles) writes its fp32 accumulators to its own
// workspace slot (one per worker: it has at most one such unit) and
// publishes a flag; it never waits. So a wait is only ever by a worker's
// last stream-K unit on a lower-numbered worker's first unit, which waits on
// nothing: with every worker resident, every wait ends -- and since the
// waits point to lower block indices, also when the blocks are dispatched
// in order and only some are resident (another kernel holding SMs). The sum
// order depends only on (shape, k_tiles, workers): bit-identical results
// from one call to the next.
//
// Pure host/device functions: tests/cpp/test_stream_k.cpp checks coverage,
// contributors, the sum order and termination (an event-driven model of the
// workers) for many shapes and grids.
#pragma once
#include <cstdint>

#include "sched/raster.h"

namespace tcgemm::sched {

// One unit of a worker: K tiles [k_begin, k_end) of a tile. `tile_id` is the
// tile's place in the tile order (batches outermost, the grouped raster
// within a batch), `streamed` whether it is one of the stream-K tiles.
struct StreamKUnit {
  TileCoord tile;
  int batch;
  int k_begin, k_end;
  int64_t tile_id;
  bool streamed;
};

// The contributors of a streamed tile: workers first .. last, in increasing
// K; `last` holds the last K tile, finishes the tile and sums the others'
// partials from last-1 down to first. first == last: one worker computes
// the whole tile.
struct StreamKPeers {
  int64_t first, last;
};

// The time model of the plan (below), in K tiles of one 128x256 tile on one
// SM, as the split tail's (persistent.h: kUnitCost, kPartialCost): a unit's
// pipeline fill and epilogue, and an fp32 partial tile written or read back.
// A streamed range is at least kMinStreamKIters deep, so that a worker's
// partial costs less than the iterations it takes off the others.
constexpr int kStreamKUnitCost = 1;
constexpr int kStreamKPartialCost = 4;
constexpr int kStreamKFixupCost = 4;
constexpr int kMinStreamKIters = 4;

struct StreamKSchedule {
  int tiles_m = 1, tiles_n = 1;
  int group = 8;  // tile rows per group of the grouped raster
  int batches = 1;
  int k_tiles = 1;
  int64_t workers = 1;     // CTAs of the grid, all resident
  int64_t sk_tiles = 0;    // the last tiles of the tile order, streamed (0: all data-parallel)
  int64_t sk_workers = 0;  // workers that share the streamed iterations: 0 .. sk_workers-1

  TCGEMM_SCHED_FN int64_t tiles_per_matrix() const { return static_cast<int64_t>(tiles_m) * tiles_n; }
  TCGEMM_SCHED_FN int64_t tiles() const { return tiles_per_matrix() * batches; }
  TCGEMM_SCHED_FN int64_t dp_tiles() const { return tiles() - sk_tiles; }
  TCGEMM_SCHED_FN int64_t sk_iters() const { return sk_tiles * k_tiles; }

  // Streamed iterations [iter_begin(b), iter_begin(b + 1)) of worker b
  // (none past sk_workers).
  TCGEMM_SCHED_FN int64_t iter_begin(int64_t b) const {
    if (b >= sk_workers) return sk_iters();
    return sk_iters() * b / sk_workers;
  }
  // The worker whose range holds streamed iteration i: the largest b with
  // iter_begin(b) <= i, i.e. b * I < (i + 1) * S.
  TCGEMM_SCHED_FN int64_t worker_of(int64_t i) const { return ((i + 1) * sk_workers - 1) / sk_iters(); }

  // Worker b's stream-K units: the streamed tiles its range touches.
  TCGEMM_SCHED_FN int64_t sk_units(int64_t b) const {
    const int64_t i0 = iter_begin(b), i1 = iter_begin(b + 1);
    return i1 > i0 ? (i1 - 1) / k_tiles - i0 / k_tiles + 1 : 0;
  }
  // Worker b's whole tiles: tiles b, b + workers, ... of the first dp_tiles().
  TCGEMM_SCHED_FN int64_t dp_units(int64_t b) const {
    const int64_t n = dp_tiles();
    return b < n ? (n - b + workers - 1) / workers : 0;
  }
  TCGEMM_SCHED_FN int64_t units(int64_t b) const { return sk_units(b) + dp_units(b); }

  TCGEMM_SCHED_FN StreamKUnit tile_unit(int64_t id, int k_begin, int k_end, bool streamed) const {
    const int64_t per = tiles_per_matrix();
    const TileCoord t = raster_grouped(id % per, tiles_m, tiles_n, group);
    return {t, static_cast<int>(id / per), k_begin, k_end, id, streamed};
  }

  // Unit j (0 .. units(b)-1) of worker b: its stream-K units first, in
  // decreasing iteration, then its whole tiles.
  TCGEMM_SCHED_FN StreamKUnit unit(int64_t b, int64_t j) const {
    const int64_t n = sk_units(b);
    if (j >= n) return tile_unit(b + (j - n) * workers, 0, k_tiles, false);
    const int64_t i0 = iter_begin(b), i1 = iter_begin(b + 1);
    const int64_t s = (i1 - 1) / k_tiles - j;  // streamed tile
    const int64_t lo = s * k_tiles > i0 ? s * k_tiles : i0;
    const int64_t hi = (s + 1) * k_tiles < i1 ? (s + 1) * k_tiles : i1;
    return tile_unit(dp_tiles() + s, static_cast<int>(lo - s * k_tiles), static_cast<int>(hi - s * k_tiles), true);
  }

  // The contributors of streamed tile s (0 .. sk_tiles-1).
  TCGEMM_SCHED_FN StreamKPeers peers(int64_t s) const {
    return {worker_of(s * k_tiles), worker_of((s + 1) * k_tiles - 1)};
  }
  // The contributors of the tile that worker b finishes with its last
  // stream-K unit (the tile of its lowest iteration, when b holds that
  // tile's last K tile): as peers(), from b's own range (no tile id).
  TCGEMM_SCHED_FN StreamKPeers finisher_peers(int64_t b) const {
    return {worker_of(iter_begin(b) / k_tiles * k_tiles), b};
  }
  // Of a unit: whether it finishes its tile (holds the last K tile) and
  // whether its tile has other contributors. A whole-tile unit does neither
  // fix-up step.
  TCGEMM_SCHED_FN bool finishes(const StreamKUnit& u) const { return u.k_end == k_tiles; }
  TCGEMM_SCHED_FN bool split(const StreamKUnit& u) const { return u.k_begin > 0 || u.k_end < k_tiles; }

  // Workspace: one fp32 partial tile of `tile_bytes` per stream-K worker
  // (slot b for worker b's first unit, its highest), after `flags` 4-byte flags per
  // worker (one per part of the tile that publishes on its own, e.g. per
  // consumer warpgroup), padded to 256 bytes so that the slots stay aligned.
  TCGEMM_SCHED_FN int64_t flag_bytes(int flags = 1) const {
    return sk_tiles > 0 ? (sk_workers * flags * 4 + 255) / 256 * 256 : 0;
  }
  TCGEMM_SCHED_FN int64_t workspace_bytes(int64_t tile_bytes, int flags = 1) const {
    return sk_tiles > 0 ? flag_bytes(flags) + sk_workers * tile_bytes : 0;
  }
};

// Cost (the model above) of the slowest worker of a plan. A worker computes
// its stream-K units, the fix-up of the tile its last one finishes (which
// starts once its own part is done and every lower contributor has
// published: those publish right after their first unit), then its whole
// tiles. O(sk_workers): each worker is a contributor of one tile at most
// whose fix-up another worker does.
TCGEMM_SCHED_FN int64_t stream_k_cost(const StreamKSchedule& s) {
  const int64_t dp_cost = static_cast<int64_t>(s.k_tiles) + kStreamKUnitCost;
  const int64_t k = s.k_tiles;
  // dp_tiles is a whole number of waves when streaming: worker sk_workers
  // has as many whole tiles as any.
  int64_t worst = s.dp_units(s.sk_workers < s.workers ? s.sk_workers : 0) * dp_cost;
  for (int64_t b = 0; b < s.sk_workers; ++b) {
    const int64_t i0 = s.iter_begin(b), i1 = s.iter_begin(b + 1);
    int64_t t = (i1 - i0) + s.sk_units(b) * kStreamKUnitCost;
    if (i1 > i0 && i1 % k != 0) t += kStreamKPartialCost;  // its first unit goes out as a partial
    const int64_t low = i0 / k;  // the tile of its lowest unit
    if (i1 > i0 && (low + 1) * k <= i1) {  // that unit holds the tile's last K tile: it finishes the tile
      const int64_t peer_first = s.peers(low).first;
      for (int64_t v = peer_first; v < b; ++v) {
        const int64_t v0 = s.iter_begin(v), v1 = s.iter_begin(v + 1);
        const int64_t start = (v1 - 1) / k * k > v0 ? (v1 - 1) / k * k : v0;
        const int64_t published = v1 - start + kStreamKUnitCost + kStreamKPartialCost;
        if (published > t) t = published;
      }
      t += (b - peer_first) * kStreamKFixupCost;
    }
    t += s.dp_units(b) * dp_cost;
    if (t > worst) worst = t;
  }
  return worst;
}

// The plan for `tiles` tiles (all batches) of k_tiles K tiles on `workers`
// resident CTAs: the cheapest (model above; ties go to fewer partials) of
//   - every tile whole;
//   - the last partial wave's tiles streamed, each over p = 2 .. 16 workers
//     (fewer contributors: fewer partials for the finishing worker to read
//     one after another), as far as the workers go and every range stays
//     kMinStreamKIters deep;
//   - with at least one full wave, the last full wave and the partial one
//     streamed over all workers (CUTLASS's "data-parallel + one stream-K
//     wave": ranges of one to two tiles, two or three contributors a tile
//     however few the remainder's tiles).
// Takes the shape and workers of `s`, returns it with sk_tiles and sk_workers.
constexpr int kMaxStreamKPieces = 16;
TCGEMM_SCHED_FN StreamKSchedule plan_stream_k(StreamKSchedule s) {
  s.sk_tiles = 0, s.sk_workers = 0;
  const int64_t tiles = s.tiles(), w = s.workers;
  if (w < 1 || tiles < 1 || s.k_tiles < 1) return s;
  const int64_t rem = tiles % w;
  if (rem == 0) return s;
  StreamKSchedule best = s;
  int64_t best_cost = stream_k_cost(s);
  auto consider = [&](int64_t sk_tiles, int64_t sk_workers) {
    const int64_t deep = sk_tiles * s.k_tiles / kMinStreamKIters;
    if (sk_workers > deep) sk_workers = deep;
    if (sk_workers > w) sk_workers = w;
    if (sk_workers < 1) return;
    StreamKSchedule c = s;
    c.sk_tiles = sk_tiles, c.sk_workers = sk_workers;
    const int64_t cost = stream_k_cost(c);
    if (cost < best_cost) best_cost = cost, best = c;
  };
  for (int p = 2; p <= kMaxStreamKPieces; ++p) consider(rem, rem * p);
  if (tiles > w) consider(rem + w, w);
  return best;
}

}  // namespace tcgemm::sched
