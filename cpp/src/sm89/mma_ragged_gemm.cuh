// The Ada GEMM for operands whose rows start anywhere (sm89.mma_ragged.s2):
// mma_bk32's tile, fragments, MMAs and epilogue, with the global -> shared
// copies made through registers instead of cp.async.
//
// cp.async and TMA move 16-byte chunks from 16-byte aligned addresses (PTX
// ISA, cp.async: the source address "must be aligned to cp-size"; TMA: global
// strides a multiple of 16 bytes), so a matrix whose leading dimension is not
// a multiple of 8 elements (a row of 1001 halves starts at a 2-byte boundary
// every other row) is out of their reach; the other kernels need such an
// operand copied into a padded buffer first, a pass over it on top of the
// GEMM. Here each thread gathers its 16-byte chunks of a slice element by
// element (eight 2-byte loads, each predicated on the matrix's bounds, zero
// outside), packs them and stores them into the same swizzled tile cp.async
// would have filled; from there on it is mma_bk32. C is stored element by
// element (store_accumulators' kAnyLdc), the fused epilogue's source and bias
// are read by element already.
//
// The pipeline is register-staged: the loads of slice kt + STAGES - 1 are
// issued before slice kt's MMAs and stored to shared memory after them, so
// their latency runs under one slice of MMAs; the slot they are stored into
// was last read in iteration kt - 1, which every warp has left at iteration
// kt's barrier. Correctness first: no alignment is assumed even where a row
// happens to be aligned (one code path for every row of a warp).
#pragma once
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// Eight elements of row `row` from column `col` on, each read only if it lies
// inside the matrix (row_ok, col + e < limit), zero otherwise; `base` needs
// only the element's own 2-byte alignment.
__device__ __forceinline__ uint4 gather_chunk(const uint16_t* base, int64_t ld, int row, int col, bool row_ok,
                                              int limit) {
  const uint16_t* src = row_ok ? base + static_cast<int64_t>(row) * ld + col : base;
  uint32_t w[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const uint32_t lo = row_ok && col + 2 * e < limit ? src[2 * e] : 0u;
    const uint32_t hi = row_ok && col + 2 * e + 1 < limit ? src[2 * e + 1] : 0u;
    w[e] = lo | hi << 16;
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <class Cfg, DType DT, Accum ACC, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) mma_ragged_gemm_kernel(const Params p) {
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::template BTile<L>;
  constexpr int BK = Cfg::BK, STAGES = Cfg::STAGES, MT = Cfg::MT, NT = Cfg::NT;
  // A thread's chunks of a slice: chunk threadIdx.x + i * THREADS of the tile.
  constexpr int A_ITERS = ATile::rows * ATile::chunks / Cfg::THREADS;
  constexpr int B_ITERS = BTile::rows * BTile::chunks / Cfg::THREADS;
  static_assert(A_ITERS * Cfg::THREADS == ATile::rows * ATile::chunks &&
                    B_ITERS * Cfg::THREADS == BTile::rows * BTile::chunks,
                "every thread gathers the same number of chunks");
  static_assert(Cfg::B_X4, "fragments by FragmentLoader (ldmatrix.x4 B loads)");

  extern __shared__ __align__(128) uint8_t smem[];
  const uint32_t smem_a = ptx::smem_addr(smem);
  const uint32_t smem_b = smem_a + STAGES * ATile::bytes;

  const sched::TileCoord tile = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.grouped, Cfg::GROUP);
  const int m0 = tile.m * Cfg::BM, n0 = tile.n * Cfg::BN;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp % Cfg::WARPS_M, warp_n = warp / Cfg::WARPS_M;
  const int64_t batch = p.batch0 + blockIdx.y;
  const uint16_t* A = static_cast<const uint16_t*>(p.A) + batch * p.stride_a;
  const uint16_t* B = static_cast<const uint16_t*>(p.B) + batch * p.stride_b;

  // ---- global -> registers: this thread's chunks of slice k_tile.
  uint4 a_held[A_ITERS], b_held[B_ITERS];
  auto fetch = [&](int k_tile) {
    const int k0 = k_tile * BK;
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS, r = c / ATile::chunks, ch = c % ATile::chunks;
      a_held[i] = gather_chunk(A, p.lda, m0 + r, k0 + ch * 8, m0 + r < p.M, p.K);
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS, r = c / BTile::chunks, ch = c % BTile::chunks;
      if constexpr (L == Layout::TN)  // rows are n, chunks run along k
        b_held[i] = gather_chunk(B, p.ldb, n0 + r, k0 + ch * 8, n0 + r < p.N, p.K);
      else  // rows are k, chunks run along n
        b_held[i] = gather_chunk(B, p.ldb, k0 + r, n0 + ch * 8, k0 + r < p.K, p.N);
    }
  };
  // ---- registers -> shared: the same chunks into pipeline slot `stage`.
  auto deposit = [&](int stage) {
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS;
      ptx::st_shared_v4_b32(smem_a + stage * ATile::bytes + ATile::offset(c / ATile::chunks, c % ATile::chunks),
                            a_held[i]);
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS;
      ptx::st_shared_v4_b32(smem_b + stage * BTile::bytes + BTile::offset(c / BTile::chunks, c % BTile::chunks),
                            b_held[i]);
    }
  };

  Accumulator<ACC> acc[MT][NT];
  zero_accumulators(acc);
  FragmentLoader<Cfg, L> frags;
  frags.init(warp_m, warp_n, lane);

  // ---- the pipeline: slots 0 .. STAGES-2 filled first; then each iteration
  // fetches slice kt + STAGES - 1 into registers, multiplies slice kt, and
  // deposits the fetched slice into the slot iteration kt - 1 read.
  const int k_tiles = (p.K + BK - 1) / BK;
  for (int s = 0; s < STAGES - 1 && s < k_tiles; ++s) {
    fetch(s);
    deposit(s);
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    // Slice kt is visible to every warp, and every warp is done with slot
    // (kt - 1) % STAGES, which the deposit below overwrites.
    __syncthreads();
    const int next = kt + STAGES - 1;
    if (next < k_tiles) fetch(next);
    const int slot = kt % STAGES;
#pragma unroll
    for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
      uint32_t a[MT][4], b[NT][2];
      frags.load(smem_a + slot * ATile::bytes, smem_b + slot * BTile::bytes, kk, a, b);
      mma_tile<DT, ACC>(acc, a, b);
    }
    if (next < k_tiles) deposit(next % STAGES);
  }

  store_accumulators<Cfg, DT, ACC, /*kAnyLdc=*/true>(p, acc, m0, n0, warp_m, warp_n, lane, batch);
}

template <class Cfg, DType DT, Accum ACC, Layout L>
struct MmaRaggedLaunch {
  static Status run(const GemmArgs& a) {
    return launch_over_tiles<Cfg>(a, mma_ragged_gemm_kernel<Cfg, DT, ACC, L>, Cfg::THREADS,
                                  Cfg::template smem_bytes<L>(), "mma_ragged_gemm_kernel");
  }
};

}  // namespace tcgemm::sm89
