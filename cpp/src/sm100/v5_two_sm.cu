// sm100.v5_two_sm -- 2-SM MMA (seed 002, "2-SM MMA"): clusters of two CTAs, the
// CTA pair, compute one 256 x 256 block of C with tcgen05 .cta_group::2.
// Each CTA loads its own 128 rows of A and its half (128 columns) of the B
// tile; the even CTA alone issues MMAs of shape M = 256, N = 256 whose
// descriptors name its local tiles -- the tensor cores of the pair read the
// peer's tiles at the same shared-memory offsets -- and each CTA's TMEM
// receives its 128 x 256 half of the accumulator. What changes from v4:
//   - cta_group::2 for every tcgen05 instruction (alloc, mma, commit, dealloc)
//   - both CTAs' TMA loads complete on the even CTA's "full" barrier, whose
//     cluster address comes from mapa (not an address-bit trick); the even
//     CTA's producer announces both CTAs' bytes
//   - the MMA issuer's commits are multicast to the same barrier offset in
//     both CTAs (cta_mask 0b11): "slot empty" and "accumulator ready"
//   - M-first block pairing (descriptors.h pair_tile): a cluster's two CTAs
//     are M-neighbours in one N column
//   - cluster barriers around TMEM allocation / barrier init and before the
//     deallocation (the peer's MMAs and arrivals touch our TMEM and barriers)
#include "sched/pipeline.h"
#include "sm100/kernel_common.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {
namespace {

constexpr int BN = 256;            // the pair's N extent (MMA N)
constexpr int BN_HALF = BN / 2;    // B rows (N) each CTA loads
constexpr int MMA_M = 2 * BM;      // the pair's M extent
constexpr int BK = 64, STAGES = 6, THREADS = 128;
constexpr uint16_t kPairMask = 0b11;

template <Layout LAYOUT>
struct Cfg {
  using ATile = OperandTile<Load::tma2d_128B, Major::K, BM, BK>;
  using BTile = OperandTile<Load::tma2d_128B, LAYOUT == Layout::TN ? Major::K : Major::MN, BN_HALF, BK>;
  static constexpr uint32_t kStageBytes = ATile::kBytes + BTile::kBytes;  // per CTA
  static constexpr int kBarOffset = STAGES * kStageBytes;
  static constexpr int kSmemBytes = kSmemAlign + kBarOffset + sched::Pipeline<STAGES>::kBarrierBytes + 8 + 8;
  static_assert(valid_mma_shape(2, MMA_M, BN), "tcgen05.mma cta_group::2 shape");
};

template <Layout LAYOUT>
__global__ void __launch_bounds__(THREADS, 1)
    two_sm_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                  const Params p) {
#if TCGEMM_SM100_DEVICE
  using C = Cfg<LAYOUT>;
  extern __shared__ uint8_t smem_raw[];
  // Same layout in both CTAs: multicast commits and the peer's TMA
  // complete_tx address barriers by their offset.
  const uint32_t smem = aligned_smem_base(smem_raw);
  const sched::Pipeline<STAGES> pipe{smem + C::kBarOffset};
  const uint32_t done_bar = pipe.bars + sched::Pipeline<STAGES>::kBarrierBytes, tmem_slot = done_bar + 8;
  auto a_tile = [&](int s) { return smem + s * C::kStageBytes; };
  auto b_tile = [&](int s) { return smem + s * C::kStageBytes + C::ATile::kBytes; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = ptx::cluster_ctarank();
  const bool leader = rank == 0;  // the even CTA of the pair issues the MMAs

  const sched::TileCoord t = pair_tile(blockIdx.x / 2, static_cast<int>(rank), p.tiles_m, p.tiles_n, p.group);
  const int m0 = t.m * BM, n0 = t.n * BN, b_n0 = n0 + static_cast<int>(rank) * BN_HALF;

  if (threadIdx.x == 0) {
    pipe.init(1, 1);  // full (used in the leader): its one expect_tx; empty: one multicast commit
    ptx::mbarrier_init(done_bar, 1);
    ptx::fence_mbarrier_init();
    ptx::prefetch_tensormap(&tma_a);
    ptx::prefetch_tensormap(&tma_b);
  } else if (warp == 1) {
    ptx::tcgen05_alloc<2>(tmem_slot, BN);  // one warp in each CTA of the pair
    ptx::tcgen05_relinquish_alloc_permit<2>();
  }
  // Both CTAs' barriers and TMEM exist before either uses the other's.
  ptx::tcgen05_fence_before_thread_sync();
  ptx::cluster_sync();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(smem_raw + (tmem_slot - ptx::smem_addr(smem_raw)));

  const int k_slices = (p.K + BK - 1) / BK;
  if (warp == 0 && lane == 0) {
    // ---- TMA producer (both CTAs): own A rows, own half of B, bytes
    // reported to the leader's full barrier.
    sched::PipeState<STAGES> st;
    for (int ks = 0; ks < k_slices; ++ks) {
      pipe.producer_acquire_cluster(st);  // the leader's multicast commit freed this slot
      const uint32_t full_leader = ptx::mapa_shared(pipe.full(st.stage), 0);
      if (leader) pipe.producer_expect(st, 2 * C::kStageBytes);
      C::ATile::load_pair(a_tile(st.stage), &tma_a, full_leader, m0, ks * BK);
      C::BTile::load_pair(b_tile(st.stage), &tma_b, full_leader, b_n0, ks * BK);
      st.advance();
    }
  } else if (warp == 1 && lane == 0 && leader) {
    // ---- MMA issuer (even CTA only), for the pair.
    sched::PipeState<STAGES> st;
    for (int ks = 0; ks < k_slices; ++ks) {
      ptx::mbarrier_wait_parity_cluster(pipe.full(st.stage), st.phase);  // both CTAs' bytes landed
      ptx::tcgen05_fence_after_thread_sync();
      mma_slice<2, typename C::ATile, typename C::BTile, BK>(tmem, a_tile(st.stage), b_tile(st.stage), p.idesc,
                                                             ks > 0);
      ptx::tcgen05_commit_multicast<2>(pipe.empty(st.stage), kPairMask);  // frees the slot in both CTAs
      st.advance();
    }
    ptx::tcgen05_commit_multicast<2>(done_bar, kPairMask);  // both halves of the accumulator are final
  }

  // ---- epilogue: each CTA its own 128 rows from its own TMEM.
  __syncwarp();
  ptx::mbarrier_wait_parity_cluster(done_bar, 0);
  ptx::tcgen05_fence_after_thread_sync();
  epilogue_store<BN>(tmem, p, m0, n0, warp);

  // ---- teardown: neither CTA frees TMEM while the pair may still use it.
  ptx::tcgen05_fence_before_thread_sync();
  ptx::cluster_sync();
  if (warp == 1) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tcgen05_dealloc<2>(tmem, BN);
  }
#endif
}

template <Layout LAYOUT>
Status launch(const GemmArgs& a) {
  const auto kernel = two_sm_kernel<LAYOUT>;
  Maps m;
  TCGEMM_TRY(make_maps(a, Load::tma2d_128B, BN_HALF, BK, &m));
  const Params p = make_params(a, MMA_M, BN, true);
  TCGEMM_TRY(set_smem(kernel, Cfg<LAYOUT>::kSmemBytes));
  const int64_t clusters = pair_schedule(p.tiles_m, p.tiles_n, p.group).units();
  TCGEMM_TRY(launch_cluster(kernel, static_cast<unsigned>(2 * clusters), THREADS, Cfg<LAYOUT>::kSmemBytes, 2, a.stream,
                            m.a2, m.b2, p));
  return check_launch("sm100 two_sm_kernel");
}

}  // namespace

Status launch_v5(const GemmArgs& a) { return a.layout == Layout::TN ? launch<Layout::TN>(a) : launch<Layout::NN>(a); }

}  // namespace tcgemm::sm100
