// The Ada FP8 GEMM: cp.async pipeline -> ldmatrix -> mma.sync.m16n8k32 on
// e4m3/e5m2 operands, fp32 accumulation, torch._scaled_mm's scales:
//   D = act(alpha * scale_a * scale_b * (A B) + beta * S + bias)
// with bf16, fp16 or fp32 output.
//
// The mainloop is the 16-bit kernel's (mma_sync_gemm.cuh) read in bytes. A
// K slice of KE FP8 elements is stored, copied and swizzled exactly as a
// slice of KE / 2 16-bit elements (SmemTile, CopyPlan: 16-byte chunks), and
// the m16n8k32 FP8 fragments are byte for byte the m16n8k16 16-bit ones
// (fp8_fragments.h, host-tested), so FragmentLoader's ldmatrix.x4 addresses
// load them unchanged and each 16-bit k16 step is one FP8 k32 step. The
// Config of an FP8 entry is therefore the 16-bit Config of the same bytes
// (ladder::fp8_mma, mma_config.h).
//
// Layouts: TN only (B stored N x K, the weight of x @ w.T). FP8 mma.sync is
// .row.col only -- both operands K-major -- and ldmatrix.trans transposes b16
// elements, not bytes, so an N-major B would need a byte transpose in shared
// memory; the registry refuses NN with that reason instead.
//
// Scales (GemmArgs::scales, ScaleMode):
//   tensor, rowwise  applied in the epilogue: acc * scale_a[row] * scale_b[col]
//                    (a per-tensor scale is a row-wise one with stride 0)
//   block            promotion per 128-K block: a slice is one 128-K block,
//                    its MMAs accumulate into fresh fp32 fragments, which are
//                    then added to the running accumulators times
//                    scale_a[row][kb] * scale_b[col / 128][kb] (FFMA, IEEE
//                    fp32). Whatever the MMA's own accumulation keeps, a
//                    fragment never sums more than 128 K before it.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "ptx/cp_async.h"
#include "ptx/ldmatrix.h"
#include "ptx/mma_sync.h"
#include "sched/raster.h"
#include "sm89/mma_sync_gemm.cuh"
#include "sm89/smem_layout.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm89 {

struct Fp8Params {
  const uint8_t* A;
  const uint8_t* B;
  void* C;
  int M, N, K;
  int64_t lda, ldb, ldc;  // elements (bytes for A and B)
  int tiles_m, tiles_n;
  bool grouped;
  Epilogue ep;
  // Scales, both null for none: A's of row i and 128-K block kb at
  // sa[i * sa_row + kb * sa_k]; B's of column j (rowwise) or of 128-column
  // block j (block) at sb[j * sb_col + kb * sb_k]. Per-tensor: all strides 0.
  const float* sa;
  const float* sb;
  int64_t sa_row, sa_k, sb_col, sb_k;
};

// The m16n8k32 of an operand pair (e5m2 x e5m2 has no entry: torch._scaled_mm
// and check_args refuse it).
template <DType TA, DType TB>
__device__ __forceinline__ void mma_fp8(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  if constexpr (TA == DType::e4m3 && TB == DType::e4m3) {
    ptx::mma_m16n8k32_f32_e4m3_e4m3(d, a, b);
  } else if constexpr (TA == DType::e4m3 && TB == DType::e5m2) {
    ptx::mma_m16n8k32_f32_e4m3_e5m2(d, a, b);
  } else {
    static_assert(TA == DType::e5m2 && TB == DType::e4m3, "FP8 operands: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3");
    ptx::mma_m16n8k32_f32_e5m2_e4m3(d, a, b);
  }
}

// Bytes of a 16-byte chunk that lie before `left` bytes remain of the row.
__device__ __forceinline__ uint32_t chunk_bytes_fp8(int left) {
  return left >= 16 ? 16u : left > 0 ? uint32_t(left) : 0u;
}

// fp32 output: the epilogue of one element, D = act(alpha v + beta S + bias)
// with S fp32 (read only when beta != 0 and (row, col) lies inside M x N).
__device__ __forceinline__ float epilogue_f32(const Epilogue& e, float v, int row, int col, int M, int N) {
  float add = bias_or_zero(e, col, N);
  if (e.beta != 0.f && row < M && col < N)
    add = fmaf(e.beta, static_cast<const float*>(e.source)[static_cast<int64_t>(row) * e.ld_source + col], add);
  return activate(e.act, fmaf(e.alpha, v, add));
}

// fp32 output: each lane stores its column pair of every fragment row as one
// 8-byte vector (a warp's store: 8 rows x 32 contiguous bytes per fragment).
template <class Cfg>
__device__ __forceinline__ void store_f32(const Fp8Params& p, const Accumulator<Accum::f32> (&acc)[Cfg::MT][Cfg::NT],
                                          int m0, int n0, int warp_m, int warp_n, int lane) {
  float* C = static_cast<float*>(p.C);
  const int quad = lane >> 2, t = lane & 3;
  with_epilogue(p.ep, [&](auto plain) {
    constexpr bool kPlain = decltype(plain)::value;
#pragma unroll
    for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int gm = m0 + warp_m * Cfg::WM + i * 16 + quad + 8 * h;
#pragma unroll
        for (int j = 0; j < Cfg::NT; ++j) {
          const int gn = n0 + warp_n * Cfg::WN + j * 8 + 2 * t;
          float v0 = acc[i][j].v[2 * h], v1 = acc[i][j].v[2 * h + 1];
          if constexpr (!kPlain) {
            v0 = epilogue_f32(p.ep, v0, gm, gn, p.M, p.N);
            v1 = epilogue_f32(p.ep, v1, gm, gn + 1, p.M, p.N);
          }
          float* dst = C + static_cast<int64_t>(gm) * p.ldc + gn;
          if (gm < p.M && gn + 1 < p.N) *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
          else if (gm < p.M && gn < p.N) *dst = v0;
        }
      }
  });
}

template <class Cfg, DType TA, DType TB, DType TC, bool kBlock>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) mma_fp8_gemm_kernel(const Fp8Params p) {
  using ATile = typename Cfg::ATile;
  using BTile = typename Cfg::template BTile<Layout::TN>;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  constexpr int KE = 2 * Cfg::BK;  // FP8 elements (bytes) of K per slice
  constexpr int MT = Cfg::MT, NT = Cfg::NT;
  static_assert(Cfg::ADDR_ITER && Cfg::SPREAD_COPIES && !Cfg::FRAG_DBUF, "the FP8 mainloop is mma_spread's, single-buffered");
  static_assert(!kBlock || KE == kScaleBlockSize, "block scales: a slice is one 128-K block");
  static_assert(!kBlock || kScaleBlockSize % Cfg::WN == 0, "block scales: a warp's columns lie in one 128-column block");

  extern __shared__ __align__(128) uint8_t smem[];
  const uint32_t smem_a = ptx::smem_addr(smem);
  const uint32_t smem_b = smem_a + STAGES * ATile::bytes;

  const sched::TileCoord tile = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.grouped, Cfg::GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp % Cfg::WARPS_M, warp_n = warp / Cfg::WARPS_M;
  const int quad = lane >> 2, t = lane & 3;

  // ---- global -> shared (CopyPlan): chunk PlanX::chunk() of rows row0 + i * RSTEP.
  using PlanA = CopyPlan<ATile, Cfg::THREADS>;
  using PlanB = CopyPlan<BTile, Cfg::THREADS>;
  const int a_row = m0 + PlanA::row0(), b_row = n0 + PlanB::row0();
  const uint8_t* a_src = p.A + static_cast<int64_t>(a_row) * p.lda + PlanA::chunk() * 16;
  const uint8_t* b_src = p.B + static_cast<int64_t>(b_row) * p.ldb + PlanB::chunk() * 16;
  // A slice inside K: every chunk whole, or outside M / N (zero-filled, its
  // address never read). Copies i with i % parts == part (spread per k32 step).
  auto copy_whole = [&](int stage, int k_tile, int part, int parts) {
    const int k0 = k_tile * KE;
    const uint32_t a_dst = smem_a + stage * ATile::bytes, b_dst = smem_b + stage * BTile::bytes;
#pragma unroll
    for (int i = 0; i < PlanA::ITERS; ++i)
      if (i % parts == part)
        ptx::cp_async_cg_16_or_zero(a_dst + PlanA::offset(i), a_src + k0 + static_cast<int64_t>(i * PlanA::RSTEP) * p.lda,
                                    a_row + i * PlanA::RSTEP >= p.M);
#pragma unroll
    for (int i = 0; i < PlanB::ITERS; ++i)
      if (i % parts == part)
        ptx::cp_async_cg_16_or_zero(b_dst + PlanB::offset(i), b_src + k0 + static_cast<int64_t>(i * PlanB::RSTEP) * p.ldb,
                                    b_row + i * PlanB::RSTEP >= p.N);
  };
  // The ragged last slice: byte counts per chunk (any count: FP8 K need not
  // be a multiple of 16), 0 for rows outside the matrix.
  auto copy_ragged = [&](int stage, int k_tile) {
    const int k0 = k_tile * KE;
    const uint32_t a_dst = smem_a + stage * ATile::bytes, b_dst = smem_b + stage * BTile::bytes;
    const uint32_t a_k = chunk_bytes_fp8(p.K - (k0 + PlanA::chunk() * 16));
#pragma unroll
    for (int i = 0; i < PlanA::ITERS; ++i) {
      const uint32_t bytes = a_row + i * PlanA::RSTEP < p.M ? a_k : 0u;
      const uint8_t* src = a_src + k0 + static_cast<int64_t>(i * PlanA::RSTEP) * p.lda;
      ptx::cp_async_cg_16(a_dst + PlanA::offset(i), bytes ? src : p.A, bytes);
    }
    const uint32_t b_k = chunk_bytes_fp8(p.K - (k0 + PlanB::chunk() * 16));
#pragma unroll
    for (int i = 0; i < PlanB::ITERS; ++i) {
      const uint32_t bytes = b_row + i * PlanB::RSTEP < p.N ? b_k : 0u;
      const uint8_t* src = b_src + k0 + static_cast<int64_t>(i * PlanB::RSTEP) * p.ldb;
      ptx::cp_async_cg_16(b_dst + PlanB::offset(i), bytes ? src : p.B, bytes);
    }
  };
  auto load = [&](int stage, int k_tile) {
    if ((k_tile + 1) * KE <= p.K) copy_whole(stage, k_tile, 0, 1);
    else copy_ragged(stage, k_tile);
  };

  Accumulator<Accum::f32> acc[MT][NT];
  zero_accumulators(acc);

  FragmentLoader<Cfg, Layout::TN> frags;
  frags.init(warp_m, warp_n, lane);
  // The warp tile's MT x NT m16n8k32 MMAs of k32 step kk of slot `stage`.
  auto step = [&](int stage, int kk, Accumulator<Accum::f32> (&d)[MT][NT]) {
    uint32_t a[MT][4], b[NT][2];
    frags.load(smem_a + stage * ATile::bytes, smem_b + stage * BTile::bytes, kk, a, b);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // sm_90 has no FP8 mma.sync in hardware: ptxas lowers m16n8k32 .e4m3 to
    // F2FP unpacks and two HMMA.16816 itself, and its lowering of these
    // unrolled steps spills (352 bytes on fp8_mma). Converting each fragment
    // once per step here (cvt.rn.f16x2.e4m3x2: exact, every e4m3 and e5m2
    // value is an fp16 value) gives the same instructions without spills.
    // MMA h takes K bytes 16h..16h+15; inside it A and B see the same order of
    // K (fp8_fragments.h, sm90_*_k, host-tested), which a dot product ignores.
    uint32_t ah[MT][2][4], bh[NT][2][2];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        if constexpr (TA == DType::e4m3) ptx::cvt_rn_f16x2_e4m3x2(ah[i][r / 2][r % 2], ah[i][r / 2][2 + r % 2], a[i][r]);
        else ptx::cvt_rn_f16x2_e5m2x2(ah[i][r / 2][r % 2], ah[i][r / 2][2 + r % 2], a[i][r]);
      }
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        if constexpr (TB == DType::e4m3) ptx::cvt_rn_f16x2_e4m3x2(bh[j][r][0], bh[j][r][1], b[j][r]);
        else ptx::cvt_rn_f16x2_e5m2x2(bh[j][r][0], bh[j][r][1], b[j][r]);
      }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) ptx::mma_m16n8k16_f32_f16(d[i][j].v, ah[i][h], bh[j][h]);
#else
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int j = 0; j < NT; ++j) mma_fp8<TA, TB>(d[i][j].v, a[i], b[j]);
#endif
  };

  // Block scales: this lane's rows are m0 + warp_m * WM + i * 16 + quad + 8 h,
  // its warp's columns one 128-column block of B (static_assert above).
  const int row0 = m0 + warp_m * Cfg::WM + quad;
  const int col0 = n0 + warp_n * Cfg::WN;
  // Promote slice kt (128-K block kb = kt): acc += part * scale_a[row][kb] * scale_b[col / 128][kb].
  // The scales are loaded before the slice's MMAs and used after them, so
  // their latency hides behind the MMAs. Rows and columns outside the
  // matrix take scale 0 (their outputs are never stored).
  auto block_scales = [&](int kb, float (&s)[MT][2]) {
    const float sb = col0 < p.N ? __ldg(p.sb + static_cast<int64_t>(col0 / kScaleBlockSize) * p.sb_col + kb * p.sb_k) : 0.f;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + i * 16 + 8 * h;
        s[i][h] = row < p.M ? __ldg(p.sa + static_cast<int64_t>(row) * p.sa_row + kb * p.sa_k) * sb : 0.f;
      }
  };

  // ---- the pipeline (mma_sync_gemm.cuh's): STAGES-1 slices in flight, one
  // cp.async group committed per iteration, one barrier per slice.
  const int k_tiles = (p.K + KE - 1) / KE;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load(s, s);
    ptx::cp_async_commit_group();
  }
  // While the slice to load lies wholly inside K, its copies are issued a
  // part per k32 step with no test (mma_spread's iterations).
  const int spread_end = max(0, p.K / KE - (STAGES - 1));
  int kt = 0;
  auto iteration = [&](auto spread) {
    constexpr bool kSpread = decltype(spread)::value;
    ptx::cp_async_wait_group<STAGES - 2>();
    // Slice kt is visible to all warps, and every warp is done with slot
    // (kt-1) % STAGES, which the copies below overwrite.
    __syncthreads();
    const int next = kt + STAGES - 1;
    if constexpr (!kSpread) {
      if (next < k_tiles) load(next % STAGES, next);
      ptx::cp_async_commit_group();
    }
    if constexpr (kBlock) {
      float s[MT][2];
      block_scales(kt, s);
      Accumulator<Accum::f32> part[MT][NT];
      zero_accumulators(part);
#pragma unroll
      for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
        if constexpr (kSpread) copy_whole(next % STAGES, next, kk, Cfg::K_STEPS);
        step(kt % STAGES, kk, part);
      }
      if constexpr (kSpread) ptx::cp_async_commit_group();
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j].v[e] = fmaf(part[i][j].v[e], s[i][e / 2], acc[i][j].v[e]);
    } else {
#pragma unroll
      for (int kk = 0; kk < Cfg::K_STEPS; ++kk) {
        if constexpr (kSpread) copy_whole(next % STAGES, next, kk, Cfg::K_STEPS);
        step(kt % STAGES, kk, acc);
      }
      if constexpr (kSpread) ptx::cp_async_commit_group();
    }
  };
  for (; kt < spread_end; ++kt) iteration(std::true_type{});
  for (; kt < k_tiles; ++kt) iteration(std::false_type{});
  ptx::cp_async_wait_group<0>();

  // ---- epilogue. Tensor / row-wise scales: acc * scale_a[row] * scale_b[col]
  // (block scales are in the accumulators already).
  if constexpr (!kBlock) {
    if (p.sa != nullptr) {
      float sa[MT][2], sb[NT][2];
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = row0 + i * 16 + 8 * h;
          sa[i][h] = row < p.M ? __ldg(p.sa + static_cast<int64_t>(row) * p.sa_row) : 0.f;
        }
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int col = col0 + j * 8 + 2 * t + c;
          sb[j][c] = col < p.N ? __ldg(p.sb + static_cast<int64_t>(col) * p.sb_col) : 0.f;
        }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][j].v[e] *= sa[i][e / 2] * sb[j][e % 2];
    }
  }
  if constexpr (TC == DType::f32) {
    store_f32<Cfg>(p, acc, m0, n0, warp_m, warp_n, lane);
  } else {
    // 16-bit output: the 16-bit kernel's shuffle-assembled 16-byte stores.
    const Params q{p.A, p.B, p.C, p.M, p.N, p.K, p.lda, p.ldb, p.ldc, p.tiles_m, p.tiles_n, p.grouped, p.ep, 0, 0, 0, 0};
    store_accumulators<Cfg, TC, Accum::f32>(q, acc, m0, n0, warp_m, warp_n, lane, 0);
  }
}

// ---- host side.
template <class Cfg, DType TA, DType TB, DType TC, bool kBlock>
Status launch_fp8(const GemmArgs& a) {
  const auto kernel = mma_fp8_gemm_kernel<Cfg, TA, TB, TC, kBlock>;
  constexpr int smem = Cfg::template smem_bytes<Layout::TN>();
  // Above 48 KB a block's dynamic shared memory must be opted into (sm_89
  // allows 99 KB per block: every FP8 configuration stays within it).
  static_assert(smem <= 99 * 1024, "an sm_89 block has at most 99 KB of shared memory");
  if constexpr (smem > 48 * 1024) TCGEMM_TRY(opt_in_smem(kernel, smem));
  const Scales& s = a.scales;
  Fp8Params p{static_cast<const uint8_t*>(a.A), static_cast<const uint8_t*>(a.B), a.C, static_cast<int>(a.M),
              static_cast<int>(a.N), static_cast<int>(a.K), a.lda, a.ldb, a.ldc,
              static_cast<int>(ceil_div(a.M, Cfg::BM)), static_cast<int>(ceil_div(a.N, Cfg::BN)), a.grid_swizzle,
              a.epilogue, nullptr, nullptr, 0, 0, 0, 0};
  if (s.mode != ScaleMode::none) p.sa = s.a, p.sb = s.b;  // tensor: every stride 0
  if (s.mode == ScaleMode::rowwise || s.mode == ScaleMode::block) p.sa_row = s.a_stride, p.sb_col = s.b_stride;
  if (s.mode == ScaleMode::block) p.sa_k = s.a_stride_k, p.sb_k = s.b_stride_k;
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  if (blocks > 0x7fffffff) return Status::Error(StatusCode::not_supported, "too many output tiles for one grid");
  kernel<<<static_cast<unsigned>(blocks), Cfg::THREADS, smem, a.stream>>>(p);
  return check_launch("mma_fp8_gemm_kernel");
}

// One operand pair of an entry: the output type and (kBlockScales entries)
// the block-scale promotion chosen at run time.
template <class Cfg, DType TA, DType TB, bool kBlockScales>
Status launch_fp8_outputs(const GemmArgs& a) {
  const bool block = a.scales.mode == ScaleMode::block;
  if constexpr (kBlockScales) {
    if (block) {
      switch (a.c_type()) {
        case DType::bf16: return launch_fp8<Cfg, TA, TB, DType::bf16, true>(a);
        case DType::f16: return launch_fp8<Cfg, TA, TB, DType::f16, true>(a);
        case DType::f32: return launch_fp8<Cfg, TA, TB, DType::f32, true>(a);
        default: break;
      }
      return Status::Error(StatusCode::not_supported, "FP8 output: bfloat16, float16 or float32");
    }
  } else if (block) {
    return Status::Error(StatusCode::not_supported,
                         "block scales need a fresh fp32 fragment per 128-K block, which this entry's 64x64 warp "
                         "tile has no registers for: use sm89.fp8_mma.s3");
  }
  switch (a.c_type()) {
    case DType::bf16: return launch_fp8<Cfg, TA, TB, DType::bf16, false>(a);
    case DType::f16: return launch_fp8<Cfg, TA, TB, DType::f16, false>(a);
    case DType::f32: return launch_fp8<Cfg, TA, TB, DType::f32, false>(a);
    default: break;
  }
  return Status::Error(StatusCode::not_supported, "FP8 output: bfloat16, float16 or float32");
}

// An entry's launch: TN only (the header says why), then the operand pair.
using Fp8PairFn = Status (*)(const GemmArgs&);
inline Status launch_fp8_pairs(const GemmArgs& a, Fp8PairFn e4m3_e4m3, Fp8PairFn e4m3_e5m2, Fp8PairFn e5m2_e4m3) {
  if (a.layout != Layout::TN)
    return Status::Error(StatusCode::not_supported,
                         "FP8 mma.sync takes B K-major only (PTX: m16n8k32 .e4m3/.e5m2 is .row.col, and "
                         "ldmatrix.trans moves 16-bit elements, not bytes): pass B as the transpose of an N x K "
                         "matrix (x @ w.T), or transpose B first");
  if (a.batch != 1) return Status::Error(StatusCode::not_supported, "FP8 kernels take one matrix (batch = 1)");
  if (a.accum == Accum::f16)  // f32 and fast: mma.sync's FP8 forms used here add into fp32
    return Status::Error(StatusCode::not_supported, "these FP8 kernels accumulate in f32");
  const DType ta = a.dtype, tb = a.b_type();
  if (ta == DType::e4m3 && tb == DType::e4m3) return e4m3_e4m3(a);
  if (ta == DType::e4m3 && tb == DType::e5m2) return e4m3_e5m2(a);
  if (ta == DType::e5m2 && tb == DType::e4m3) return e5m2_e4m3(a);
  return Status::Error(StatusCode::not_supported, "FP8 operands: e4m3 x e4m3, e4m3 x e5m2 or e5m2 x e4m3");
}

}  // namespace tcgemm::sm89
