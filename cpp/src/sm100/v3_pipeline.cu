// sm100.v3_pipeline -- a multi-stage pipeline (seed 002, "pipelining"): STAGES
// shared memory slots, each with a "full" mbarrier (TMA bytes landed) and an
// "empty" one (tcgen05.commit: the MMAs reading it are done), the ring of
// sched/pipeline.h. One thread still issues everything: it keeps STAGES-1
// slices in flight, and after queueing slice ks's MMAs refills the slot that
// slice ks-1 used -- waiting for those older MMAs while the new ones run, so
// the tensor core is never left without queued work. Loads stay 2-D 128B
// swizzled (v2a; at BK = 64 a K-major slice is one box anyway); the tile
// grows to 128 x 256, the largest cta_group::1 MMA.
#include "sched/pipeline.h"
#include "sm100/kernel_common.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {
namespace {

constexpr int BN = 256, BK = 64, STAGES = 4, THREADS = 128;

template <Layout LAYOUT>
struct Cfg {
  using ATile = OperandTile<Load::tma2d_128B, Major::K, BM, BK>;
  using BTile = OperandTile<Load::tma2d_128B, LAYOUT == Layout::TN ? Major::K : Major::MN, BN, BK>;
  static constexpr uint32_t kStageBytes = ATile::kBytes + BTile::kBytes;
  static constexpr int kBarOffset = STAGES * kStageBytes;
  // [stages x (A, B)][full/empty barriers][done barrier][TMEM address]
  static constexpr int kSmemBytes = kSmemAlign + kBarOffset + sched::Pipeline<STAGES>::kBarrierBytes + 8 + 8;
};

template <Layout LAYOUT>
__global__ void __launch_bounds__(THREADS, 1)
    pipeline_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                    const Params p) {
#if TCGEMM_SM100_DEVICE
  using C = Cfg<LAYOUT>;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = aligned_smem_base(smem_raw);
  const sched::Pipeline<STAGES> pipe{smem + C::kBarOffset};
  const uint32_t done_bar = pipe.bars + sched::Pipeline<STAGES>::kBarrierBytes, tmem_slot = done_bar + 8;
  auto a_tile = [&](int s) { return smem + s * C::kStageBytes; };
  auto b_tile = [&](int s) { return smem + s * C::kStageBytes + C::ATile::kBytes; };
  const int warp = threadIdx.x / 32;
  const sched::TileCoord t = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.group > 1, p.group);
  const int m0 = t.m * BM, n0 = t.n * BN;

  if (threadIdx.x == 0) {
    pipe.init(1, 1);  // full: one arrive.expect_tx; empty: one tcgen05.commit
    ptx::mbarrier_init(done_bar, 1);
    ptx::fence_mbarrier_init();
  } else if (warp == 1) {
    ptx::tcgen05_alloc<1>(tmem_slot, BN);
    ptx::tcgen05_relinquish_alloc_permit<1>();
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(smem_raw + (tmem_slot - ptx::smem_addr(smem_raw)));

  const int k_slices = (p.K + BK - 1) / BK;
  if (threadIdx.x == 0) {
    sched::PipeState<STAGES> load_st, mma_st;
    auto load = [&](int ks) {
      pipe.producer_acquire(load_st);  // the MMAs that read this slot last are done
      pipe.producer_expect(load_st, C::kStageBytes);
      C::ATile::load(a_tile(load_st.stage), &tma_a, &tma_a, pipe.full(load_st.stage), m0, ks * BK, p.M, p.K);
      C::BTile::load(b_tile(load_st.stage), &tma_b, &tma_b, pipe.full(load_st.stage), n0, ks * BK, p.N, p.K);
      load_st.advance();
    };
    for (int ks = 0; ks < STAGES - 1 && ks < k_slices; ++ks) load(ks);
    for (int ks = 0; ks < k_slices; ++ks) {
      pipe.consumer_wait(mma_st);
      ptx::tcgen05_fence_after_thread_sync();
      mma_slice<1, typename C::ATile, typename C::BTile, BK>(tmem, a_tile(mma_st.stage), b_tile(mma_st.stage),
                                                             p.idesc, ks > 0);
      ptx::tcgen05_commit<1>(pipe.empty(mma_st.stage));  // frees the slot once these MMAs are done
      mma_st.advance();
      if (ks + STAGES - 1 < k_slices) load(ks + STAGES - 1);  // refills slice ks-1's slot
    }
    ptx::tcgen05_commit<1>(done_bar);  // the accumulator is complete
  }
  __syncwarp();  // reconverge warp 0 (thread 0 issued everything) before the aligned tcgen05.ld
  ptx::mbarrier_wait_parity(done_bar, 0);
  ptx::tcgen05_fence_after_thread_sync();

  epilogue_store<BN>(tmem, p, m0, n0, warp);

  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == 1) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tcgen05_dealloc<1>(tmem, BN);
  }
#endif
}

template <Layout LAYOUT>
Status launch(const GemmArgs& a) {
  const auto kernel = pipeline_kernel<LAYOUT>;
  Maps m;
  TCGEMM_TRY(make_maps(a, Load::tma2d_128B, BN, BK, &m));
  const Params p = make_params(a, BM, BN, true);
  TCGEMM_TRY(set_smem(kernel, Cfg<LAYOUT>::kSmemBytes));
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  kernel<<<static_cast<unsigned>(blocks), THREADS, Cfg<LAYOUT>::kSmemBytes, a.stream>>>(m.a2, m.b2, p);
  return check_launch("sm100 pipeline_kernel");
}

}  // namespace

Status launch_v3(const GemmArgs& a) { return a.layout == Layout::TN ? launch<Layout::TN>(a) : launch<Layout::NN>(a); }

}  // namespace tcgemm::sm100
