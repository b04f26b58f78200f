// The stream-K scheduler (sched/stream_k.h), host only: every iteration of
// every tile exactly once, each tile's contributors and the order their
// partials are summed in, termination of the fix-up (an event-driven model
// of resident workers), the workspace and the plan.
#include <algorithm>
#include <vector>

#include "check.h"
#include "sched/stream_k.h"

using namespace tcgemm::sched;

struct Shape {
  int tiles_m, tiles_n, batches;
};

// Checks one schedule; returns the model's finishing time of the slowest
// worker (each unit costs its K tiles plus one, a partial's store or read
// one), or -1 when the model deadlocks.
static int64_t check_schedule(const StreamKSchedule& s) {
  SCOPED_CASE("tiles %dx%dx%d k %d workers %lld sk_tiles %lld sk_workers %lld", s.tiles_m, s.tiles_n, s.batches,
              s.k_tiles, (long long)s.workers, (long long)s.sk_tiles, (long long)s.sk_workers);
  const int64_t T = s.tiles(), W = s.workers, K = s.k_tiles;
  std::vector<int> seen(static_cast<size_t>(T * K), 0);
  std::vector<int64_t> id_of(static_cast<size_t>(T), -1);  // tile id -> coordinate key, consistent
  // Per streamed tile: (k_begin, k_end, worker) of its contributions.
  struct Piece {
    int k_begin, k_end;
    int64_t worker;
    int64_t unit;
  };
  std::vector<std::vector<Piece>> pieces(static_cast<size_t>(s.sk_tiles));
  std::vector<std::vector<StreamKUnit>> units(static_cast<size_t>(W));
  bool in_range = true, ordered = true, one_partial = true;
  int64_t most_iters = -1, least_iters = -1;
  for (int64_t b = 0; b < W; ++b) {
    const int64_t n = s.units(b);
    bool dp_seen = false;
    int64_t iters = 0;
    for (int64_t j = 0; j < n; ++j) {
      const StreamKUnit u = s.unit(b, j);
      units[static_cast<size_t>(b)].push_back(u);
      if (u.tile.m < 0 || u.tile.m >= s.tiles_m || u.tile.n < 0 || u.tile.n >= s.tiles_n || u.batch < 0 ||
          u.batch >= s.batches || u.tile_id < 0 || u.tile_id >= T || u.k_begin < 0 || u.k_end > K ||
          u.k_begin >= u.k_end) {
        in_range = false;
        continue;
      }
      const int64_t key = (static_cast<int64_t>(u.batch) * s.tiles_m + u.tile.m) * s.tiles_n + u.tile.n;
      int64_t& id = id_of[static_cast<size_t>(u.tile_id)];
      if (id >= 0 && id != key) in_range = false;
      id = key;
      for (int k = u.k_begin; k < u.k_end; ++k) ++seen[static_cast<size_t>(key * K + k)];
      if (u.streamed) {
        if (dp_seen) ordered = false;  // stream-K units first
        if (u.tile_id < s.dp_tiles()) in_range = false;
        // Decreasing iteration: only the first unit ends inside a tile, only
        // the last starts inside one.
        if (u.k_end < K && j != 0) one_partial = false;
        if (u.k_begin > 0 && j != s.sk_units(b) - 1) one_partial = false;
        pieces[static_cast<size_t>(u.tile_id - s.dp_tiles())].push_back({u.k_begin, u.k_end, b, j});
        iters += u.k_end - u.k_begin;
      } else {
        dp_seen = true;
        if (u.k_begin != 0 || u.k_end != K || u.tile_id >= s.dp_tiles()) in_range = false;
      }
    }
    if (b < s.sk_workers) {
      if (iters != s.iter_begin(b + 1) - s.iter_begin(b)) ordered = false;
      most_iters = std::max(most_iters, iters);
      least_iters = least_iters < 0 ? iters : std::min(least_iters, iters);
    }
  }
  CHECK_MSG(in_range, "a unit outside the problem, or a tile id with two coordinates");
  CHECK_MSG(ordered, "a worker's units out of order, or its range not its iterations");
  CHECK_MSG(one_partial, "a unit other than a worker's first ends inside a tile (or not last starts inside one)");
  CHECK_MSG(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }),
            "an iteration computed other than once");
  CHECK_MSG(s.sk_workers == 0 || most_iters - least_iters <= 1, "stream-K ranges not balanced");

  // Contributors: peers(s) are exactly the workers with a piece of the tile,
  // in increasing K and increasing worker number, the first from K tile 0.
  // Pieces arrive by worker, and a worker's units by decreasing tile: sort.
  bool peers_ok = true;
  for (int64_t t = 0; t < s.sk_tiles; ++t) {
    auto& ps = pieces[static_cast<size_t>(t)];
    std::sort(ps.begin(), ps.end(), [](const Piece& x, const Piece& y) { return x.k_begin < y.k_begin; });
    const StreamKPeers pr = s.peers(t);
    if (ps.empty() || pr.last - pr.first + 1 != static_cast<int64_t>(ps.size())) { peers_ok = false; continue; }
    int next_k = 0;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (ps[i].worker != pr.first + static_cast<int64_t>(i) || ps[i].k_begin != next_k) peers_ok = false;
      next_k = ps[i].k_end;
      // A split tile: the finisher's piece (the last K) is its last
      // stream-K unit, the others' are first units.
      if (ps.size() == 1) continue;
      const bool finisher = i + 1 == ps.size();
      if (finisher && ps[i].unit != s.sk_units(ps[i].worker) - 1) peers_ok = false;
      if (finisher && (s.finisher_peers(ps[i].worker).first != pr.first || s.finisher_peers(ps[i].worker).last != pr.last))
        peers_ok = false;
      if (!finisher && ps[i].unit != 0) peers_ok = false;
    }
    if (next_k != K) peers_ok = false;
  }
  CHECK_MSG(peers_ok, "a tile's contributors or their sum order wrong");

  // The model: each worker runs its units in order, all at once (resident).
  // A unit that does not finish its tile (k_end < k_tiles) publishes its
  // partial when done; a unit that finishes a split tile waits until every
  // lower contributor has published, then adds their partials in decreasing K.
  std::vector<int64_t> clock(static_cast<size_t>(W), 0), next(static_cast<size_t>(W), 0);
  std::vector<int64_t> published(static_cast<size_t>(W), -1);  // worker -> time its partial is out
  bool progress = true, order_ok = true;
  while (progress) {
    progress = false;
    for (int64_t b = 0; b < W; ++b) {
      auto& us = units[static_cast<size_t>(b)];
      while (next[static_cast<size_t>(b)] < static_cast<int64_t>(us.size())) {
        const StreamKUnit& u = us[static_cast<size_t>(next[static_cast<size_t>(b)])];
        int64_t t = clock[static_cast<size_t>(b)] + (u.k_end - u.k_begin) + 1;
        if (u.streamed && s.split(u)) {
          const int64_t tile = u.tile_id - s.dp_tiles();
          if (!s.finishes(u)) {
            published[static_cast<size_t>(b)] = t + 1;
            t += 1;
          } else {
            const StreamKPeers pr = s.peers(tile);
            if (pr.last != b) order_ok = false;
            bool ready = true;
            int64_t k_summed = u.k_begin;  // the sum so far covers K tiles [k_summed, K)
            for (int64_t v = pr.last - 1; v >= pr.first; --v) {
              if (v >= b || published[static_cast<size_t>(v)] < 0) { ready = false; break; }
              t = std::max(t, published[static_cast<size_t>(v)]) + 1;
              // Sum order: peer v's piece ends where the sum so far begins.
              if (s.unit(v, 0).k_end != k_summed) order_ok = false;
              k_summed = s.unit(v, 0).k_begin;
            }
            if (!ready) break;  // blocked: try again after the others move
            if (k_summed != 0) order_ok = false;
          }
        }
        clock[static_cast<size_t>(b)] = t;
        ++next[static_cast<size_t>(b)];
        progress = true;
      }
    }
  }
  bool done = true;
  for (int64_t b = 0; b < W; ++b) done &= next[static_cast<size_t>(b)] == static_cast<int64_t>(units[static_cast<size_t>(b)].size());
  CHECK_MSG(done, "the fix-up deadlocks: a worker waits for ever");
  CHECK_MSG(order_ok, "a finisher sums its peers out of K order, or waits on a higher worker");
  return done ? *std::max_element(clock.begin(), clock.end()) : -1;
}

static void check_workspace(const StreamKSchedule& s) {
  const int64_t tile_bytes = 128 * 256 * 4;
  const int64_t bytes = s.workspace_bytes(tile_bytes);
  if (s.sk_tiles == 0) {
    CHECK(bytes == 0);
    return;
  }
  CHECK(s.flag_bytes() % 256 == 0 && s.flag_bytes() >= 4 * s.sk_workers);
  CHECK(bytes == s.flag_bytes() + s.sk_workers * tile_bytes);
  CHECK(s.flag_bytes(2) % 256 == 0 && s.flag_bytes(2) >= 8 * s.sk_workers);
  CHECK(s.workspace_bytes(tile_bytes, 2) == s.flag_bytes(2) + s.sk_workers * tile_bytes);
}

int main() {
  const Shape shapes[] = {{1, 1, 1}, {7, 1, 1}, {127, 1, 1}, {3, 43, 1}, {10, 25, 4}};
  const int ks[] = {1, 2, 63, 64, 1000};
  const int64_t grids[] = {1, 7, 66, 114, 132};
  int schedules = 0;
  for (const Shape& sh : shapes)
    for (int k : ks)
      for (int64_t w : grids) {
        StreamKSchedule base{sh.tiles_m, sh.tiles_n, 8, sh.batches, k, w};
        // The plan: whole waves data-parallel, ranges at least kMinStreamKIters deep.
        const StreamKSchedule plan = plan_stream_k(base);
        {
          SCOPED_CASE("plan tiles %lld k %d workers %lld", (long long)plan.tiles(), k, (long long)w);
          CHECK(plan.dp_tiles() % w == 0 || plan.sk_tiles == 0);
          CHECK(plan.sk_workers <= w);
          CHECK(plan.sk_tiles == 0 || plan.sk_iters() / plan.sk_workers >= kMinStreamKIters);
          CHECK(stream_k_cost(plan) <= stream_k_cost(base));
        }
        check_schedule(plan);
        check_workspace(plan);
        ++schedules;
        // Forced streaming, so that every shape takes the stream-K paths:
        // the remainder, the remainder and one wave, every tile; over all
        // workers and over half of them.
        const int64_t T = base.tiles(), rem = T % w;
        for (int64_t sk : {rem, rem + w, T}) {
          if (sk < 1 || sk > T) continue;
          for (int64_t sw : {w, (w + 1) / 2}) {
            StreamKSchedule f = base;
            f.sk_tiles = sk;
            f.sk_workers = std::min<int64_t>(sw, sk * k);
            check_schedule(f);
            check_workspace(f);
            ++schedules;
          }
        }
      }

  // The shapes of the GPU test, 128x256 tiles of 64 K on 132 SMs: the short
  // last wave is streamed, and the model beats the whole tiles.
  struct Known {
    int M, N, K;
  };
  for (const Known& kn : {Known{129, 1000, 4104}, Known{2384, 1792, 4096}, Known{600, 752, 4832}}) {
    SCOPED_CASE("%dx%dx%d on 132", kn.M, kn.N, kn.K);
    StreamKSchedule s{(kn.M + 127) / 128, (kn.N + 255) / 256, 8, 1, (kn.K + 63) / 64, 132};
    const StreamKSchedule p = plan_stream_k(s);
    CHECK(p.sk_tiles > 0);
    CHECK(stream_k_cost(p) < stream_k_cost(s));
    CHECK(check_schedule(p) > 0);
  }
  // 129 x 1000 x 4104: 8 tiles of 65 K tiles, no full wave; each tile over
  // several workers (fewer than 16: the finisher reads their partials one by one).
  {
    const StreamKSchedule p = plan_stream_k(StreamKSchedule{2, 4, 8, 1, 65, 132});
    CHECK(p.sk_tiles == 8 && p.sk_workers > 8 && p.sk_workers < 8 * 16);
  }
  // 2384 x 1792 x 4096: 133 tiles, one past a wave: the last full wave and
  // the one tile streamed together, every worker a range of about one tile.
  {
    const StreamKSchedule p = plan_stream_k(StreamKSchedule{19, 7, 8, 1, 64, 132});
    CHECK(p.sk_tiles == 133 && p.sk_workers == 132);
  }
  // A full last wave stays data-parallel; so do tiles too shallow to split.
  CHECK(plan_stream_k(StreamKSchedule{12, 11, 8, 1, 64, 132}).sk_tiles == 0);
  CHECK(plan_stream_k(StreamKSchedule{7, 1, 8, 1, 2, 132}).sk_tiles == 0);
  // The workspace of a full grid: 132 flags in 768 bytes, then 132 partial tiles.
  {
    StreamKSchedule s{1, 1, 8, 1, 1000, 132};
    s.sk_tiles = 1, s.sk_workers = 132;
    CHECK(s.workspace_bytes(128 * 256 * 4) == 768 + 132 * 131072);
  }
  std::printf("%d schedules\n", schedules);
  return finish("test_stream_k");
}
