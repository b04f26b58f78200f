// sm100.v4_warp_specialized -- warp specialization (seed 002, "warp
// specialization"): v3's pipeline with its two loops split across two warps
// that never wait for each other except through the ring's mbarriers:
//   warp 0 (one lane): the TMA producer -- acquire slot (empty), expect_tx, load
//   warp 1 (one lane): the MMA consumer  -- wait slot (full), MMAs, commit(empty)
//   then all 4 warps:  the epilogue, after the MMA lane's final commit
// Each role walks the ring with its own PipeState: the producer's first lap
// waits "empty" for parity 1 (a fresh barrier passes it), the consumer waits
// "full" for parity 0 -- separate phase variables per role, never a shared
// one. The mainloop's end is a commit to its own barrier: __syncthreads
// would only say the last MMA was issued, not that it finished.
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
  static constexpr int kSmemBytes = kSmemAlign + kBarOffset + sched::Pipeline<STAGES>::kBarrierBytes + 8 + 8;
};

template <Layout LAYOUT>
__global__ void __launch_bounds__(THREADS, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                            const Params p) {
#if TCGEMM_SM100_DEVICE
  using C = Cfg<LAYOUT>;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = aligned_smem_base(smem_raw);
  const sched::Pipeline<STAGES> pipe{smem + C::kBarOffset};
  const uint32_t done_bar = pipe.bars + sched::Pipeline<STAGES>::kBarrierBytes, tmem_slot = done_bar + 8;
  auto a_tile = [&](int s) { return smem + s * C::kStageBytes; };
  auto b_tile = [&](int s) { return smem + s * C::kStageBytes + C::ATile::kBytes; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const sched::TileCoord t = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.group > 1, p.group);
  const int m0 = t.m * BM, n0 = t.n * BN;

  if (threadIdx.x == 0) {
    pipe.init(1, 1);
    ptx::mbarrier_init(done_bar, 1);
    ptx::fence_mbarrier_init();
    ptx::prefetch_tensormap(&tma_a);
    ptx::prefetch_tensormap(&tma_b);
  } else if (warp == 1) {
    ptx::tcgen05_alloc<1>(tmem_slot, BN);
    ptx::tcgen05_relinquish_alloc_permit<1>();
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(smem_raw + (tmem_slot - ptx::smem_addr(smem_raw)));

  const int k_slices = (p.K + BK - 1) / BK;
  if (warp == 0 && lane == 0) {
    // ---- TMA producer
    sched::PipeState<STAGES> st;  // producer view: waits "empty" with parity st.phase ^ 1
    for (int ks = 0; ks < k_slices; ++ks) {
      pipe.producer_acquire(st);
      pipe.producer_expect(st, C::kStageBytes);
      C::ATile::load(a_tile(st.stage), &tma_a, &tma_a, pipe.full(st.stage), m0, ks * BK, p.M, p.K);
      C::BTile::load(b_tile(st.stage), &tma_b, &tma_b, pipe.full(st.stage), n0, ks * BK, p.N, p.K);
      st.advance();
    }
  } else if (warp == 1 && lane == 0) {
    // ---- MMA consumer
    sched::PipeState<STAGES> st;  // consumer view: waits "full" with parity st.phase
    for (int ks = 0; ks < k_slices; ++ks) {
      pipe.consumer_wait(st);
      ptx::tcgen05_fence_after_thread_sync();
      mma_slice<1, typename C::ATile, typename C::BTile, BK>(tmem, a_tile(st.stage), b_tile(st.stage), p.idesc,
                                                             ks > 0);
      ptx::tcgen05_commit<1>(pipe.empty(st.stage));
      st.advance();
    }
    ptx::tcgen05_commit<1>(done_bar);
  }
  // ---- epilogue (all warps; the two role lanes join when their loop ends)
  __syncwarp();
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
  const auto kernel = warp_specialized_kernel<LAYOUT>;
  Maps m;
  TCGEMM_TRY(make_maps(a, Load::tma2d_128B, BN, BK, &m));
  const Params p = make_params(a, BM, BN, true);
  TCGEMM_TRY(set_smem(kernel, Cfg<LAYOUT>::kSmemBytes));
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  kernel<<<static_cast<unsigned>(blocks), THREADS, Cfg<LAYOUT>::kSmemBytes, a.stream>>>(m.a2, m.b2, p);
  return check_launch("sm100 warp_specialized_kernel");
}

}  // namespace

Status launch_v4(const GemmArgs& a) { return a.layout == Layout::TN ? launch<Layout::TN>(a) : launch<Layout::NN>(a); }

}  // namespace tcgemm::sm100
