// The warp-specialized Hopper kernel, assembled from its parts: one producer
// warpgroup issues the TMA loads, one or two consumer warpgroups issue wgmma
// (mainloop_ws.cuh); a tile scheduler hands out the work units
// (sched/persistent.h); the finished tile leaves through one epilogue part
// (epilogue_direct.cuh, epilogue_tma_store.cuh, epilogue_partials.cuh,
// epilogue_cluster_split.cuh). The configuration (ws_config.cuh) chooses
// the parts; each registry entry (ws*.cu) names one or a few
// configurations, and the host launch is launch_ws.cuh.
// setmaxnreg moves registers from the producer (40) to the consumers (232).
// Batches are a dimension of the work-unit space (sched/persistent.h) and
// the batch coordinate of the 3-D tensor maps.
//
// The kernel's template parameter is a type (WsTraits<config>), not the
// WsConfig value itself: nvcc 13.0's host stub for a __global__ template
// cannot spell a class-type non-type argument (the generated stub names the
// struct by its mangled name and fails to compile).
//
// The body is one device function; ws_kernel and ws_scaled_kernel are its
// two entry points, which differ only in their parameter block (FP8
// configurations also take the dequantization scales: ScaledParams).
#pragma once
#include "ptx/cluster.h"
#include "ptx/tma.h"
#include "ptx/warpgroup.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "sm90/common.cuh"
#include "sm90/epilogue_cluster_split.cuh"
#include "sm90/epilogue_direct.cuh"
#include "sm90/epilogue_partials.cuh"
#include "sm90/epilogue_scales.cuh"
#include "sm90/epilogue_tma_store.cuh"
#include "sm90/mainloop_ws.cuh"
#include "sm90/ws_config.cuh"

namespace tcgemm::sm90 {

// DT: the operands' and C's type; with an FP8 configuration C's type only.
// P: Params, or ScaledParams for an FP8 configuration.
template <class Cfg, DType DT, Layout L, class P>
__device__ __forceinline__ void ws_body(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_c,
                                        const P& p) {
#if TCGEMM_SM90_DEVICE
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES, CLUSTER = Cfg::CLUSTER, CTAS = Cfg::CTAS;
  // ---- prologue: shared memory, cluster place, schedule, barriers.
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = align_1024(ptx::smem_addr(smem));
  const uint32_t c_stage = base + STAGES * Cfg::STAGE_BYTES;  // TMA-store staging (C_BYTES)
  const uint32_t bias_slots = c_stage + Cfg::C_BYTES;         // BIAS_BYTES
  const uint32_t red = bias_slots + Cfg::BIAS_BYTES;          // RED_BYTES (cluster split)
  const sched::Pipeline<STAGES> pipe{red + Cfg::RED_BYTES};
  const uint32_t red_ready = red + Cfg::RED_BYTES + sched::Pipeline<STAGES>::kBarrierBytes, red_free = red_ready + 8;

  const int wg = threadIdx.x / kWarpgroup;
  const uint32_t rank = CTAS > 1 ? ptx::cluster_ctarank() : 0;
  const int rm = rank % CLUSTER, rn = rank / CLUSTER;  // this CTA's place in the cluster (along M, along N)
  const WsMainloop<Cfg, L> mainloop{base, pipe, rm, rn};
  // Cluster split: the cluster's size is the number of K slices, its rank this CTA's slice.
  const uint32_t slices = Cfg::CLUSTER_SPLIT ? ptx::cluster_nctarank() : 1;
  const uint32_t krank = Cfg::CLUSTER_SPLIT ? ptx::cluster_ctarank() : 0;
  const sched::PersistentSchedule sch{p.tiles_m, p.tiles_n, p.grouped ? Cfg::GROUP : 1, CLUSTER,
                                      p.batches, Cfg::CLUSTER_SPLIT ? 1 : p.splits,  p.dp_rows, Cfg::CLUSTER_N};
  // A worker is a CTA, or a cluster (whose CTAs have consecutive blockIdx.x).
  const int64_t cluster_ctas = Cfg::CLUSTER_SPLIT ? slices : CTAS;
  const int64_t worker = blockIdx.x / cluster_ctas, workers = gridDim.x / cluster_ctas;
  const int64_t units = sch.units();
  const int k_tiles = (p.K + Cfg::K_STAGE - 1) / Cfg::K_STAGE;
  auto k_range = [&](const sched::WorkUnit& w, int* begin, int* end) {
    if constexpr (Cfg::CLUSTER_SPLIT)
      sched::k_slice(k_tiles, static_cast<int>(krank), static_cast<int>(slices), begin, end);
    else
      sch.k_range(k_tiles, w.split, begin, end);
  };

  if (threadIdx.x == 0) {
    mainloop.init_barriers();
    if constexpr (Cfg::CLUSTER_SPLIT) {
      constexpr uint32_t kConsumerThreads = Cfg::CONSUMERS * kWarpgroup;
      ptx::mbarrier_init(red_ready, slices > 1 ? (slices - 1) * kConsumerThreads : 1);  // every peer consumer thread
      ptx::mbarrier_init(red_free, kConsumerThreads);                                  // every rank-0 consumer thread
    }
    ptx::fence_mbarrier_init();
  }
  // The barriers are initialised before anyone (in the cluster) uses them.
  if constexpr (CTAS > 1 || Cfg::CLUSTER_SPLIT) ptx::cluster_sync();
  else __syncthreads();

  if (wg == 0) {
    // ---- producer warpgroup: one thread issues every TMA load.
    ptx::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensormap(&map_a);
      ptx::prefetch_tensormap(&map_b);
      sched::PipeState<STAGES> st;
      for (int64_t u = sch.first(worker); u < units; u = sch.next(u, workers)) {
        const sched::WorkUnit w = sch.work(u, rank);
        const int m0 = w.tile.m * BM, n0 = w.tile.n * BN;
        int kt_begin, kt_end;
        k_range(w, &kt_begin, &kt_end);
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mainloop.load(st, &map_a, &map_b, p, w.batch, kt, m0, n0);
          st.advance();
        }
      }
    }
    __syncwarp();  // reconverge warp 0 before the aligned cluster barrier below
  } else {
    // ---- consumer warpgroups: rows cw*64 .. cw*64+63 of every tile, or
    // (ping-pong) every other tile whole.
    ptx::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    constexpr int MB = Cfg::M_BLOCKS;
    const int cw = wg - 1;
    const int row0 = Cfg::PINGPONG ? 0 : cw * 64;  // this warpgroup's first row in the tile
    const bool leader = threadIdx.x % 32 == 0;
    auto release = [&](const sched::PipeState<STAGES>& s) { mainloop.release(s, leader); };
    sched::PipeState<STAGES> st, prev;
    int64_t mine = 0;  // units this worker has walked: ping-pong gives unit i to consumer i % 2
    for (int64_t u = sch.first(worker); u < units; u = sch.next(u, workers), ++mine) {
      const sched::WorkUnit w = sch.work(u, rank);
      const sched::TileCoord t = w.tile;
      int kt_begin, kt_end;  // never empty: the host keeps splits <= k_tiles
      k_range(w, &kt_begin, &kt_end);
      // Ping-pong: the slots of a tile are read by one warpgroup; the other
      // steps its pipeline state past them (PipeState::advanced) without
      // waiting -- but may not wait on its own tile's slots before the other
      // has seen every fill of the tile before: a parity wait only tells the
      // next phase of a barrier from the one before it, and a state stepped
      // past phases that have not happened yet would read a stale slot. So
      // the mainloops take turns (two named barriers, as CUTLASS's ping-pong
      // orders its math warpgroups); the epilogues are free to overlap.
      // Named barrier kTurn + c is "consumer c may start its mainloop"
      // (bar.sync by c, bar.arrive by the other when its mainloop has waited
      // on every slot of its tile, only if a next unit exists).
      constexpr uint32_t kTurn = 3;  // 0: __syncthreads, 1-2: the epilogue barriers of the consumers
      const bool has_next = sch.next(u, workers) < units;
      if constexpr (Cfg::PINGPONG) {
        if ((mine & 1) != cw) {  // the other consumer's tile: its slots go by unread
          st = st.advanced(kt_end - kt_begin);
          continue;
        }
        if (mine > 0) ptx::named_barrier_sync(kTurn + cw, 2 * kWarpgroup);
      }
      // The tile's bias for a bias-only epilogue, loaded now so that its
      // latency hides behind the mainloop (a uniform branch per tile).
      BiasHeld<BN> bias = {};
      // The tile goes out as an fp32 partial: always with swap-AB (the
      // reduction transposes it), else when its K is split.
      const bool partial = !Cfg::CLUSTER_SPLIT && (Cfg::SWAP_AB || (Cfg::SPLIT_K && sch.partial(w)));
      if (Cfg::TMA_STORE && !partial && p.ep.bias && is_bias_act_form(p.ep))
        bias = load_bias_held<BN>(p.ep, static_cast<int64_t>(t.n) * BN, p.N);

      // ---- mainloop: one wgmma group in flight -- after issuing K slice kt
      // the consumer waits for slice kt-1 and frees that slot, so the tensor
      // cores never wait for the release.
      float acc[MB][BN / 2];
#pragma unroll
      for (auto& block : acc)
#pragma unroll
        for (auto& v : block) v = 0.f;
      if constexpr (Cfg::BLOCK_SCALES) {
        // Block scales: a stage is one 128-K block. Its wgmmas start a fresh
        // fp32 sum (scale-d = 0), waited on at once; the sum is scaled and
        // added to acc in fp32 (promote). The other consumer warpgroup's
        // wgmmas keep the tensor cores busy meanwhile.
        static_assert(MB == 1, "block scales: one m64 row block per consumer");
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          const BlockScales f = load_block_scales(p.scales, t.m * BM + row0, t.n, kt, p.M);
          float part[1][BN / 2];
          mainloop.template mma<DT, 1, true>(part, st, row0);
          ptx::wgmma_wait_group<0>();
          release(st);
          promote<BN>(acc[0], part[0], f);
          st.advance();
        }
      } else {
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mainloop.template mma<DT, MB>(acc, st, row0);
          if (kt > kt_begin) {
            ptx::wgmma_wait_group<1>();
            release(prev);
          }
          prev = st;
          st.advance();
        }
        if constexpr (Cfg::PINGPONG)
          if (has_next) ptx::named_barrier_arrive(kTurn + (cw ^ 1), 2 * kWarpgroup);
        ptx::wgmma_wait_group<0>();
        release(prev);
      }

      // ---- epilogue
      if constexpr (Cfg::CLUSTER_SPLIT) {
        cluster_split_store<DT, BM, BN, Cfg::SWAP_AB>(p, red, red_ready, red_free, slices, krank,
                                                      static_cast<uint32_t>(mine & 1), t, w.batch, acc[0]);
      } else {
#pragma unroll
        for (int mb = 0; mb < MB; ++mb) {
          const int m0 = t.m * BM + row0 + mb * 64;
          if (partial) {
            store_partials<BN>(p, m0, t.n * BN, w.batch, w.split, acc[mb]);
          } else if constexpr (Cfg::TMA_STORE) {
            store_accumulators_tma<DT, BN>(p, &map_c, c_stage + cw * 2 * Cfg::C_BOX_BYTES, bias_slots + cw * 64 * 4,
                                           bias, cw, m0, t.n * BN, w.batch, acc[mb]);
          } else {
            if constexpr (Cfg::EPILOGUE_SCALES) scale_accumulators<BN>(p.scales, m0, t.n * BN, p.M, p.N, acc[mb]);
            store_accumulators<DT, BN>(p, m0, t.n * BN, w.batch, acc[mb]);
          }
        }
      }
    }
    // The last stores must have read their staging buffer before the CTA's
    // shared memory goes away.
    if constexpr (Cfg::TMA_STORE)
      if (threadIdx.x % kWarpgroup == 0) ptx::bulk_wait_group<0>();
  }
  // No CTA may exit while its peer can still multicast into it, arrive on
  // its barriers or read its shared memory.
  if constexpr (CTAS > 1 || Cfg::CLUSTER_SPLIT) ptx::cluster_sync();
#endif
}

template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const Params p) {
  ws_body<Cfg, DT, L>(map_a, map_b, map_c, p);
}

template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_scaled_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, const ScaledParams p) {
  ws_body<Cfg, DT, L>(map_a, map_b, map_c, p);
}

}  // namespace tcgemm::sm90
