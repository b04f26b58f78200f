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
// GEMM. Here each thread reads its 16-byte chunks of a slice as the two
// aligned granules each spans and cuts the chunk out of them (realign.h; zero
// outside the matrix), and stores it into the same swizzled tile cp.async
// would have filled; from there on it is mma_bk32. C is stored element by
// element (store_accumulators' kAnyLdc), the fused epilogue's source and bias
// are read by element already.
//
// The pipeline is register-staged: the loads of slice kt + STAGES - 1 are
// issued before slice kt's MMAs and stored to shared memory after them, so
// their latency runs under one slice of MMAs; the slot they are stored into
// was last read in iteration kt - 1, which every warp has left at iteration
// kt's barrier.
#pragma once
#include "sm89/mma_sync_gemm.cuh"
#include "core/realign.h"

namespace tcgemm::sm89 {

// One 8-element chunk as loaded: the aligned granules it spans (skew 0:
// `first` is the chunk itself, `second` unused). Where in the first it starts
// (its skew, 0-14) is returned apart, so that a thread's skews pack into one
// register (the kernel's 128-register budget has no room for one each).
struct RawChunk {
  uint4 first, second;
};

// The loads of the chunk of row `row` from column `col` on (zero past the
// matrix: row_ok false, or col + e >= limit); `base` needs only the element's
// own 2-byte alignment. Where the two granules the chunk spans lie inside the
// row, two 16-byte loads; the row's last chunk or two, element by element, so
// no load reaches past the row's end (past the last row's end may be past the
// allocation). The first granule of a row's first chunk can begin before the
// row: bytes of the row before it, or of the allocation's first granule (its
// start is aligned), never outside it. Nothing here waits for the loads: the
// chunk is cut out of them (realigned) when it is stored to shared memory,
// after the slice's MMAs.
__device__ __forceinline__ RawChunk load_chunk(const uint16_t* base, int64_t ld, int row, int col, bool row_ok,
                                               int limit, uint32_t* skew_out) {
  RawChunk c{make_uint4(0u, 0u, 0u, 0u), make_uint4(0u, 0u, 0u, 0u)};
  *skew_out = 0;
  const int rem = limit - col;
  if (!row_ok || rem <= 0) return c;
  const uint16_t* src = base + static_cast<int64_t>(row) * ld + col;
  const uint32_t skew = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src) & 15);
  if (granule_pair_fits(skew, rem)) {
    const uint4* pair = reinterpret_cast<const uint4*>(reinterpret_cast<uintptr_t>(src) - skew);
    c.first = __ldg(pair);
    if (skew) c.second = __ldg(pair + 1);
    *skew_out = skew;
    return c;
  }
  uint32_t w[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const uint32_t lo = 2 * e < rem ? src[2 * e] : 0u;
    const uint32_t hi = 2 * e + 1 < rem ? src[2 * e + 1] : 0u;
    w[e] = lo | hi << 16;
  }
  c.first = make_uint4(w[0], w[1], w[2], w[3]);
  return c;
}

// The chunk that starts `skew` bytes into granule `first`, cut out of it and
// the next (realign.h).
__device__ __forceinline__ uint4 realign_chunk(const uint4& first, const uint4& second, uint32_t skew) {
  const uint32_t g[8] = {first.x, first.y, first.z, first.w, second.x, second.y, second.z, second.w};
  return make_uint4(realigned_word(g, 0, skew), realigned_word(g, 1, skew), realigned_word(g, 2, skew),
                    realigned_word(g, 3, skew));
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

  // ---- global -> registers: this thread's chunks of slice k_tile, as loaded
  // (chunk i's skew in bits 4i .. 4i + 3 of `skews`: A's chunks, then B's).
  static_assert(A_ITERS + B_ITERS <= 8, "a thread's skews fit one register");
  RawChunk a_held[A_ITERS], b_held[B_ITERS];
  uint32_t skews = 0;
  auto fetch = [&](int k_tile) {
    const int k0 = k_tile * BK;
    skews = 0;
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS, r = c / ATile::chunks, ch = c % ATile::chunks;
      uint32_t skew;
      a_held[i] = load_chunk(A, p.lda, m0 + r, k0 + ch * 8, m0 + r < p.M, p.K, &skew);
      skews |= skew << (4 * i);
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS, r = c / BTile::chunks, ch = c % BTile::chunks;
      uint32_t skew;
      if constexpr (L == Layout::TN)  // rows are n, chunks run along k
        b_held[i] = load_chunk(B, p.ldb, n0 + r, k0 + ch * 8, n0 + r < p.N, p.K, &skew);
      else  // rows are k, chunks run along n
        b_held[i] = load_chunk(B, p.ldb, k0 + r, n0 + ch * 8, k0 + r < p.K, p.N, &skew);
      skews |= skew << (4 * (A_ITERS + i));
    }
  };
  // ---- registers -> shared: the same chunks, realigned, into pipeline slot `stage`.
  auto deposit = [&](int stage) {
#pragma unroll
    for (int i = 0; i < A_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS;
      ptx::st_shared_v4_b32(smem_a + stage * ATile::bytes + ATile::offset(c / ATile::chunks, c % ATile::chunks),
                            realign_chunk(a_held[i].first, a_held[i].second, (skews >> (4 * i)) & 15));
    }
#pragma unroll
    for (int i = 0; i < B_ITERS; ++i) {
      const int c = threadIdx.x + i * Cfg::THREADS;
      ptx::st_shared_v4_b32(smem_b + stage * BTile::bytes + BTile::offset(c / BTile::chunks, c % BTile::chunks),
                            realign_chunk(b_held[i].first, b_held[i].second, (skews >> (4 * (A_ITERS + i))) & 15));
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
