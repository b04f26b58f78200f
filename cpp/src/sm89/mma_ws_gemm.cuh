// sm89.x.ws_* (tuning candidates): the Ada GEMM, warp-specialized. Copy warps (copy_warps) issue
// every cp.async of the block and signal each slot's arrival through an
// mbarrier (cp.async.mbarrier.arrive.noinc); the MMA warps (mma_warps)
// wait on that slot's full_barrier, multiply, and hand the slot back through
// its empty_barrier. Against mma_spread: no __syncthreads in the mainloop (a
// warp waits only for the slice it needs), and no copy addresses or copy
// instructions in the MMA warps. Everything used exists on sm_80
// (mbarrier.test_wait, cp.async.mbarrier.arrive), so this stays in the Ada
// feature set. The tile, fragment and epilogue layouts are mma_sync_gemm's.
//
// Why 4 MMA warps (one 128x128 block, 2x2 warps of 64x64) and 4 copy warps:
// an SM's 64K registers are four 16K files, one per scheduler, and a warp
// lives on one of them. A 64x64 fp32 warp tile needs ~210-255 registers, so
// a scheduler holds at most two such warps (2 x 32 x 256 = 16K): 8 MMA warps
// already fill the SM, and a ninth (copy) warp caps every thread at 168
// registers (16K / (3 x 32)), which spills ~0.5 KB per thread (ptxas). Without
// setmaxnreg (sm_90) the copy warps cost MMA warps: here one per scheduler.
// On the H200 (fp16, 4096^3 and 8192^3, TN and NN; bench/results/h200_ada_ws.md,
// in git history; docs/performance.md, "Tried and not kept"): 0.74-0.85x
// of the spread kernels' TFLOPS with 4 copy warps, under half with one copy
// warp; 6 stages no better. With one MMA warp per scheduler a stalled MMA warp has
// no partner to cover for it, which the removed copies do not pay back.
#pragma once
#include "ptx/mbarrier.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

template <class Cfg, DType DT, Accum ACC, Layout L, int COPY_WARPS>
__global__ void __launch_bounds__(Cfg::THREADS + 32 * COPY_WARPS, 1) mma_ws_gemm_kernel(const Params p) {
  using T = typename Element<DT>::T;
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::template BTile<L>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int MT = Cfg::MT, NT = Cfg::NT, MMA_WARPS = Cfg::THREADS / 32;
  static_assert(Cfg::SWIZZLE_A && Cfg::SWIZZLE_B && Cfg::B_X4 && Cfg::FRAG_DBUF, "written for mma_spread's tiles");

  extern __shared__ __align__(128) uint8_t smem[];
  const uint32_t smem_a = ptx::smem_addr(smem);
  const uint32_t smem_b = smem_a + STAGES * ATile::bytes;
  const uint32_t bars = smem_b + STAGES * BTile::bytes;  // STAGES full, then STAGES empty barriers
  auto full_barrier = [&](int s) { return bars + 8u * s; };
  auto empty_barrier = [&](int s) { return bars + 8u * (STAGES + s); };

  const sched::TileCoord tile = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.grouped, Cfg::GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t batch = p.batch0 + blockIdx.y;
  const int k_tiles = (p.K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(full_barrier(s), 32 * COPY_WARPS);  // one async arrival per copy thread
      ptx::mbarrier_init(empty_barrier(s), Cfg::THREADS);  // one arrival per MMA thread
    }
  }
  __syncthreads();  // the inits, visible to the block (sm_80: no cluster, no fence needed)

  if (warp >= MMA_WARPS) {
    // ---- copy_warps: slice kt into slot kt % STAGES once the MMA warps have
    // handed that slot back (phase kt / STAGES - 1 of its empty_barrier).
    constexpr int COPY_THREADS = 32 * COPY_WARPS;
    const int ct = threadIdx.x - Cfg::THREADS;
    const T* A = static_cast<const T*>(p.A) + batch * p.stride_a;
    const T* B = static_cast<const T*>(p.B) + batch * p.stride_b;
    // One tile of a slice: copy thread ct copies chunk ct % chunks of rows
    // ct / chunks + i * RSTEP; chunks past `cols` columns or rows past
    // `rows` are zero-filled (0 bytes read, from the tile's own valid start).
    auto copy_tile = [&](auto tile_type, uint32_t dst, const T* src, int64_t ld, int rows, int cols) {
      using Tile = decltype(tile_type);
      constexpr int RSTEP = COPY_THREADS / Tile::chunks;
      static_assert(COPY_THREADS % Tile::chunks == 0 && Tile::rows % RSTEP == 0, "whole rows per pass");
      const int r0 = ct / Tile::chunks, ch = ct % Tile::chunks;
      const uint32_t col_bytes = chunk_bytes(cols - ch * 8);
      const T* g = src + static_cast<int64_t>(r0) * ld + ch * 8;
#pragma unroll 8
      for (int i = 0; i < Tile::rows / RSTEP; ++i, g += RSTEP * ld) {
        const uint32_t bytes = r0 + i * RSTEP < rows ? col_bytes : 0u;
        ptx::cp_async_cg_16(dst + Tile::offset(r0 + i * RSTEP, ch), bytes ? g : src, bytes);
      }
    };
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int s = kt % STAGES, k0 = kt * BK;
      if (kt >= STAGES)
        while (!ptx::mbarrier_test_wait_parity(empty_barrier(s), (kt / STAGES - 1) & 1)) {
        }
      copy_tile(ATile{}, smem_a + s * ATile::bytes, A + static_cast<int64_t>(m0) * p.lda + k0, p.lda, p.M - m0,
                p.K - k0);
      if constexpr (L == Layout::TN)  // rows are n, chunks run along k
        copy_tile(BTile{}, smem_b + s * BTile::bytes, B + static_cast<int64_t>(n0) * p.ldb + k0, p.ldb, p.N - n0,
                  p.K - k0);
      else  // rows are k, chunks run along n
        copy_tile(BTile{}, smem_b + s * BTile::bytes, B + static_cast<int64_t>(k0) * p.ldb + n0, p.ldb, p.K - k0,
                  p.N - n0);
      ptx::cp_async_mbarrier_arrive_noinc(full_barrier(s));
    }
    ptx::cp_async_commit_group();
    ptx::cp_async_wait_group<0>();  // nothing left in flight when this warp exits
    return;  // (no block-wide barrier follows: the MMA warps never wait for these)
  }

  // ---- mma_warps
  const int warp_m = warp % Cfg::WARPS_M, warp_n = warp / Cfg::WARPS_M;
  Accumulator<ACC> acc[MT][NT];
  zero_accumulators(acc);
  FragmentLoader<Cfg, L> frags;  // this lane's ldmatrix offsets, as mma_sync_gemm_kernel's
  frags.init(warp_m, warp_n, lane);
  auto load_fragments = [&](int s, int kk, uint32_t (&a)[MT][4], uint32_t (&b)[NT][2]) {
    frags.load(smem_a + s * ATile::bytes, smem_b + s * BTile::bytes, kk, a, b);
  };
  auto mma_fragments = [&](const uint32_t (&a)[MT][4], const uint32_t (&b)[NT][2]) {
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        if constexpr (ACC == Accum::f32) mma_f32<DT>(acc[i][j].v, a[i], b[j]);
        else ptx::mma_m16n8k16_f16_f16(acc[i][j].v, a[i], b[j]);
      }
  };
  auto wait_full = [&](int kt) {
    while (!ptx::mbarrier_test_wait_parity(full_barrier(kt % STAGES), (kt / STAGES) & 1)) {
    }
  };
  // Double-buffered fragments as in mma_iter_db: step kk+1's ldmatrix before
  // step kk's MMAs; at the last step, slot kt is handed back and slice kt+1's
  // first step loaded while those MMAs run.
  uint32_t a[2][MT][4], b[2][NT][2];
  wait_full(0);
  load_fragments(0, 0, a[0], b[0]);
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % STAGES;
#pragma unroll
    for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
      if (kk + 1 < Cfg::K_STEPS) {
        load_fragments(s, kk + 1, a[(kk + 1) % 2], b[(kk + 1) % 2]);
      } else {
        // This thread's reads of slot s are done: its arrival (a release)
        // orders them before the copy warps' refill (their test_wait is the
        // acquire). Every MMA thread arrives for its own reads: with one lane
        // per warp arriving after __syncwarp, compute-sanitizer's racecheck
        // reported the refills as racing the ldmatrix reads; like this, none.
        ptx::mbarrier_arrive_sm80(empty_barrier(s));
        if (kt + 1 < k_tiles) {
          wait_full(kt + 1);
          load_fragments((kt + 1) % STAGES, 0, a[0], b[0]);
        }
      }
      mma_fragments(a[kk % 2], b[kk % 2]);
    }
  }
  store_accumulators<Cfg, DT, ACC>(p, acc, m0, n0, warp_m, warp_n, lane, batch);
}

// ---- host side: the tiles' shared memory, then the 2 x STAGES barriers.
template <class Cfg, DType DT, Accum ACC, Layout L, int COPY_WARPS>
Status launch_mma_ws(const GemmArgs& a) {
  return launch_over_tiles<Cfg>(a, mma_ws_gemm_kernel<Cfg, DT, ACC, L, COPY_WARPS>, Cfg::THREADS + 32 * COPY_WARPS,
                                Cfg::template smem_bytes<L>() + 2 * Cfg::STAGES * 8, "mma_ws_gemm_kernel");
}

// launch_variant's launcher for COPY_WARPS copy warps: MmaWs<4>::Launch.
template <int COPY_WARPS>
struct MmaWs {
  template <class Cfg, DType DT, Accum ACC, Layout L>
  struct Launch {
    static Status run(const GemmArgs& a) { return launch_mma_ws<Cfg, DT, ACC, L, COPY_WARPS>(a); }
  };
};

}  // namespace tcgemm::sm89
