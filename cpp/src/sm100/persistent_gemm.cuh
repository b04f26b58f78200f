// The persistent 2-SM kernel of steps v6, v7 and v8 (seed 002, "persistent
// kernel: static scheduling", and past it). A grid of CTA pairs stays
// resident; each pair walks its work units (256 x 256 blocks of C) and, with
// two TMEM accumulators, the epilogue of one unit overlaps the mainloop of
// the next. Six warps, three roles, each looping over the same units:
//   warp 0 (lane 0)   TMA producer   smem ring: acquire(empty) -> expect/load(full)
//   warp 1 (lane 0)   MMA issuer     (even CTA) TMEM ring: acquire(tmem_empty);
//                                    per slice wait(full), MMAs, commit(empty);
//                                    commit(tmem_full)
//   warps 2..5        epilogue       wait(tmem_full) -> tcgen05.ld -> C ->
//                                    arrive(tmem_empty of the even CTA)
// The smem ring (sched/pipeline.h) and the TMEM ring (descriptors.h,
// tmem_accum_state) are walked with their own PipeState per role, carried
// across units. Which units a pair takes is the SCHED policy:
//   StaticSchedule (v6)  units c, c + G, c + 2G, ... (sched/persistent.h)
//   ClcSchedule    (v7)  Cluster Launch Control (sm100/clc.cuh)
// How the epilogue writes C is the EPI policy:
//   Epilogue::direct     (v6, v7)  registers -> clipped 16-byte global stores
//   Epilogue::tma_store  (v8)      registers -> swizzled shared staging (two
//                                  16 KB boxes) -> TMA store (kernel_common.cuh,
//                                  epilogue_store_tma)
#pragma once
#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "sm100/kernel_common.cuh"

namespace tcgemm::sm100 {

struct PersistentCfgBase {
  static constexpr int BN = 256, BN_HALF = 128, MMA_M = 2 * BM, BK = 64, STAGES = 6;
  static constexpr int THREADS = 192;  // TMA warp, MMA warp, 4 epilogue warps
  static constexpr int kEpilogueWarp0 = 2;
  static constexpr uint32_t kTmemCols = 2 * BN;  // two accumulators: all 512 columns
  static constexpr uint16_t kPairMask = 0b11;
};

enum class Epilogue : int { direct = 0, tma_store = 1 };

template <Layout LAYOUT, class SCHED, Epilogue EPI>
struct PersistentCfg : PersistentCfgBase {
  using ATile = OperandTile<Load::tma2d_128B, Major::K, BM, BK>;
  using BTile = OperandTile<Load::tma2d_128B, LAYOUT == Layout::TN ? Major::K : Major::MN, BN_HALF, BK>;
  static constexpr uint32_t kStageBytes = ATile::kBytes + BTile::kBytes;
  // Two TMA-store staging boxes (v8), 1024-byte aligned like the stages.
  static constexpr int kStaging = STAGES * kStageBytes;
  static constexpr int kStagingBytes = EPI == Epilogue::tma_store ? 2 * kStoreBoxBytes : 0;
  static constexpr int kBarOffset = kStaging + kStagingBytes;
  static_assert(kStaging % kSmemAlign == 0 && kStoreBoxBytes % kSmemAlign == 0,
                "staging boxes on 1024-byte boundaries: the 128B swizzle pattern restarts at each");
  // [stages][staging][smem ring barriers][tmem ring barriers (2 x full, empty)][TMEM address][scheduler]
  static constexpr int kTmemBars = kBarOffset + sched::Pipeline<STAGES>::kBarrierBytes;
  static constexpr int kTmemSlot = kTmemBars + sched::Pipeline<2>::kBarrierBytes;
  static constexpr int kSchedOffset = kTmemSlot + 16;
  static constexpr int kSmemBytes = kSmemAlign + kSchedOffset + SCHED::kSmemBytes;
  static_assert(valid_mma_shape(2, MMA_M, BN), "tcgen05.mma cta_group::2 shape");
  static_assert(kSmemBytes <= 227 * 1024, "fits one SM's shared memory");
};

// Static persistent schedule: pair c of G takes units c, c + G, ... It needs
// no shared state; every role computes the same sequence.
struct StaticSchedule {
  static constexpr int kSmemBytes = 0;
  struct Role {
    int64_t unit, stride, units;
    __device__ __forceinline__ bool valid() const { return unit < units; }
    __device__ __forceinline__ void advance() { unit += stride; }
  };
  __device__ __forceinline__ StaticSchedule(uint32_t /*smem*/, const sched::PersistentSchedule& s) : units(s.units()) {}
  __device__ __forceinline__ void init() const {}
  __device__ __forceinline__ Role role(int /*role*/) const {
    return Role{static_cast<int64_t>(blockIdx.x / 2), static_cast<int64_t>(gridDim.x / 2), units};
  }
  int64_t units;
};

// tma_c: the C store map (Epilogue::tma_store; unused otherwise).
template <Layout LAYOUT, class SCHED, Epilogue EPI>
__global__ void __launch_bounds__(PersistentCfgBase::THREADS, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                      const __grid_constant__ CUtensorMap tma_c, const Params p) {
#if TCGEMM_SM100_DEVICE
  using C = PersistentCfg<LAYOUT, SCHED, EPI>;
  constexpr int BK = C::BK, BN = C::BN, STAGES = C::STAGES;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = aligned_smem_base(smem_raw);
  const sched::Pipeline<STAGES> pipe{smem + C::kBarOffset};
  const sched::Pipeline<2> accum{smem + C::kTmemBars};  // full = accumulator ready, empty = drained
  const uint32_t tmem_slot = smem + C::kTmemSlot;
  auto a_tile = [&](int s) { return smem + s * C::kStageBytes; };
  auto b_tile = [&](int s) { return smem + s * C::kStageBytes + C::ATile::kBytes; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = ptx::cluster_ctarank();
  const bool leader = rank == 0;
  const sched::PersistentSchedule units = pair_schedule(p.tiles_m, p.tiles_n, p.group);
  SCHED work(smem + C::kSchedOffset, units);

  if (threadIdx.x == 0) {
    pipe.init(1, 1);
    // tmem_full: one multicast commit; tmem_empty (used in the leader): one
    // arrival per epilogue warp of both CTAs.
    accum.init(1, 2 * 4);
    work.init();
    ptx::fence_mbarrier_init();
    ptx::prefetch_tensormap(&tma_a);
    ptx::prefetch_tensormap(&tma_b);
    if constexpr (EPI == Epilogue::tma_store) ptx::prefetch_tensormap(&tma_c);
  } else if (warp == 1) {
    ptx::tcgen05_alloc<2>(tmem_slot, C::kTmemCols);
    ptx::tcgen05_relinquish_alloc_permit<2>();
  }
  ptx::tcgen05_fence_before_thread_sync();
  ptx::cluster_sync();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(smem_raw + (tmem_slot - ptx::smem_addr(smem_raw)));
  const int k_slices = (p.K + BK - 1) / BK;

  if (warp == 0) {
    // ---- TMA producer (both CTAs)
    if (lane == 0) {
      sched::PipeState<STAGES> st;
      for (auto w = work.role(0); w.valid(); w.advance()) {
        const sched::TileCoord t = units.tile(w.unit, static_cast<int>(rank));
        const int m0 = t.m * BM, b_n0 = t.n * BN + static_cast<int>(rank) * C::BN_HALF;
        for (int ks = 0; ks < k_slices; ++ks) {
          pipe.producer_acquire_cluster(st);
          const uint32_t full_leader = ptx::mapa_shared(pipe.full(st.stage), 0);
          if (leader) pipe.producer_expect(st, 2 * C::kStageBytes);
          C::ATile::load_pair(a_tile(st.stage), &tma_a, full_leader, m0, ks * BK);
          C::BTile::load_pair(b_tile(st.stage), &tma_b, full_leader, b_n0, ks * BK);
          st.advance();
        }
      }
    }
  } else if (warp == 1) {
    // ---- MMA issuer (even CTA); the odd CTA's MMA warp only follows the schedule.
    if (lane == 0) {
      sched::PipeState<STAGES> st;
      sched::PipeState<2> acc;  // tile t -> accumulator t % 2 (tmem_accum_state)
      for (auto w = work.role(1); w.valid(); w.advance()) {
        if (!leader) continue;
        ptx::mbarrier_wait_parity_cluster(accum.empty(acc.stage), acc.phase ^ 1u);  // drained by both epilogues
        ptx::tcgen05_fence_after_thread_sync();
        const uint32_t d = tmem + static_cast<uint32_t>(acc.stage * BN);
        for (int ks = 0; ks < k_slices; ++ks) {
          ptx::mbarrier_wait_parity_cluster(pipe.full(st.stage), st.phase);
          ptx::tcgen05_fence_after_thread_sync();
          mma_slice<2, typename C::ATile, typename C::BTile, BK>(d, a_tile(st.stage), b_tile(st.stage), p.idesc, ks > 0);
          ptx::tcgen05_commit_multicast<2>(pipe.empty(st.stage), C::kPairMask);
          st.advance();
        }
        ptx::tcgen05_commit_multicast<2>(accum.full(acc.stage), C::kPairMask);
        acc.advance();
      }
    }
  } else {
    // ---- epilogue warps 2..5: TMEM quarter = warp % 4
    sched::PipeState<2> acc;
    uint32_t store_seq = 0;  // TMA stores committed (Epilogue::tma_store): picks the staging box
    const bool store_issuer = threadIdx.x == C::kEpilogueWarp0 * 32;
    const uint32_t empty_leader = ptx::mapa_shared(accum.empty(0), 0);  // accum.empty(s) = empty(0) + 8s
    for (auto w = work.role(2); w.valid(); w.advance()) {
      const sched::TileCoord t = units.tile(w.unit, static_cast<int>(rank));
      ptx::mbarrier_wait_parity_cluster(accum.full(acc.stage), acc.phase);
      ptx::tcgen05_fence_after_thread_sync();
      const uint32_t acc_tmem = tmem + static_cast<uint32_t>(acc.stage * BN);
      if constexpr (EPI == Epilogue::tma_store)
        epilogue_store_tma<BN>(acc_tmem, &tma_c, smem + C::kStaging, store_seq, p, t.m * BM, t.n * BN, warp % 4,
                               store_issuer);
      else
        epilogue_store<BN>(acc_tmem, p, t.m * BM, t.n * BN, warp % 4);
      ptx::tcgen05_fence_before_thread_sync();
      __syncwarp();
      if (lane == 0) ptx::mbarrier_arrive_cluster(empty_leader + 8u * acc.stage);
      acc.advance();
    }
    // The last stores must have finished reading the staging boxes before
    // the CTA's shared memory goes away.
    if constexpr (EPI == Epilogue::tma_store)
      if (store_issuer) ptx::bulk_wait_group<0>();
  }

  __syncwarp();
  ptx::tcgen05_fence_before_thread_sync();
  ptx::cluster_sync();
  if (warp == 1) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tcgen05_dealloc<2>(tmem, C::kTmemCols);
  }
#endif
}

// Launch with `clusters` CTA pairs.
template <Layout LAYOUT, class SCHED, Epilogue EPI = Epilogue::direct>
Status launch_persistent(const GemmArgs& a, bool grouped_raster, int64_t clusters) {
  using C = PersistentCfg<LAYOUT, SCHED, EPI>;
  const auto kernel = persistent_kernel<LAYOUT, SCHED, EPI>;
  Maps m;
  TCGEMM_TRY(make_maps(a, Load::tma2d_128B, C::BN_HALF, C::BK, &m));
  CUtensorMap map_c = {};
  if constexpr (EPI == Epilogue::tma_store) {
    tma::TensorMapParams pc;
    TCGEMM_TRY(store_map(a, BM, &pc));
    TCGEMM_TRY(tma::encode(pc, &map_c));
  }
  const Params p = make_params(a, C::MMA_M, C::BN, grouped_raster);
  TCGEMM_TRY(set_smem(kernel, C::kSmemBytes));
  TCGEMM_TRY(launch_cluster(kernel, static_cast<unsigned>(2 * clusters), C::THREADS, C::kSmemBytes, 2, a.stream, m.a2,
                            m.b2, map_c, p));
  return check_launch("sm100 persistent_kernel");
}

// Pair tiles of these arguments (the work units).
inline int64_t pair_units(const GemmArgs& a, bool grouped_raster) {
  const Params p = make_params(a, PersistentCfgBase::MMA_M, PersistentCfgBase::BN, grouped_raster);
  return pair_schedule(p.tiles_m, p.tiles_n, p.group).units();
}

}  // namespace tcgemm::sm100
