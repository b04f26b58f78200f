// The warp-specialized Hopper kernel with the stream-K tile scheduler
// (Schedule::stream_k): ws_kernel.cuh's producer and consumers
// (mainloop_ws.cuh) walking a worker's units of sched::StreamKSchedule --
// its stream-K units (tile, K range), then its whole tiles. A finished tile
// leaves through the TMA-store epilogue (epilogue_tma_store.cuh); a unit
// that ends inside its tile's K publishes its partial, and the unit that
// finishes a split tile first adds its peers' (epilogue_stream_k.cuh).
// Cooperative consumers, no cluster: every worker is one CTA, and the grid
// never exceeds the CTAs resident at once (launch_ws.cuh), which the
// fix-up's waits need (sched/stream_k.h says why they end).
#pragma once
#include "ptx/tma.h"
#include "ptx/warpgroup.h"
#include "sched/pipeline.h"
#include "sched/stream_k.h"
#include "sm90/common.cuh"
#include "sm90/epilogue_stream_k.cuh"
#include "sm90/epilogue_tma_store.cuh"
#include "sm90/mainloop_ws.cuh"
#include "sm90/ws_config.cuh"

namespace tcgemm::sm90 {

// The schedule of a launch: the problem's tiles, the plan's streamed tiles
// and workers (Params), the grid's workers. The host builds the same one.
template <class Cfg>
TCGEMM_SCHED_FN sched::StreamKSchedule stream_k_schedule(const Params& p, int64_t workers) {
  sched::StreamKSchedule s{p.tiles_m, p.tiles_n, p.grouped ? Cfg::GROUP : 1, p.batches, (p.K + BK - 1) / BK, workers};
  s.sk_tiles = p.sk_tiles, s.sk_workers = p.sk_workers;
  return s;
}

template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_streamk_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, const Params p) {
#if TCGEMM_SM90_DEVICE
  static_assert(Cfg::STREAM_K, "a Schedule::stream_k configuration");
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = align_1024(ptx::smem_addr(smem));
  const uint32_t c_stage = base + STAGES * Cfg::STAGE_BYTES;  // TMA-store staging (C_BYTES)
  const uint32_t bias_slots = c_stage + Cfg::C_BYTES;         // BIAS_BYTES
  const sched::Pipeline<STAGES> pipe{bias_slots + Cfg::BIAS_BYTES};
  const int wg = threadIdx.x / kWarpgroup;
  const WsMainloop<Cfg, L> mainloop{base, pipe, 0, 0};
  const int64_t worker = blockIdx.x;
  const sched::StreamKSchedule sch = stream_k_schedule<Cfg>(p, gridDim.x);
  const int64_t units = sch.units(worker);

  if (threadIdx.x == 0) {
    mainloop.init_barriers();
    ptx::fence_mbarrier_init();
  }
  __syncthreads();

  if (wg == 0) {
    // ---- producer warpgroup: one thread issues every TMA load.
    ptx::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensormap(&map_a);
      ptx::prefetch_tensormap(&map_b);
      sched::PipeState<STAGES> st;
      for (int64_t j = 0; j < units; ++j) {
        const sched::StreamKUnit u = sch.unit(worker, j);
        for (int kt = u.k_begin; kt < u.k_end; ++kt) {
          mainloop.load(st, &map_a, &map_b, p, u.batch, kt, u.tile.m * BM, u.tile.n * BN);
          st.advance();
        }
      }
    }
  } else {
    // ---- consumer warpgroups: rows cw*64 .. cw*64+63 of every unit's tile.
    ptx::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    const int cw = wg - 1;
    const int row0 = cw * 64;
    const bool leader = threadIdx.x % 32 == 0;
    const StreamKFixup<Cfg> fixup{p};
    sched::PipeState<STAGES> st, prev;
    for (int64_t j = 0; j < units; ++j) {
      const sched::StreamKUnit u = sch.unit(worker, j);
      const sched::TileCoord t = u.tile;
      const bool split = sch.split(u), finishes = sch.finishes(u);
      BiasHeld<BN> bias = {};
      if (finishes && p.ep.bias && is_bias_act_form(p.ep))
        bias = load_bias_held<BN>(p.ep, static_cast<int64_t>(t.n) * BN, p.N);

      // ---- mainloop (ws_kernel.cuh's): one wgmma group in flight.
      float acc[1][BN / 2];
#pragma unroll
      for (auto& v : acc[0]) v = 0.f;
      for (int kt = u.k_begin; kt < u.k_end; ++kt) {  // never empty: a unit holds at least one K tile
        mainloop.template mma<DT, 1>(acc, st, row0);
        if (kt > u.k_begin) {
          ptx::wgmma_wait_group<1>();
          mainloop.release(prev, leader);
        }
        prev = st;
        st.advance();
      }
      ptx::wgmma_wait_group<0>();
      mainloop.release(prev, leader);

      // ---- epilogue: a partial out, or the peers' partials in, then the tile.
      if (split && !finishes) {
        fixup.publish(worker, cw, acc[0]);
        continue;
      }
      if (split) {
        // (From the worker's range, not the unit's tile id: that keeps the
        // tile count out of the registers across the loop -- 0 spills.)
        const sched::StreamKPeers peers = sch.finisher_peers(worker);
        fixup.add_peers(peers.first, peers.last, cw, acc[0]);
      }
      store_accumulators_tma<DT, BN>(p, &map_c, c_stage + cw * 2 * Cfg::C_BOX_BYTES, bias_slots + cw * 64 * 4, bias,
                                     cw, t.m * BM + row0, t.n * BN, u.batch, acc[0]);
    }
    // The last stores must have read their staging buffer before the CTA's
    // shared memory goes away.
    if (threadIdx.x % kWarpgroup == 0) ptx::bulk_wait_group<0>();
  }
#endif
}

}  // namespace tcgemm::sm90
