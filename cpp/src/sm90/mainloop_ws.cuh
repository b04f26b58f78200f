// Mainloop part of the warp-specialized kernels: the stage ring in shared
// memory, the producer's TMA loads into it (multicast across a cluster where
// the configuration has one) and the consumers' wgmmas over it. Producer and
// consumers meet only at the ring's full/empty mbarriers (sched/pipeline.h).
//
// The kernel walks the K slices (ws_kernel.cuh); this part is what one
// slice costs each side. Edges: TMA zero fill (the epilogues clip their
// stores).
#pragma once
#include "ptx/tma.h"
#include "ptx/wgmma.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "sm90/common.cuh"

namespace tcgemm::sm90 {

// Cfg: WsTraits<config>; L: the caller's layout. Swapped, an NN problem's A
// is the caller's K x N weight (MN-major, wgmma's transpose-A) and its B is
// x (K-major).
template <class Cfg, Layout L>
struct WsMainloop {
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES, CLUSTER = Cfg::CLUSTER, CTAS = Cfg::CTAS;
  static constexpr int KS = Cfg::K_STAGE;  // K elements per stage (64; FP8 128)
  static constexpr bool kMnMajorA = Cfg::SWAP_AB && L == Layout::NN;
  static constexpr Layout LB = kMnMajorA ? Layout::TN : L;  // B's layout in shared memory
  static_assert(!kMnMajorA || Cfg::CLUSTER_N == 1, "an MN-major A is loaded whole (load_a), never multicast");
  static_assert(!Cfg::FP8 || L == Layout::TN, "FP8 wgmma reads both operands K-major: B stored N x K (TN) only");
  using State = sched::PipeState<STAGES>;

  uint32_t ring;                      // STAGES x (A tile, B tile), 1024-byte aligned
  sched::Pipeline<STAGES> pipe;       // its full/empty barriers
  int rm, rn;                         // this CTA's place in the cluster (along M, along N)

  __device__ __forceinline__ uint32_t a_tile(int s) const { return ring + s * Cfg::STAGE_BYTES; }
  __device__ __forceinline__ uint32_t b_tile(int s) const { return ring + s * Cfg::STAGE_BYTES + Cfg::A_BYTES; }

  // full: the producer's arrive.expect_tx (and with the scale warp its 32
  // lanes' cp.async arrivals); empty: every consumer warp that reads the
  // slot, in every CTA whose slot the producer fills.
  __device__ __forceinline__ void init_barriers() const { pipe.init(Cfg::SCALE_WARP ? 1 + 32 : 1, Cfg::READERS); }

  // ---- producer (one thread): K slice kt of the tile at (m0, n0) of
  // batch `batch` into the slot of state st, once the consumers have freed it.
  __device__ __forceinline__ void load(const State& st, const CUtensorMap* map_a, const CUtensorMap* map_b,
                                       const Params& p, int batch, int kt, int m0, int n0) const {
    // With multicast the peer's consumers also arrive on this barrier.
    pipe.producer_acquire(st);
    // This CTA's full barrier gets its own parts of A and B and its
    // peers' parts (multicast): the whole stage.
    pipe.producer_expect(st, Cfg::STAGE_BYTES);
    if constexpr (Cfg::CLUSTER_N == 1) {
      load_a<kMnMajorA, BM>(a_tile(st.stage), map_a, pipe.full(st.stage), kt * KS, m0, batch * p.z_step_a);
    } else {  // rows [rn * BM / CLUSTER_N, ...) of the A tile, to the CTAs of this tile row
      constexpr int kRows = BM / Cfg::CLUSTER_N;
      ptx::tma_load_3d_multicast(a_tile(st.stage) + rn * kRows * kRowBytes, map_a, pipe.full(st.stage), kt * KS,
                                 m0 + rn * kRows, batch * p.z_step_a, Cfg::a_mask(rm));
    }
    load_b<LB, BN, CLUSTER>(b_tile(st.stage), map_b, pipe.full(st.stage), kt * KS, n0, batch * p.z_step_b, rm,
                           Cfg::b_mask(rn));
  }

  // ---- consumers: the wgmmas of the slot of state st (once it is full)
  // into acc, MB m64 row blocks from row0 of the tile, committed as one
  // group and left in flight. DT is the operands' type, or with FP8 the
  // output's (the operands are Cfg's pair). kFresh: the slot's first wgmma
  // overwrites acc instead of adding to it (scale-d = 0).
  template <DType DT, int MB, bool kFresh = false>
  __device__ __forceinline__ void mma(float (&acc)[MB][BN / 2], const State& st, int row0) const {
    pipe.consumer_wait(st);
    ptx::wgmma_fence();
    if constexpr (Cfg::FP8) {
      // Four k32 steps: 32 bytes each of the 128-byte rows, as the 16-bit k16 steps.
#pragma unroll
      for (int kk = 0; kk < kRowBytes / 32; ++kk)
#pragma unroll
        for (int mb = 0; mb < MB; ++mb)
          wgmma_fp8<Cfg::A8, Cfg::B8, BN>(acc[mb], desc_k_major(a_tile(st.stage), row0 + mb * 64, kk),
                                          desc_k_major(b_tile(st.stage), 0, kk), kFresh && kk == 0 ? 0u : 1u);
    } else {
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
        for (int mb = 0; mb < MB; ++mb)
          wgmma<DT, BN, LB, kMnMajorA>(acc[mb], desc_a<kMnMajorA>(a_tile(st.stage), row0 + mb * 64, kk),
                                       desc_b<LB>(b_tile(st.stage), kk));
    }
    ptx::wgmma_commit_group();
  }

  // ---- consumers, promotion part by part (FP8, a tile wider than one fresh
  // sum: WsTraits::FRESH_N): the wgmmas of the slot of state st for columns
  // [col0, col0 + FRESH_N) of the B tile only, into a fresh sum (the first
  // k32 step overwrites it), committed as one group and left in flight. The
  // caller has waited for the slot (wait_full) and frees it after its last part.
  __device__ __forceinline__ void wait_full(const State& st) const { pipe.consumer_wait(st); }

  __device__ __forceinline__ void mma_fresh_part(float (&part)[Cfg::FRESH_N / 2], const State& st, int row0,
                                                 int col0) const {
    static_assert(Cfg::FP8, "promotion is for FP8 sums");
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kRowBytes / 32; ++kk)
      wgmma_fp8<Cfg::A8, Cfg::B8, Cfg::FRESH_N>(part, desc_k_major(a_tile(st.stage), row0, kk),
                                                desc_k_major(b_tile(st.stage), col0, kk), kk == 0 ? 0u : 1u);
    ptx::wgmma_commit_group();
  }

  // One arrival per consumer warp (its leader lane) on the empty barrier of
  // every CTA that writes into the slot: this one, and with multicast its B
  // peers (same tile column) and A peers (same tile row).
  __device__ __forceinline__ void release(const State& s, bool leader) const {
    if (!leader) return;
    if constexpr (CTAS == 1) {
      pipe.consumer_release(s);
    } else {
#pragma unroll
      for (int r = 0; r < CTAS; ++r)
        if (r % CLUSTER == rm || r / CLUSTER == rn) pipe.consumer_release_in(s, r);
    }
  }
};

}  // namespace tcgemm::sm90
