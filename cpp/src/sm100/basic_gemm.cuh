// Steps v1a, v1b, v2a, v2b of the Blackwell ladder (seed 002): the basic
// tcgen05 kernel. One CTA of 4 warps computes one 128 x BN tile of C:
//
//   for each K slice:   thread 0: arrive.expect_tx + TMA loads of A and B
//                       everyone: wait for the bytes (mbarrier)
//                       thread 0: BK/16 x tcgen05.mma into TMEM, tcgen05.commit
//                       everyone: wait for the MMAs (same kind of mbarrier)
//   epilogue:           4 warps: tcgen05.ld 32x32b -> registers -> C
//
// Nothing overlaps: a slice's load waits for the previous slice's MMAs. The
// four steps differ only in how a slice is loaded (the LOAD policy,
// sm100/operands.h, and the shared-memory descriptors that go with it):
//   v1a  2-D TMA boxes 16 bytes wide, one per 16-byte column, no swizzle
//   v1b  one 3-D TMA box per operand (the 16-byte columns as 3rd dimension)
//   v2a  2-D TMA boxes 128 bytes wide, 128B swizzle (descriptor mode 2)
//   v2b  one 3-D TMA box of 128-byte columns, 128B swizzle
#pragma once
#include "sm100/kernel_common.cuh"

namespace tcgemm::sm100 {

template <Load LOAD, Layout LAYOUT, int BN, int BK>
struct BasicConfig {
  static constexpr int THREADS = 128;
  using ATile = OperandTile<LOAD, Major::K, BM, BK>;
  using BTile = OperandTile<LOAD, LAYOUT == Layout::TN ? Major::K : Major::MN, BN, BK>;
  static constexpr uint32_t kTmemCols = tmem_columns(BN);  // the fp32 accumulator: BN columns x 128 lanes
  // [A tile][B tile][2 mbarriers][TMEM address]
  static constexpr int kBarOffset = ATile::kBytes + BTile::kBytes;
  static constexpr int kSmemBytes = kSmemAlign + kBarOffset + 2 * 8 + 8;
  static_assert(valid_mma_shape(1, BM, BN), "tcgen05.mma cta_group::1 shape");
};

template <class Cfg, int BN, int BK>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    basic_gemm_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_a3,
                      const __grid_constant__ CUtensorMap tma_b, const __grid_constant__ CUtensorMap tma_b3,
                      const Params p) {
#if TCGEMM_SM100_DEVICE
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::BTile;
  extern __shared__ uint8_t smem_raw[];
  const uint32_t smem = aligned_smem_base(smem_raw);
  const uint32_t a_tile = smem, b_tile = smem + ATile::kBytes;
  const uint32_t tma_bar = smem + Cfg::kBarOffset, mma_bar = tma_bar + 8, tmem_slot = tma_bar + 16;
  const int warp = threadIdx.x / 32;

  const sched::TileCoord t = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.group > 1, p.group);
  const int m0 = t.m * BM, n0 = t.n * BN;

  // ---- setup: one thread inits the barriers, warp 1 allocates TMEM (a
  // whole-warp instruction that writes the TMEM address to shared memory).
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(tma_bar, 1);  // one arrive.expect_tx per phase, plus the bytes
    ptx::mbarrier_init(mma_bar, 1);  // one tcgen05.commit per phase
    ptx::fence_mbarrier_init();
    ptx::prefetch_tensormap(&tma_a);
    ptx::prefetch_tensormap(&tma_b);
  } else if (warp == 1) {
    ptx::tcgen05_alloc<1>(tmem_slot, Cfg::kTmemCols);
    ptx::tcgen05_relinquish_alloc_permit<1>();
  }
  // The TMEM address travels through shared memory: order the allocation
  // before the barrier and the reads after it.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(smem_raw + (tmem_slot - ptx::smem_addr(smem_raw)));

  // ---- mainloop: load a slice, multiply it, one after the other.
  const int k_slices = (p.K + BK - 1) / BK;
  const int b_extent = p.N;
  uint32_t phase = 0;
  for (int ks = 0; ks < k_slices; ++ks) {
    const int k0 = ks * BK;
    if (threadIdx.x == 0) {
      ptx::mbarrier_arrive_expect_tx(tma_bar, ATile::kBytes + BTile::kBytes);
      ATile::load(a_tile, &tma_a, &tma_a3, tma_bar, m0, k0, p.M, p.K);
      BTile::load(b_tile, &tma_b, &tma_b3, tma_bar, n0, k0, b_extent, p.K);
    }
    ptx::mbarrier_wait_parity(tma_bar, phase);  // the slice is in shared memory
    ptx::tcgen05_fence_after_thread_sync();
    if (threadIdx.x == 0) {
      mma_slice<1, ATile, typename Cfg::BTile, BK>(tmem, a_tile, b_tile, p.idesc, ks > 0);
      ptx::tcgen05_commit<1>(mma_bar);  // arrives once these MMAs have read smem and written TMEM
    }
    ptx::mbarrier_wait_parity(mma_bar, phase);  // smem free again, TMEM up to date
    ptx::tcgen05_fence_after_thread_sync();
    phase ^= 1u;
  }

  // ---- epilogue: warp w owns TMEM lanes 32w .. 32w+31 = rows of the tile.
  __syncwarp();  // tcgen05.ld is .sync.aligned: the warp reconverges after thread 0's work
  epilogue_store<BN>(tmem, p, m0, n0, warp);

  // ---- teardown: every TMEM read is done before warp 1 frees the columns.
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == 1) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tcgen05_dealloc<1>(tmem, Cfg::kTmemCols);
  }
#endif
}

template <Load LOAD, Layout LAYOUT, int BN, int BK>
Status launch_basic(const GemmArgs& a) {
  using Cfg = BasicConfig<LOAD, LAYOUT, BN, BK>;
  const auto kernel = basic_gemm_kernel<Cfg, BN, BK>;
  Maps m;
  TCGEMM_TRY(make_maps(a, LOAD, BN, BK, &m));
  const Params p = make_params(a, BM, BN, true);
  TCGEMM_TRY(set_smem(kernel, Cfg::kSmemBytes));
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  kernel<<<static_cast<unsigned>(blocks), Cfg::THREADS, Cfg::kSmemBytes, a.stream>>>(m.a2, m.a3, m.b2, m.b3, p);
  return check_launch("sm100 basic_gemm_kernel");
}

// One registry entry: both B layouts (dtype is a run-time field of the
// instruction descriptor and the epilogue, not a template parameter).
template <Load LOAD, int BN, int BK>
Status launch_basic_variant(const GemmArgs& a) {
  return a.layout == Layout::TN ? launch_basic<LOAD, Layout::TN, BN, BK>(a) : launch_basic<LOAD, Layout::NN, BN, BK>(a);
}

}  // namespace tcgemm::sm100
