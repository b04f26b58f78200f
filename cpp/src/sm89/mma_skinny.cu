// Registry entry sm89.mma_skinny.s4: x @ w.T for few rows of x (decode) where
// w's rows start anywhere -- a weight whose K is not a multiple of 8 read in
// place, by aligned 16-byte loads, with no padding copy.
//
// The staged path copies such a weight into a padded buffer before the GEMM:
// for a decode shape (17 x 4097 x 4099) that copy moves twice the weight's
// bytes and the GEMM reads them once more, 0.6-0.7x cuBLAS's time
// (bench/results/h100_user_path.md, ragged rows). Reading the weight element
// by element (sm89.mma_ragged.s2) costs issue slots the 16-byte copies do not.
// Here every weight byte comes in an aligned 16-byte load:
//
// * Rows 8 apart start at the same offset c (0..7 elements) past a 16-byte
//   boundary: 8 rows are 16 * ld bytes. A block takes 16 such rows (r0 + 8i),
//   so it reads each of them as the aligned granules 8j - c .. 8j - c + 7
//   (j = 0, 1, ...): the row shifted right by c elements, with c elements of
//   the row before in front and the next row's after its end.
// * The sum over K does not care in which order k meets k: mma.sync's
//   fragment gives lane (g, t) the k pairs 2t and 2t + 8 of each k16 step, so
//   two steps hold 8 k per lane and row. Taken as 8 consecutive shifted k,
//   one granule of row g is lane (g, t)'s A operand of two MMAs; B (x) is
//   permuted alike: the same lane reads x[m][k' - c] for the same 8 shifted
//   k' (zero outside 0 <= k' - c < K) as its B operand of the same two MMAs.
// * Nothing outside a row may reach an MMA (0 x Inf is NaN where x's zeros
//   meet the neighbour's elements) nor any read outside the matrix: a
//   row's last granule is copied only up to the row's end (zero-filled), its
//   first one (when c > 0) copied whole and its lead zeroed once it lands,
//   and only granules whose 16 bytes would reach outside the matrix (its
//   first row's lead, its last row's end) are gathered element by element.
//
// The swap puts w's rows on the MMA's M side (16 per block) and x's rows on
// its N side (MB = 8, 16 or 32 per block, n8 tiles), so a decode call of a few rows wastes
// at most 7 columns of an n8 tile. A stage is KP shifted k: the block's 16
// weight rows and its MB x rows as they lie in memory (the aligned granules
// from the one at or before the stage's first element: up to 7 elements of
// lead, which the B read skips), copied by cp.async STAGES - 1 stages ahead
// (x's rows by the same rules as w's). Each warp multiplies one 32-k chunk of a
// stage; the warps' fp32 partial sums meet in shared memory at the end and
// are added in warp order: the result does not depend on timing.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "ptx/common.h"
#include "ptx/cp_async.h"
#include "ptx/mma_sync.h"
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {
namespace skinny {

constexpr int WARPS = 8, THREADS = 32 * WARPS;
constexpr int ROWS = 16;             // weight rows per block: r0 + 8i, i < 16, one 128-row band
constexpr int KP = WARPS * 32;       // shifted k per stage: one 32-k chunk per warp
constexpr int X_GRANULES = KP / 8 + 1;  // an x row's stage: KP elements after a lead of 0..7
// A stage row: an x row's granules and 48 bytes more (576 = 144 words), so
// rows g and g + 1 fall on opposite halves of the 32 banks: a warp's 16-byte
// A loads (8 rows x 64 bytes) take the minimum 4 wavefronts.
constexpr int ROW_BYTES = 16 * X_GRANULES + 48;

// Stages in the pipeline for MB x rows: as many as two blocks of an SM hold
// in 110.6 KB each (4 x 48 rows x 576 bytes), so the bytes in flight per SM
// do not shrink with the x tile (with 16 rows of a weight whose K is several
// thousand, each block's copies are its only work: it waits on memory).
__host__ __device__ constexpr int stages_for(int MB) { return MB <= 8 ? 8 : MB <= 16 ? 6 : 4; }

template <int MB, int STAGES = stages_for(MB)>
constexpr int smem_bytes() {
  constexpr int pipe = STAGES * (ROWS + MB) * ROW_BYTES, sums = WARPS * ROWS * (MB + 1) * 4;
  return pipe > sums ? pipe : sums;
}

// Elements k0 .. k0 + 7 of a row of K, each read only where 0 <= k < K (and
// the row exists), zero elsewhere.
TCGEMM_DEVICE uint4 gather(const uint16_t* row, bool row_ok, int k0, int K) {
  uint32_t w[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int k = k0 + 2 * e;
    const uint32_t lo = row_ok && k >= 0 && k < K ? row[k] : 0u;
    const uint32_t hi = row_ok && k + 1 >= 0 && k + 1 < K ? row[k + 1] : 0u;
    w[e] = lo | hi << 16;
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Granule [k0, k0 + 8) of a row of K (k0 on the 16-byte grid) into shared
// memory by cp.async, with no wait: a granule that runs past the row's end
// copies the row's part (cp.async's source size; the rest zero-filled), one
// that starts before the row (k0 < 0, the first stage only) is copied whole,
// from the bytes before it -- the row before it or the gap between rows,
// inside the matrix -- and its lead zeroed once it has landed (clear_lead).
// Where the 16 bytes would reach outside the matrix -- before its first
// element (`first`), or past the end of its last row (`last_row`: the bytes
// after it may lie past the allocation, and compute-sanitizer checks a
// cp.async's whole 16 bytes whatever its source size) -- the granule is
// gathered element by element and stored by this thread.
TCGEMM_DEVICE void stage_granule(uint32_t dst, const uint16_t* row, bool row_ok, int k0, int K,
                                 const uint16_t* first, bool last_row) {
  const bool past_end = k0 + 8 > K;
  if (!row_ok || k0 >= K) ptx::cp_async_cg_16(dst, first, 0);  // 16 zero bytes, nothing read
  else if (k0 >= 0 && !(past_end && last_row)) ptx::cp_async_cg_16(dst, row + k0, 2 * min(K - k0, 8));
  else if (k0 < 0 && row + k0 >= first && !past_end) ptx::cp_async_cg_16(dst, row + k0, 16);
  else ptx::st_shared_v4_b32(dst, gather(row, row_ok, k0, K));
}

// The elements of a granule staged from k0 < 0 that lie before its row: zero
// (0 x Inf would be NaN where x's zeros meet the row before's elements).
TCGEMM_DEVICE void clear_lead(uint32_t dst, int k0) {
  for (int e = 0; e < 8 && k0 + e < 0; ++e) ptx::st_shared_u16(dst + 2 * e, 0);
}

template <DType DT>
TCGEMM_DEVICE uint16_t to_bits(float v) {
  if constexpr (DT == DType::bf16) return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  else return __half_as_ushort(__float2half_rn(v));
}

// Grid: x = (row group, x-row block) with the x-row blocks of one group
// adjacent (they read the same weight rows, close together in time: the
// second read comes from L2); z = batch. Row group q: band q / 8, rows
// 128 (q / 8) + q % 8 + 8i.
template <DType DT, int MB>
__global__ void __launch_bounds__(THREADS, 2) mma_skinny_kernel(const Params p, int m_blocks) {
  constexpr int NT = MB / 8;  // n8 tiles of x rows
  constexpr int STAGES = stages_for(MB);
  extern __shared__ __align__(16) uint8_t smem[];
  const uint32_t smem_x = ptx::smem_addr(smem);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int group = blockIdx.x / m_blocks, m0 = (blockIdx.x % m_blocks) * MB;
  const int r0 = (group / 8) * 128 + group % 8;
  if (r0 >= p.N) return;  // a group past the last row (the last band's)
  const int64_t batch = p.batch0 + blockIdx.z;
  const uint16_t* X = static_cast<const uint16_t*>(p.A) + batch * p.stride_a;
  const uint16_t* W = static_cast<const uint16_t*>(p.B) + batch * p.stride_b;
  const int K = p.K;
  // The group's offset past a 16-byte boundary, in elements.
  const int c = static_cast<int>((reinterpret_cast<uintptr_t>(W + static_cast<int64_t>(r0) * p.ldb) >> 1) & 7);
  // Shifted k runs over 0 .. K + c - 1; stage p covers [p KP, p KP + KP).
  const int k_stages = (K + c + KP - 1) / KP;
  constexpr int STAGE_BYTES = (ROWS + MB) * ROW_BYTES;
  auto w_row = [&](int r) { return W + static_cast<int64_t>(r0 + 8 * r < p.N ? r0 + 8 * r : r0) * p.ldb; };
  auto x_row = [&](int m) { return X + static_cast<int64_t>(m0 + m < p.M ? m0 + m : 0) * p.lda; };
  // x row m lies lead(m) = (its offset from the grid - c) mod 8 elements past the grid at every
  // stage's first element p KP - c (KP is a multiple of 8).
  auto lead = [&](int m) { return static_cast<int>(((reinterpret_cast<uintptr_t>(x_row(m)) >> 1) - c) & 7); };
  const uint16_t* w_first = static_cast<const uint16_t*>(p.B);
  const uint16_t* x_first = static_cast<const uint16_t*>(p.A);
  // Stage st's granules into pipeline slot `slot`: weight row r's j-th at shifted k 8j, x row m's
  // j-th from its lead back; `visit` gets (shared address, row, row valid, k0 in the row, the
  // matrix's first element, whether the row is its last).
  auto each_granule = [&](int slot, int st, auto&& visit) {
    const uint32_t base = smem_x + slot * STAGE_BYTES;
#pragma unroll
    for (int i = threadIdx.x; i < ROWS * (KP / 8); i += THREADS) {
      const int r = i / (KP / 8), j = i % (KP / 8), n = r0 + 8 * r;
      visit(base + r * ROW_BYTES + 16 * j, w_row(r), n < p.N, st * KP + 8 * j - c, w_first, n == p.N - 1);
    }
    for (int i = threadIdx.x; i < MB * X_GRANULES; i += THREADS) {
      const int m = i / X_GRANULES, j = i % X_GRANULES;
      visit(base + (ROWS + m) * ROW_BYTES + 16 * j, x_row(m), m0 + m < p.M, st * KP - c - lead(m) + 8 * j,
            x_first, m0 + m == p.M - 1);
    }
  };
  auto load = [&](int slot, int st) {
    each_granule(slot, st,
                 [&](uint32_t dst, const uint16_t* row, bool ok, int k0, const uint16_t* first, bool last_row) {
                   stage_granule(dst, row, ok, k0, K, first, last_row);
                 });
  };
  int lead_of[NT];  // this lane's B rows: x rows nt * 8 + g
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) lead_of[nt] = lead(nt * 8 + g);

  float acc[NT][4] = {};
  for (int st = 0; st < STAGES - 1; ++st) {
    if (st < k_stages) load(st, st);
    ptx::cp_async_commit_group();
  }
  for (int st = 0; st < k_stages; ++st) {
    // Stage st has landed (this thread's copies; the barrier: everyone's), and every warp is done
    // with the slot of stage st - 1, which the next load refills.
    ptx::cp_async_wait_group<STAGES - 2>();
    if (st == 0)  // this thread's granules of stage 0 that began before their rows have landed
      each_granule(0, 0, [&](uint32_t dst, const uint16_t*, bool ok, int k0, const uint16_t*, bool) {
        if (ok && k0 < 0) clear_lead(dst, k0);
      });
    __syncthreads();
    if (st + STAGES - 1 < k_stages) load((st + STAGES - 1) % STAGES, st + STAGES - 1);
    ptx::cp_async_commit_group();
    const uint32_t base = smem_x + (st % STAGES) * STAGE_BYTES;
    // Lane (g, t)'s granule of the warp's chunk: shifted k 32 warp + 8t .. + 7.
    const uint32_t col = 2 * (warp * 32 + 8 * t);
    const uint4 a_lo = ptx::ld_shared_v4_b32(base + g * ROW_BYTES + col);
    const uint4 a_hi = ptx::ld_shared_v4_b32(base + (g + 8) * ROW_BYTES + col);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      // The same 8 shifted k of x row nt * 8 + g: lead_of[nt] elements further into its stage row,
      // read as five words and shifted by 16 bits where the lead is odd.
      const uint32_t at = base + (ROWS + nt * 8 + g) * ROW_BYTES + col + 4 * (lead_of[nt] >> 1);
      const uint32_t sh = 16 * (lead_of[nt] & 1);
      uint32_t w[5];
#pragma unroll
      for (int i = 0; i < 5; ++i) w[i] = ptx::ld_shared_b32(at + 4 * i);
      uint32_t b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) b[i] = __funnelshift_r(w[i], w[i + 1], sh);
      // k16 step 0: shifted k 8t .. 8t + 3 of the chunk (words 0, 1); step 1: 8t + 4 .. 8t + 7 (2, 3).
      mma_f32<DT>(acc[nt], {a_lo.x, a_hi.x, a_lo.y, a_hi.y}, {b[0], b[1]});
      mma_f32<DT>(acc[nt], {a_lo.z, a_hi.z, a_lo.w, a_hi.w}, {b[2], b[3]});
    }
  }
  ptx::cp_async_wait_group<0>();
  __syncthreads();  // the pipeline's shared memory is free for the sums

  // The warps' partial sums, [warp][fragment row][x row], then added in warp order.
  float* sums = reinterpret_cast<float*>(smem);
  constexpr int LD = MB + 1;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    float* s = sums + warp * ROWS * LD + nt * 8 + 2 * t;
    s[g * LD] = acc[nt][0], s[g * LD + 1] = acc[nt][1];
    s[(g + 8) * LD] = acc[nt][2], s[(g + 8) * LD + 1] = acc[nt][3];
  }
  __syncthreads();
  const Epilogue& e = p.ep;
  uint16_t* C = static_cast<uint16_t*>(p.C) + batch * p.stride_c;
  for (int i = threadIdx.x; i < ROWS * MB; i += THREADS) {
    const int r = i / MB, m = i % MB;
    const int n = r0 + 8 * r, row = m0 + m;
    if (n >= p.N || row >= p.M) continue;
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) v += sums[w * ROWS * LD + r * LD + m];
    if (!e.plain()) {
      float add = e.bias ? load_bias(e, n) : 0.f;
      if (e.beta != 0.f) {
        const uint16_t s = static_cast<const uint16_t*>(e.source)[batch * e.batch_stride_source +
                                                                   static_cast<int64_t>(row) * e.ld_source + n];
        const float sv = DT == DType::bf16 ? __uint_as_float(static_cast<uint32_t>(s) << 16)
                                           : __half2float(__ushort_as_half(s));
        add = fmaf(e.beta, sv, add);
      }
      v = activate(e.act, fmaf(e.alpha, v, add));
    }
    C[static_cast<int64_t>(row) * p.ldc + n] = to_bits<DT>(v);
  }
}

template <DType DT, int MB>
Status launch(const GemmArgs& a) {
  auto* kernel = mma_skinny_kernel<DT, MB>;
  constexpr int smem = smem_bytes<MB>();
  if constexpr (smem > 48 * 1024) TCGEMM_TRY(opt_in_smem(kernel, smem));
  const int64_t groups = ceil_div(a.N, 128) * 8, m_blocks = ceil_div(a.M, MB);
  if (groups * m_blocks > 0x7fffffff) return Status::Error(StatusCode::not_supported, "too many blocks for one grid");
  Params p{a.A, a.B, a.C, static_cast<int>(a.M), static_cast<int>(a.N), static_cast<int>(a.K),
           a.lda, a.ldb, a.ldc, 0, 0, false, a.epilogue, 0,
           a.batch_stride_a, a.batch_stride_b, a.batch_stride_c};
  for (p.batch0 = 0; p.batch0 < a.batch; p.batch0 += 65535) {
    const unsigned batches = static_cast<unsigned>(a.batch - p.batch0 < 65535 ? a.batch - p.batch0 : 65535);
    kernel<<<dim3(static_cast<unsigned>(groups * m_blocks), 1, batches), THREADS, smem, a.stream>>>(
        p, static_cast<int>(m_blocks));
    TCGEMM_TRY(check_launch("mma_skinny_kernel"));
  }
  return Status::Ok();
}

// x rows per block: the fewest n8 tiles that hold M, up to 32 rows a block;
// more rows take more blocks, each reading the weight rows again (the blocks
// of one row group are adjacent, so the second read comes from L2).
template <DType DT>
Status launch_rows(const GemmArgs& a) {
  if (a.M <= 8) return launch<DT, 8>(a);
  if (a.M <= 16) return launch<DT, 16>(a);
  return launch<DT, 32>(a);
}

}  // namespace skinny

Status launch_mma_skinny_s4(const GemmArgs& a) {
  if (a.layout != Layout::TN || a.accum != Accum::f32)
    return Status::Error(StatusCode::not_supported, "sm89.mma_skinny.s4 runs TN with fp32 accumulation only");
  return a.dtype == DType::bf16 ? skinny::launch_rows<DType::bf16>(a) : skinny::launch_rows<DType::f16>(a);
}

}  // namespace tcgemm::sm89
