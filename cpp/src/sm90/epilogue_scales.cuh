// Epilogue part of the FP8 kernels: the dequantization scales
// (tcgemm/types.h, Scales; the kernels' form: common.cuh, kernel_scales),
// applied to a warpgroup's m64nBN fp32 accumulators before the fused
// epilogue, so that D = act(alpha * scale_a * scale_b * (A B) + beta * S + bias)
// as torch._scaled_mm has it. Fragment layout (ptx/wgmma.h): a lane holds rows
// lane/4 and lane/4 + 8 of its warp's 16, columns 8j + 2 (lane % 4) + {0, 1}
// of each n8 block j; d[4j + 0..1] the first row, d[4j + 2..3] the second.
#pragma once
#include "ptx/cp_async.h"
#include "sm90/common.cuh"

namespace tcgemm::sm90 {

// The two rows of the 64 from row0 that this lane's accumulators hold.
__device__ __forceinline__ int fragment_row(int row0, int h) {
  return row0 + ((threadIdx.x / 32) % 4) * 16 + (threadIdx.x % 32) / 4 + 8 * h;
}

// Tensor-wise and row-wise scales: acc(r, c) *= scale_a[r] * scale_b[c].
// Rows and columns outside M x N read no scale (their values are never
// stored). The lanes of one t (lane % 4) all need the scales of the same
// columns, 8j + 2t + {0, 1} for every n8 block j: from BN = 64 on, lane
// (quad, t) loads them for blocks quad, quad + 8, ... (BN / 64 pairs) and
// the others take block j's from lane 4 (j % 8) + t by shuffle -- BN / 64
// loads per lane, not BN / 4, which at BN = 256 held 64 registers beside
// the 128 accumulators and spilled. Narrower tiles (the swap's n16, n32)
// load their few columns directly.
template <int BN>
__device__ __forceinline__ void scale_accumulators(const Scales& s, int row0, int col0, int M, int N,
                                                   float (&acc)[BN / 2]) {
  constexpr int kBlocks = BN / 8;
  const int quad = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
  float sa[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = fragment_row(row0, h);
    sa[h] = r < M ? s.a[static_cast<int64_t>(r) * s.a_stride] : 0.f;
  }
  auto column = [&](int col) { return col < N ? s.b[static_cast<int64_t>(col) * s.b_stride] : 0.f; };
  if constexpr (kBlocks % 8 != 0) {
#pragma unroll
    for (int j = 0; j < kBlocks; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const float sb = column(col0 + 8 * j + 2 * t + c);
        acc[4 * j + c] *= sa[0] * sb;
        acc[4 * j + 2 + c] *= sa[1] * sb;
      }
  } else {
    float held[kBlocks / 8][2];
#pragma unroll
    for (int i = 0; i < kBlocks / 8; ++i)
#pragma unroll
      for (int c = 0; c < 2; ++c) held[i][c] = column(col0 + 8 * (quad + 8 * i) + 2 * t + c);
#pragma unroll
    for (int j = 0; j < kBlocks; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const float sb = __shfl_sync(0xffffffffu, held[j / 8][c], 4 * (j % 8) + t);
        acc[4 * j + c] *= sa[0] * sb;
        acc[4 * j + 2 + c] *= sa[1] * sb;
      }
  }
}

// Block scales (DeepSeek's recipe, as DeepGEMM): the scales of 128-K block
// kb for this lane's two rows and the tile's 128-column block of B; the
// factor of a row is scale_a[r][kb] * scale_b[nb][kb]. Loaded a block or two
// before the block's wgmmas are waited on, so the loads' latency hides
// behind them -- and kept as loaded, multiplied only where promote() uses
// them: a product taken at the load is an instruction that waits for the
// loads' L2 round trip, and ptxas placed it among the block's wgmma issues
// (the next wgmmas then wait on the scales; the loop's SASS in
// tests/python/test_sass.py).
struct BlockScales {
  float a[2];  // scale_a of the lane's two rows (a row past M: row M - 1's)
  float b;     // scale_b of the tile's column block
};

__device__ __forceinline__ BlockScales load_block_scales(const Scales& s, int row0, int nb, int kb, int M) {
  BlockScales f;
  f.b = s.b[static_cast<int64_t>(nb) * s.b_stride + static_cast<int64_t>(kb) * s.b_stride_k];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = min(fragment_row(row0, h), M - 1);  // (a row past M: its sums are zero, never stored)
    f.a[h] = s.a[static_cast<int64_t>(r) * s.a_stride + static_cast<int64_t>(kb) * s.a_stride_k];
  }
  return f;
}

// Block scales through the scale warp (BlockScaleLoads::scale_warp): the
// consumers' loads above are per lane, and their address arithmetic sits
// among a block's wgmma issues wherever ptxas puts it (docs/fp8.md). Here a
// producer warp copies the tile's scales of block kb into the stage's slot:
// lane l rows l, l + 32, ... of A's (a row past M: row M - 1's), lane 0 B's
// column block nb; each lane then arrives on the stage's full barrier once
// its copies have landed (cp.async.mbarrier.arrive.noinc; the barrier counts
// the 32 lanes). The consumers read them after the same wait that gives
// them the operands.
template <int BM>
__device__ __forceinline__ void copy_block_scales(const Scales& s, uint32_t slot, int m0, int nb, int kb, int M,
                                                  int lane) {
  // Indices as unsigned 32-bit values widened for the products: the scale
  // warp has the producer's 40 registers, and signed ones would keep a
  // sign word per row beside each row (ptxas then spilled).
  const auto k = static_cast<uint64_t>(static_cast<uint32_t>(kb));
  const float* a = s.a + k * s.a_stride_k;
#pragma unroll
  for (int i = 0; i < BM / 32; ++i) {
    const auto r = static_cast<uint32_t>(min(m0 + lane + 32 * i, M - 1));
    ptx::cp_async_ca_4(slot + (lane + 32 * i) * 4, a + static_cast<uint64_t>(r) * s.a_stride);
  }
  if (lane == 0)
    ptx::cp_async_ca_4(slot + BM * 4,
                       s.b + static_cast<uint64_t>(static_cast<uint32_t>(nb)) * s.b_stride + k * s.b_stride_k);
}

// A consumer's scales out of a stage's slot: its lane's two rows (row0: the
// warpgroup's first row in the tile) and the tile's column block.
template <int BM>
__device__ __forceinline__ BlockScales read_block_scales(uint32_t slot, int row0) {
  BlockScales f;
  f.a[0] = ptx::ld_shared_f32(slot + fragment_row(row0, 0) * 4);
  f.a[1] = ptx::ld_shared_f32(slot + fragment_row(row0, 1) * 4);
  f.b = ptx::ld_shared_f32(slot + BM * 4);
  return f;
}

// Promotion: acc += f * part, in fp32 -- the FP8 wgmma's own accumulation
// keeps fewer bits than fp32 (DeepSeek-V3 report, section 3.3.2: about 14),
// so a block's sum goes into full fp32 every 128 K.
// A part of NP columns (NP < BN: a wide tile summed afresh part by part)
// goes into the accumulators of columns [P * NP, (P + 1) * NP): a lane's
// fragment of an m64nN wgmma holds its n8 blocks in column order, 4 values
// each, so those are acc[P * NP / 2, (P + 1) * NP / 2).
template <int BN, int NP = BN, int P = 0>
__device__ __forceinline__ void promote(float (&acc)[BN / 2], const float (&part)[NP / 2], const BlockScales& s) {
  static_assert(BN % NP == 0 && (P + 1) * NP <= BN, "a part of the tile's columns");
  constexpr int o = P * NP / 2;
  const float b = __shfl_sync(0xffffffffu, s.b, 0);
  const float f0 = s.a[0] * b, f1 = s.a[1] * b;
#pragma unroll
  for (int j = 0; j < NP / 8; ++j) {
    acc[o + 4 * j + 0] = fmaf(f0, part[4 * j + 0], acc[o + 4 * j + 0]);
    acc[o + 4 * j + 1] = fmaf(f0, part[4 * j + 1], acc[o + 4 * j + 1]);
    acc[o + 4 * j + 2] = fmaf(f1, part[4 * j + 2], acc[o + 4 * j + 2]);
    acc[o + 4 * j + 3] = fmaf(f1, part[4 * j + 3], acc[o + 4 * j + 3]);
  }
}

// Promotion without block scales (tensor / row-wise scales with fp32
// accumulation, applied in the epilogue): acc += part, in fp32.
template <int BN, int NP = BN, int P = 0>
__device__ __forceinline__ void promote(float (&acc)[BN / 2], const float (&part)[NP / 2]) {
  static_assert(BN % NP == 0 && (P + 1) * NP <= BN, "a part of the tile's columns");
#pragma unroll
  for (int i = 0; i < NP / 2; ++i) acc[P * NP / 2 + i] += part[i];
}

}  // namespace tcgemm::sm90
