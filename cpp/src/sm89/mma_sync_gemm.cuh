// The Ada GEMM (seed 000): cp.async multi-stage pipeline -> ldmatrix ->
// mma.sync.m16n8k16 -> shuffle-assembled 16-byte stores.
//
// One template, a ladder of steps, each one idea over the last (Config below):
//   sm89.mma        128x128x16 tile, 8 warps (2 x 4), 64x32 warp tile of 4x4
//                   m16n8k16 MMAs, unswizzled shared memory, B by ldmatrix.x2
//   sm89.mma_swz    + XOR-swizzled B tile (conflict-free ldmatrix on B)
//   sm89.mma_swz_x4 + swizzled A tile too, and B by ldmatrix.x4 (two n8
//                   fragments per instruction: half the B load instructions)
//   sm89.mma_bk32   + 32-deep K slice per stage: half the barriers and
//                   pipeline bookkeeping per MMA
//   sm89.mma_wt64   + 64x64 warp tile (128x256 block): each ldmatrix feeds
//                   twice the MMAs, which is what shared-memory bandwidth
//                   needs once the tensor cores outrun it (Hopper)
//   sm89.mma_wt64_k64 + 64-deep K slice: four k16 steps between barriers
//   sm89.mma_2blk   + two 4-warp 128x128 blocks per SM (64x64 warp tiles)
//                   instead of one 8-warp block
//   sm89.mma_iter   + address iterators (ADDR_ITER): copy and ldmatrix
//                   addresses computed once per block, stepped by constants
//                   (ncu: 3 in 4 instructions had been address arithmetic)
//   sm89.mma_iter_db + double-buffered fragments (FRAG_DBUF): step kk+1's
//                   ldmatrix before step kk's MMAs, the slice barrier before
//                   the last step's (CUTLASS's sm80 multistage mainloop)
//   sm89.mma_iter_8w{,_db} the same two on one 8-warp 128x256 block per SM
//   sm89.mma_spread{,_8w} + the next slice's copies spread over the k16
//                   steps (SPREAD_COPIES), in iterations compiled without a
//                   whole/ragged test (ncu: mma_iter_db's copy code had been
//                   if-converted into predicated 64-bit address arithmetic,
//                   4.4 instructions per MMA against 2.5 for mma_iter)
//   sm89.mma_unroll{,_8w} + those iterations unrolled by STAGES
//                   (UNROLL_STAGES): the slot of every slice is a constant,
//                   so no `kt % STAGES` arithmetic and the slot offsets fold
//                   into the ldmatrix / cp.async immediates
//   sm89.mma_ldsm_first_8w_k32 mma_spread_8w_k32 (CUTLASS sm80's 128x256x32
//                   4-stage tile) + step kk+1's ldmatrix issued ahead of the
//                   step's copies (SpreadOrder::ldsm_first), which ptxas
//                   would otherwise keep it behind
//   sm89.mma_copies_last_8w mma_unroll_8w + each step's copies after its MMAs
//                   (SpreadOrder::mmas_first, CUTLASS sm80's order)
//   sm89.mma_ldsm_first{,_8w} ldsm_first's order on mma_spread{,_8w}
//   sm89.mma_ldsm_unroll_8w_k32 mma_ldsm_first_8w_k32 with its iterations
//                   unrolled by STAGES (measured slower: the order is what pays)
// Off the ladder, tuning candidates only: sm89.x.ws_* (mma_ws_gemm.cuh),
// mma_spread's tile warp-specialized (copy and MMA warps meet at mbarriers),
// measured slower: without setmaxnreg the copy warps cost MMA warps.
// NN (B row-major K x N) reads B with ldmatrix.trans; TN (B stored N x K) reads
// it plain. Edges: predicated zero-filling copies and clipped stores, so any
// M, N, K >= 1 works. Batches: blockIdx.y is the batch (each operand's base
// moved by its batch stride). The fused epilogue (core/epilogue.cuh) runs on
// the accumulators as they are packed for the store.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/element.cuh"
#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "ptx/cp_async.h"
#include "ptx/ldmatrix.h"
#include "ptx/mma_sync.h"
#include "sched/raster.h"
#include "sm89/mma_config.h"
#include "sm89/smem_layout.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm89 {

template <MmaConfig C>
struct Config {
  static constexpr int BM = C.bm, BN = C.bn, BK = C.bk;
  static constexpr int STAGES = C.stages;
  static constexpr int WARPS_M = C.warps_m, WARPS_N = C.warps_n;
  static constexpr int THREADS = WARPS_M * WARPS_N * 32;
  static constexpr int WM = BM / WARPS_M;  // rows of C per warp
  static constexpr int WN = BN / WARPS_N;  // columns of C per warp
  static constexpr int MT = WM / 16;       // m16 fragments per warp
  static constexpr int NT = WN / 8;        // n8 fragments per warp
  static constexpr bool SWIZZLE_A = C.swizzle_a, SWIZZLE_B = C.swizzle_b, B_X4 = C.b_x4;
  static constexpr int GROUP = 8;  // tile rows per group of the grouped raster
  // Resident blocks per SM the registers are budgeted for: 2 blocks of 8
  // warps cap a thread at 128 registers (65536 / (2 * 256)); a 64x64 warp
  // tile needs more (128 accumulators alone) and runs one block per SM.
  static constexpr int MIN_BLOCKS = C.min_blocks;
  static constexpr bool FRAG_DBUF = C.frag_double_buffer;
  // Address iterators: every shared offset and global address a thread uses
  // is computed once per block and stepped by constants (below, CopyPlan).
  static constexpr bool ADDR_ITER = C.addr_iter;
  // The next slice's copies issued a part per k16 step, between the MMAs,
  // instead of all at once after the barrier (CUTLASS's sm80 multistage
  // mainloop does the same): the load/store unit and the shared-memory port
  // see a steady trickle, and no warp starts a slice with a burst of copies.
  static constexpr bool SPREAD_COPIES = C.spread_copies;
  // The spread iterations unrolled by STAGES: every pipeline slot a constant.
  static constexpr bool UNROLL_STAGES = C.unroll_stages;
  // Where each k16 step's copies go among its ldmatrix and MMAs (SpreadOrder).
  static constexpr SpreadOrder ORDER = C.spread_order;
  static_assert(ORDER == SpreadOrder::copies_first || (SPREAD_COPIES && FRAG_DBUF),
                "the copy order is a choice of the spread, double-buffered iterations");
  // mmas_first hands the last step's part to the step before it.
  static_assert(ORDER != SpreadOrder::mmas_first || BK / 16 >= 2, "mmas_first needs two k16 steps a slice");
  static_assert(!UNROLL_STAGES || SPREAD_COPIES, "only the spread (whole-slice) iterations are unrolled");
  static constexpr int K_STEPS = BK / 16;  // k16 MMA steps per K slice
  static_assert(STAGES >= 2, "the pipeline needs at least two stages");
  static_assert(!FRAG_DBUF || K_STEPS % 2 == 0, "double-buffered fragments: an even number of k16 steps per slice");
  static_assert(BK % 16 == 0, "BK is a whole number of k16 MMA steps");
  static_assert(NT % 4 == 0, "the epilogue hands each lane of a quad one n8 fragment of every 4");
  static_assert(!ADDR_ITER || B_X4, "address iterators are written for ldmatrix.x4 B loads");
  static_assert(!SPREAD_COPIES || ADDR_ITER, "spread copies are written for the address iterators");

  using ATile = SmemTile<BM, BK / 8, SWIZZLE_A>;  // BM rows of K
  template <Layout L>  // TN: BN rows of K;  NN: BK rows of N
  using BTile = SmemTile<L == Layout::TN ? BN : BK, (L == Layout::TN ? BK : BN) / 8, SWIZZLE_B>;
  template <Layout L>
  static constexpr int smem_bytes() {
    return STAGES * (ATile::bytes + BTile<L>::bytes);
  }
};

// fp32-accumulating m16n8k16 for the element type.
template <DType DT>
__device__ __forceinline__ void mma_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if constexpr (DT == DType::f16) ptx::mma_m16n8k16_f32_f16(d, a, b);
  else ptx::mma_m16n8k16_f32_bf16(d, a, b);
}

// Per-lane accumulators of one m16n8 fragment: 4 floats, or 2 x f16x2.
template <Accum ACC>
struct Accumulator {
  float v[4];
};
template <>
struct Accumulator<Accum::f16> {
  uint32_t v[2];
};

// A warp tile's accumulators set to zero (before its first MMA).
template <Accum ACC, int MT, int NT>
__device__ __forceinline__ void zero_accumulators(Accumulator<ACC> (&acc)[MT][NT]) {
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (auto& v : acc[i][j].v) v = 0;
}

// The warp tile's MT x NT MMAs of one k16 step.
template <DType DT, Accum ACC, int MT, int NT>
__device__ __forceinline__ void mma_tile(Accumulator<ACC> (&acc)[MT][NT], const uint32_t (&a)[MT][4],
                                         const uint32_t (&b)[NT][2]) {
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      if constexpr (ACC == Accum::f32) {
        mma_f32<DT>(acc[i][j].v, a[i], b[j]);
      } else {
        ptx::mma_m16n8k16_f16_f16(acc[i][j].v, a[i], b[j]);
      }
    }
}

// v[i] for a run-time i, as selects (a run-time index into a register array
// would move the array to local memory).
__device__ __forceinline__ uint32_t select4(const uint32_t (&v)[4], int i) {
  return i == 0 ? v[0] : i == 1 ? v[1] : i == 2 ? v[2] : v[3];
}

struct Params {
  const void* A;
  const void* B;
  void* C;
  int M, N, K;
  int64_t lda, ldb, ldc;  // elements
  int tiles_m, tiles_n;
  bool grouped;
  Epilogue ep;
  int64_t batch0;                  // batch of blockIdx.y == 0 (launches cover 65535 batches each)
  int64_t stride_a, stride_b, stride_c;  // elements between batches
};

// cp.async one 16-byte chunk of a row, zero-filling what lies past `limit`
// (the row's last valid column) or the whole chunk if the row is invalid.
template <class T>
__device__ __forceinline__ void copy_chunk(uint32_t dst, const T* base, int64_t ld, int row, int col,
                                           bool row_ok, int limit) {
  const int left = limit - col;
  const uint32_t bytes = (row_ok && left > 0) ? (left >= 8 ? 16u : uint32_t(left) * 2u) : 0u;
  // With 0 bytes nothing is read; still hand the copy an in-bounds address.
  const T* src = bytes ? base + static_cast<int64_t>(row) * ld + col : base;
  ptx::cp_async_cg_16(dst, src, bytes);
}

// ADDR_ITER: how one thread copies its share of a (rows x chunks) tile.
// Thread t copies chunk t % chunks of rows t / chunks + i * RSTEP: the chunk
// column never changes, the global address steps by RSTEP rows per copy, and
// the shared offset by RSTEP rows, a multiple of the swizzle's period, i.e. a
// constant the compiler folds into the instruction (SmemTile::period).
template <class Tile, int kThreads>
struct CopyPlan {
  static constexpr int RSTEP = kThreads / Tile::chunks, ITERS = Tile::rows / RSTEP;
  static_assert(kThreads % Tile::chunks == 0 && Tile::rows % RSTEP == 0, "whole rows per pass, whole passes");
  static_assert(RSTEP % Tile::period == 0, "rows RSTEP apart share the swizzle");
  static_assert(ITERS <= 32, "row-valid flags are one 32-bit mask");
  static __device__ __forceinline__ int row0() { return threadIdx.x / Tile::chunks; }
  static __device__ __forceinline__ int chunk() { return threadIdx.x % Tile::chunks; }
  static __device__ __forceinline__ uint32_t offset(int i) {
    return Tile::offset(row0(), chunk()) + i * RSTEP * Tile::row_bytes;
  }
};

// Bytes of a 16-byte chunk that lie before `limit` (elements from the chunk's first).
__device__ __forceinline__ uint32_t chunk_bytes(int left) {
  return left >= 8 ? 16u : left > 0 ? uint32_t(left) * 2u : 0u;
}

// ADDR_ITER: one lane's ldmatrix offsets, per k16 step (A, TN B) or per pair
// of n8 fragments (NN B), computed once; fragment i (j) adds i * 16 (j * 8)
// rows and NN step kk adds kk * 16 rows, multiples of the swizzle period.
template <class Cfg, Layout L>
struct FragmentLoader {
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::template BTile<L>;
  static constexpr int MT = Cfg::MT, NT = Cfg::NT;
  uint32_t a_frag[Cfg::K_STEPS] = {}, b_frag[L == Layout::TN ? Cfg::K_STEPS : NT / 2] = {};

  __device__ __forceinline__ void init(int warp_m, int warp_n, int lane) {
#pragma unroll
    for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
      a_frag[kk] = ATile::offset(warp_m * Cfg::WM + (lane & 15), kk * 2 + (lane >> 4));
      if constexpr (L == Layout::TN)
        b_frag[kk] = BTile::offset(warp_n * Cfg::WN + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1));
    }
    if constexpr (L == Layout::NN)
#pragma unroll
      for (int j = 0; j < NT; j += 2)
        b_frag[j / 2] = BTile::offset((lane & 7) + (((lane >> 3) & 1) << 3), (warp_n * Cfg::WN + j * 8) / 8 + (lane >> 4));
  }
  // The A and B fragments of k16 step kk from the slot whose tiles start at a_src / b_src.
  __device__ __forceinline__ void load(uint32_t a_src, uint32_t b_src, int kk, uint32_t (&a)[MT][4],
                                       uint32_t (&b)[NT][2]) const {
#pragma unroll
    for (int i = 0; i < MT; ++i) ptx::ldmatrix_x4(a[i], a_src + a_frag[kk] + i * 16 * ATile::row_bytes);
#pragma unroll
    for (int j = 0; j < NT; j += 2) {
      uint32_t r[4];
      if constexpr (L == Layout::TN) ptx::ldmatrix_x4(r, b_src + b_frag[kk] + j * 8 * BTile::row_bytes);
      else ptx::ldmatrix_x4_trans(r, b_src + b_frag[j / 2] + kk * 16 * BTile::row_bytes);
      b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
  }
};

// ---- epilogue: registers -> global, 16 bytes per lane (every kernel of the
// family ends with it; the fused epilogue is applied on the way). kAnyLdc:
// C's rows may start anywhere (ldc any, C 2-byte aligned), so every lane
// stores its 8 values one element at a time.
template <class Cfg, DType DT, Accum ACC, bool kAnyLdc = false>
__device__ __forceinline__ void store_accumulators(const Params& p, const Accumulator<ACC> (&acc)[Cfg::MT][Cfg::NT],
                                                   int m0, int n0, int warp_m, int warp_n, int lane, int64_t batch) {
  using T = typename Element<DT>::T;
  constexpr int MT = Cfg::MT, NT = Cfg::NT;
  // A lane holds 2 adjacent columns of rows (lane/4) and (lane/4 + 8) of each
  // m16n8 fragment; the 4 lanes of a quad together hold 8 adjacent columns.
  // Four shuffle rounds rotate the quad's values so that lane t of the quad
  // ends up with all 8 columns of fragment j = t: then every lane stores one
  // 16-byte vector, and a warp's store covers 8 rows x 64 contiguous bytes.
  T* C = static_cast<T*>(p.C) + batch * p.stride_c;
  const int quad = lane >> 2, t = lane & 3;
  with_epilogue(p.ep, [&](auto plain) {
    constexpr bool kPlain = decltype(plain)::value;
#pragma unroll
    for (int i = 0; i < MT; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // rows quad and quad + 8 of the fragment
        const int gm = m0 + warp_m * Cfg::WM + i * 16 + quad + 8 * h;
#pragma unroll
        for (int j0 = 0; j0 < NT; j0 += 4) {  // four n8 fragments: one per quad lane
          uint32_t packed[4];
#pragma unroll
          for (int j = 0; j < 4; ++j) {
            const int col = n0 + warp_n * Cfg::WN + (j0 + j) * 8 + 2 * t;  // this lane's column pair
            if constexpr (ACC == Accum::f32) {
              packed[j] = epilogue_apply<DT, kPlain>(p.ep, acc[i][j0 + j].v[2 * h], acc[i][j0 + j].v[2 * h + 1], gm,
                                                     col, p.M, p.N, batch);
            } else if constexpr (kPlain) {
              packed[j] = acc[i][j0 + j].v[h];
            } else {
              const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&acc[i][j0 + j].v[h]));
              packed[j] = epilogue_apply<DT, false>(p.ep, f.x, f.y, gm, col, p.M, p.N, batch);
            }
          }
          uint32_t got[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            // Round r: lane t reads quad lane (t + r) % 4, which sends its
            // columns of fragment j = (its t - r) % 4, i.e. the reader's t.
            const uint32_t send = select4(packed, (t - r) & 3);
            got[r] = __shfl_sync(0xffffffffu, send, (quad << 2) | ((t + r) & 3));
          }
          // got[r] holds columns 2s, 2s+1 with s = (t + r) % 4: put them in order.
          // (Selects, not a lane-dependent array index, which would go to local memory.)
          uint32_t out[4];
#pragma unroll
          for (int s = 0; s < 4; ++s) out[s] = select4(got, (s - t) & 3);
          const int gn = n0 + warp_n * Cfg::WN + (j0 + t) * 8;
          if (gm < p.M && gn < p.N) {
            T* dst = C + static_cast<int64_t>(gm) * p.ldc + gn;
            if (!kAnyLdc && gn + 8 <= p.N) {
              *reinterpret_cast<uint4*>(dst) = make_uint4(out[0], out[1], out[2], out[3]);
            } else {
#pragma unroll
              for (int c = 0; c < 8; ++c) {  // constant c keeps `out` in registers
                const uint32_t pair = out[c / 2];
                const uint16_t bits = static_cast<uint16_t>(c % 2 ? pair >> 16 : pair & 0xffffu);
                if (c < p.N - gn) reinterpret_cast<uint16_t*>(dst)[c] = bits;
              }
            }
          }
        }
      }
    }
  });
}

template <class Cfg, DType DT, Accum ACC, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) mma_sync_gemm_kernel(const Params p) {
  using T = typename Element<DT>::T;
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::template BTile<L>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr int MT = Cfg::MT, NT = Cfg::NT;

  extern __shared__ __align__(128) uint8_t smem[];
  const uint32_t smem_a = ptx::smem_addr(smem);
  const uint32_t smem_b = smem_a + STAGES * ATile::bytes;

  const sched::TileCoord tile = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.grouped, Cfg::GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp % Cfg::WARPS_M, warp_n = warp / Cfg::WARPS_M;
  const int64_t batch = p.batch0 + blockIdx.y;
  const T* A = static_cast<const T*>(p.A) + batch * p.stride_a;
  const T* B = static_cast<const T*>(p.B) + batch * p.stride_b;

  // ---- global -> shared: one K slice of A and B into pipeline slot `stage`.
  auto load_slice = [&](int stage, int k_tile) {
    const int k0 = k_tile * BK;
    const uint32_t a_dst = smem_a + stage * ATile::bytes;
    for (int c = threadIdx.x; c < ATile::rows * ATile::chunks; c += Cfg::THREADS) {
      const int r = c / ATile::chunks, ch = c % ATile::chunks;
      copy_chunk(a_dst + ATile::offset(r, ch), A, p.lda, m0 + r, k0 + ch * 8, m0 + r < p.M, p.K);
    }
    const uint32_t b_dst = smem_b + stage * BTile::bytes;
    for (int c = threadIdx.x; c < BTile::rows * BTile::chunks; c += Cfg::THREADS) {
      const int r = c / BTile::chunks, ch = c % BTile::chunks;
      if constexpr (L == Layout::TN) {  // rows are n, chunks run along k
        copy_chunk(b_dst + BTile::offset(r, ch), B, p.ldb, n0 + r, k0 + ch * 8, n0 + r < p.N, p.K);
      } else {  // rows are k, chunks run along n
        copy_chunk(b_dst + BTile::offset(r, ch), B, p.ldb, k0 + r, n0 + ch * 8, k0 + r < p.K, p.N);
      }
    }
  };

  // ---- ADDR_ITER: the same copies from per-thread state set up once.
  // K runs along A's rows (and TN B's); NN B's rows are K. A row outside the
  // matrix or a chunk past its end copies 0 bytes (zero fill) from a valid
  // address, as copy_chunk does.
  using PlanA = CopyPlan<ATile, Cfg::THREADS>;
  using PlanB = CopyPlan<BTile, Cfg::THREADS>;
  const T* a_src = nullptr;
  const T* b_src = nullptr;
  // Rows of copy i: a_row + i * RSTEP (of M), b_row + i * RSTEP (of N for TN,
  // of the slice's K for NN).
  const int a_row = m0 + PlanA::row0(), b_row = (L == Layout::TN ? n0 : 0) + PlanB::row0();
  uint32_t b_cols = 0;  // NN: bytes of this thread's chunk inside N
  if constexpr (Cfg::ADDR_ITER) {
    a_src = A + static_cast<int64_t>(a_row) * p.lda + PlanA::chunk() * 8;
    if constexpr (L == Layout::TN) {
      b_src = B + static_cast<int64_t>(b_row) * p.ldb + PlanB::chunk() * 8;
    } else {
      b_src = B + static_cast<int64_t>(b_row) * p.ldb + n0 + PlanB::chunk() * 8;
      b_cols = chunk_bytes(p.N - (n0 + PlanB::chunk() * 8));
    }
  }
  // A slice whose K range lies inside the matrix (and, NN, whose B columns
  // are all inside N): every chunk is whole or outside M/N (zero-filled, its
  // address never read), so a copy needs no byte count. Copies i of this
  // thread's share with i % parts == part: SPREAD_COPIES issues one part per
  // k16 step (part and parts are constants once the step loop is unrolled).
  auto slice_whole = [&](int k_tile) { return (k_tile + 1) * BK <= p.K && (L == Layout::TN || b_cols == 16); };
  auto copy_whole = [&](int stage, int k_tile, int part, int parts) {
    const int k0 = k_tile * BK;
    const uint32_t a_dst = smem_a + stage * ATile::bytes, b_dst = smem_b + stage * BTile::bytes;
#pragma unroll
    for (int i = 0; i < PlanA::ITERS; ++i)
      if (i % parts == part)
        ptx::cp_async_cg_16_or_zero(a_dst + PlanA::offset(i), a_src + k0 + static_cast<int64_t>(i * PlanA::RSTEP) * p.lda,
                                    a_row + i * PlanA::RSTEP >= p.M);
    const T* b_slice = L == Layout::TN ? b_src + k0 : b_src + static_cast<int64_t>(k0) * p.ldb;
#pragma unroll
    for (int i = 0; i < PlanB::ITERS; ++i)
      if (i % parts == part)
        ptx::cp_async_cg_16_or_zero(b_dst + PlanB::offset(i), b_slice + static_cast<int64_t>(i * PlanB::RSTEP) * p.ldb,
                                    L == Layout::TN && b_row + i * PlanB::RSTEP >= p.N);
  };
  // Any other slice (the ragged last one, NN's last column of blocks): byte
  // counts per chunk, 0 for rows outside the matrix.
  auto copy_ragged = [&](int stage, int k_tile) {
    const int k0 = k_tile * BK;
    const uint32_t a_dst = smem_a + stage * ATile::bytes, b_dst = smem_b + stage * BTile::bytes;
    const uint32_t a_k = chunk_bytes(p.K - (k0 + PlanA::chunk() * 8));
#pragma unroll
    for (int i = 0; i < PlanA::ITERS; ++i) {
      const uint32_t bytes = a_row + i * PlanA::RSTEP < p.M ? a_k : 0u;
      const T* src = a_src + k0 + static_cast<int64_t>(i * PlanA::RSTEP) * p.lda;
      ptx::cp_async_cg_16(a_dst + PlanA::offset(i), bytes ? src : A, bytes);
    }
    if constexpr (L == Layout::TN) {
      const uint32_t b_k = chunk_bytes(p.K - (k0 + PlanB::chunk() * 8));
#pragma unroll
      for (int i = 0; i < PlanB::ITERS; ++i) {
        const uint32_t bytes = b_row + i * PlanB::RSTEP < p.N ? b_k : 0u;
        const T* src = b_src + k0 + static_cast<int64_t>(i * PlanB::RSTEP) * p.ldb;
        ptx::cp_async_cg_16(b_dst + PlanB::offset(i), bytes ? src : B, bytes);
      }
    } else {
      const T* slice = b_src + static_cast<int64_t>(k0) * p.ldb;
#pragma unroll
      for (int i = 0; i < PlanB::ITERS; ++i) {
        const uint32_t bytes = k0 + b_row + i * PlanB::RSTEP < p.K ? b_cols : 0u;
        const T* src = slice + static_cast<int64_t>(i * PlanB::RSTEP) * p.ldb;
        ptx::cp_async_cg_16(b_dst + PlanB::offset(i), bytes ? src : B, bytes);
      }
    }
  };
  auto load_slice_iter = [&](int stage, int k_tile) {
    if (slice_whole(k_tile)) copy_whole(stage, k_tile, 0, 1);
    else copy_ragged(stage, k_tile);
  };

  auto load = [&](int stage, int k_tile) {
    if constexpr (Cfg::ADDR_ITER) load_slice_iter(stage, k_tile);
    else load_slice(stage, k_tile);
  };

  Accumulator<ACC> acc[MT][NT];
  zero_accumulators(acc);

  // ---- shared -> registers: the A and B fragments of k16 step kk of slot `stage`.
  using AFrag = uint32_t[MT][4];
  using BFrag = uint32_t[NT][2];
  // ADDR_ITER: this lane's ldmatrix offsets, set up once (FragmentLoader).
  FragmentLoader<Cfg, L> frags;
  if constexpr (Cfg::ADDR_ITER) frags.init(warp_m, warp_n, lane);
  auto load_fragments_iter = [&](int stage, int kk, AFrag& a, BFrag& b) {
    frags.load(smem_a + stage * ATile::bytes, smem_b + stage * BTile::bytes, kk, a, b);
  };
  auto load_fragments_at = [&](int stage, int kk, AFrag& a, BFrag& b) {
    const uint32_t a_src = smem_a + stage * ATile::bytes;
    const uint32_t b_src = smem_b + stage * BTile::bytes;
    // A fragment (16x16): lanes 0-15 address rows 0-15 at k 0-7, lanes
    // 16-31 the same rows at k 8-15 -> registers a0..a3 in mma order.
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      const int row = warp_m * Cfg::WM + i * 16 + (lane & 15);
      ptx::ldmatrix_x4(a[i], a_src + ATile::offset(row, kk * 2 + (lane >> 4)));
    }
    if constexpr (L == Layout::TN) {
      if constexpr (Cfg::B_X4) {  // matrices: (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15)
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
          const int row = warp_n * Cfg::WN + j * 8 + (lane & 7) + ((lane >> 4) << 3);
          uint32_t r[4];
          ptx::ldmatrix_x4(r, b_src + BTile::offset(row, kk * 2 + ((lane >> 3) & 1)));
          b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
        }
      } else {  // matrices: (n0-7,k0-7) (n0-7,k8-15); lanes 16-31 ignored
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const int row = warp_n * Cfg::WN + j * 8 + (lane & 7);
          ptx::ldmatrix_x2(b[j], b_src + BTile::offset(row, kk * 2 + ((lane >> 3) & 1)));
        }
      }
    } else {  // NN: the tile is (k, n) row-major; .trans hands back (n, k)
      const int krow = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
      if constexpr (Cfg::B_X4) {
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
          uint32_t r[4];
          ptx::ldmatrix_x4_trans(r, b_src + BTile::offset(krow, (warp_n * Cfg::WN + j * 8) / 8 + (lane >> 4)));
          b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
        }
      } else {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          ptx::ldmatrix_x2_trans(b[j], b_src + BTile::offset(krow, (warp_n * Cfg::WN + j * 8) / 8));
        }
      }
    }
  };
  auto load_fragments = [&](int stage, int kk, AFrag& a, BFrag& b) {
    if constexpr (Cfg::ADDR_ITER) load_fragments_iter(stage, kk, a, b);
    else load_fragments_at(stage, kk, a, b);
  };
  // ---- registers -> tensor cores: the warp tile's MT x NT MMAs of one k16 step.
  auto mma_fragments = [&](const AFrag& a, const BFrag& b) { mma_tile<DT, ACC>(acc, a, b); };

  // ---- the pipeline: STAGES-1 slices in flight while one is multiplied.
  // Every iteration commits exactly one cp.async group (empty past the end),
  // so "wait until STAGES-2 groups remain" always means "the slice after the
  // last one waited for has landed".
  const int k_tiles = (p.K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load(s, s);
    ptx::cp_async_commit_group();
  }
  // SPREAD_COPIES: while the slice to load is whole (its K range inside the
  // matrix) and the block's columns all lie inside N (NN), the iteration
  // issues part kk of it before step kk with no test at all -- a branch
  // between the steps would stop ptxas from hoisting step kk+1's ldmatrix
  // above step kk's MMAs. The iterations after those take the general path.
  const int spread_end =
      Cfg::SPREAD_COPIES && (L == Layout::TN || n0 + BN <= p.N) ? max(0, p.K / BK - (STAGES - 1)) : 0;
  int kt = 0;
  if constexpr (!Cfg::FRAG_DBUF) {
    auto iteration = [&](auto spread, auto... u) {
      // Slot of slice k: k % STAGES, or from u = kt % STAGES (unrolled).
      auto slot = [&](int k) {
        if constexpr (sizeof...(u) == 0) return k % STAGES;
        else return ((u + ...) + (k - kt)) % STAGES;
      };
      ptx::cp_async_wait_group<STAGES - 2>();
      // Slice kt is visible to all warps, and every warp is done with slot
      // (kt-1) % STAGES, which the load below overwrites.
      __syncthreads();
      const int next = kt + STAGES - 1;
      if constexpr (!decltype(spread)::value) {
        if (next < k_tiles) load(slot(next), next);
        ptx::cp_async_commit_group();
      }
#pragma unroll
      for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
        if constexpr (decltype(spread)::value) copy_whole(slot(next), next, kk, Cfg::K_STEPS);
        uint32_t a[MT][4], b[NT][2];
        load_fragments(slot(kt), kk, a, b);
        mma_fragments(a, b);
      }
      if constexpr (decltype(spread)::value) ptx::cp_async_commit_group();
    };
    if constexpr (Cfg::UNROLL_STAGES)
      while (kt + STAGES <= spread_end) {
#pragma unroll
        for (int u = 0; u < STAGES; ++u, ++kt) iteration(std::true_type{}, u);
      }
    if constexpr (Cfg::SPREAD_COPIES)
      for (; kt < spread_end; ++kt) iteration(std::true_type{});
    for (; kt < k_tiles; ++kt) iteration(std::false_type{});
  } else {
    // Fragments of step kk live in buffer kk % 2. On entry to iteration kt,
    // slice kt is visible and its step-0 fragments are in buffer 0.
    uint32_t a[2][MT][4], b[2][NT][2];
    ptx::cp_async_wait_group<STAGES - 2>();
    __syncthreads();
    load_fragments(0, 0, a[0], b[0]);
    auto iteration = [&](auto spread, auto... u) {
      auto slot = [&](int k) {
        if constexpr (sizeof...(u) == 0) return k % STAGES;
        else return ((u + ...) + (k - kt)) % STAGES;
      };
      // Slot (kt-1) % STAGES was last read before the barrier of iteration
      // kt-1 (see below), so it may be overwritten now.
      const int next = kt + STAGES - 1;
      if constexpr (!decltype(spread)::value) {
        if (next < k_tiles) load(slot(next), next);
        ptx::cp_async_commit_group();
      }
      // Part `part` of the next slice's copies (spread iterations only).
      auto copy_part = [&](int part) {
        if constexpr (decltype(spread)::value) copy_whole(slot(next), next, part, Cfg::K_STEPS);
      };
#pragma unroll
      for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
        if constexpr (Cfg::ORDER == SpreadOrder::copies_first) copy_part(kk);
        if (kk + 1 < Cfg::K_STEPS) {
          load_fragments(slot(kt), kk + 1, a[(kk + 1) % 2], b[(kk + 1) % 2]);
          if constexpr (Cfg::ORDER == SpreadOrder::ldsm_first) copy_part(kk);
        } else {
          if constexpr (Cfg::ORDER == SpreadOrder::ldsm_first) copy_part(kk);
          // Every fragment of slot kt is in registers: wait for slice kt+1,
          // publish it (and that slot kt is done) with the one barrier per
          // slice, and load its step 0 while this step's MMAs run.
          if constexpr (decltype(spread)::value) ptx::cp_async_commit_group();
          ptx::cp_async_wait_group<STAGES - 2>();
          __syncthreads();
          if (decltype(spread)::value || kt + 1 < k_tiles) load_fragments(slot(kt + 1), 0, a[0], b[0]);
        }
        mma_fragments(a[kk % 2], b[kk % 2]);
        // mmas_first: the step's part after its MMAs; the last step's part
        // with the one before it, ahead of the commit that closes the group.
        if constexpr (Cfg::ORDER == SpreadOrder::mmas_first)
          if (kk + 1 < Cfg::K_STEPS) {
            copy_part(kk);
            if (kk + 2 == Cfg::K_STEPS) copy_part(kk + 1);
          }
      }
    };
    if constexpr (Cfg::UNROLL_STAGES)
      while (kt + STAGES <= spread_end) {
#pragma unroll
        for (int u = 0; u < STAGES; ++u, ++kt) iteration(std::true_type{}, u);
      }
    if constexpr (Cfg::SPREAD_COPIES)
      for (; kt < spread_end; ++kt) iteration(std::true_type{});
    for (; kt < k_tiles; ++kt) iteration(std::false_type{});
  }
  ptx::cp_async_wait_group<0>();

  store_accumulators<Cfg, DT, ACC>(p, acc, m0, n0, warp_m, warp_n, lane, batch);
}

// ---- host side: `kernel` (taking Params) over the output tiles of `a`, Cfg's
// BM x BN each, with `threads` per block and `smem` bytes of dynamic shared memory.
template <class Cfg, class Kernel>
Status launch_over_tiles(const GemmArgs& a, Kernel kernel, int threads, int smem, const char* name) {
  if (smem > 48 * 1024) {
    // Above 48 KB a block's dynamic shared memory must be opted into.
    TCGEMM_TRY(opt_in_smem(kernel, smem));  // once per kernel and device
  }
  Params p{a.A, a.B, a.C, static_cast<int>(a.M), static_cast<int>(a.N), static_cast<int>(a.K),
           a.lda, a.ldb, a.ldc, static_cast<int>(ceil_div(a.M, Cfg::BM)),
           static_cast<int>(ceil_div(a.N, Cfg::BN)), a.grid_swizzle, a.epilogue, 0,
           a.batch_stride_a, a.batch_stride_b, a.batch_stride_c};
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  if (blocks > 0x7fffffff) return Status::Error(StatusCode::not_supported, "too many output tiles for one grid");
  // gridDim.y is at most 65535: larger batches take one launch per 65535.
  for (p.batch0 = 0; p.batch0 < a.batch; p.batch0 += 65535) {
    const unsigned batches = static_cast<unsigned>(a.batch - p.batch0 < 65535 ? a.batch - p.batch0 : 65535);
    kernel<<<dim3(static_cast<unsigned>(blocks), batches), threads, smem, a.stream>>>(p);
    TCGEMM_TRY(check_launch(name));
  }
  return Status::Ok();
}

template <class Cfg, DType DT, Accum ACC, Layout L>
Status launch_mma_sync(const GemmArgs& a) {
  return launch_over_tiles<Cfg>(a, mma_sync_gemm_kernel<Cfg, DT, ACC, L>, Cfg::THREADS, Cfg::template smem_bytes<L>(),
                                "mma_sync_gemm_kernel");
}

template <class Cfg, DType DT, Accum ACC, Layout L>
struct MmaSyncLaunch {
  static Status run(const GemmArgs& a) { return launch_mma_sync<Cfg, DT, ACC, L>(a); }
};

// The dtype / accumulator / layout combinations one registry entry serves
// (Launch: which kernel template runs them).
template <class Cfg, template <class, DType, Accum, Layout> class Launch = MmaSyncLaunch>
Status launch_variant(const GemmArgs& a) {
  const bool tn = a.layout == Layout::TN;
  if (a.dtype == DType::f16 && a.accum == Accum::f32)
    return tn ? Launch<Cfg, DType::f16, Accum::f32, Layout::TN>::run(a)
              : Launch<Cfg, DType::f16, Accum::f32, Layout::NN>::run(a);
  if (a.dtype == DType::f16 && a.accum == Accum::f16)
    return tn ? Launch<Cfg, DType::f16, Accum::f16, Layout::TN>::run(a)
              : Launch<Cfg, DType::f16, Accum::f16, Layout::NN>::run(a);
  if (a.dtype == DType::bf16 && a.accum == Accum::f32)
    return tn ? Launch<Cfg, DType::bf16, Accum::f32, Layout::TN>::run(a)
              : Launch<Cfg, DType::bf16, Accum::f32, Layout::NN>::run(a);
  return Status::Error(StatusCode::not_supported,
                       "bf16 mma.sync has no f16 accumulator form (PTX ISA: mma .m16n8k16 .bf16 "
                       "takes .f32 accumulators only); use accumulate='f32'");
}

}  // namespace tcgemm::sm89
