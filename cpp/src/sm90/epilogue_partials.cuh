// Epilogue part: a split-K slice's fp32 accumulators, unrounded, into the
// partials workspace; splitk_reduce.cuh sums the slices in a fixed order and
// applies the caller's epilogue (Schedule::split_k, Operands::swapped).
#pragma once
#include "sm90/common.cuh"

namespace tcgemm::sm90 {

// Split-K: a warpgroup's m64nBN fp32 accumulators, unrounded, into its
// (batch, split) partial tile; splitk_reduce then sums the splits in order.
// In the wgmma fragment lane q = lane % 4 of a quad holds columns 2q, 2q+1
// of each n8 block in two rows (r and r + 8); the lanes of a pair (q, q ^ 1)
// swap one row's pair with a shuffle, so that each holds four consecutive
// columns of one row: one 16-byte store per block and lane where two 8-byte
// ones went before. The stores then cover the columns up to N rounded up to
// 4 (ld_partials), everything the reduction's 16-byte loads read.
template <int BN>
__device__ __forceinline__ void store_partials(const Params& p, int row0, int col0, int batch, int split,
                                               const float (&acc)[BN / 2]) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int rows = p.M - p.partial_row0;
  float* W = p.partials + (static_cast<int64_t>(batch) * p.splits + split) * rows * p.ld_partials -
             static_cast<int64_t>(p.partial_row0) * p.ld_partials;
  const bool odd = lane & 1;  // even lanes keep row r, odd lanes row r + 8
  const int gm = row0 + warp * 16 + lane / 4 + (odd ? 8 : 0);
  const int c4 = 2 * (lane % 4 & ~1);  // this pair's first column in each n8 block
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const float2 r0 = make_float2(acc[4 * j], acc[4 * j + 1]), r8 = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    const float2 send = odd ? r0 : r8;  // the row this lane gives to its partner
    const float2 got = make_float2(__shfl_xor_sync(0xffffffffu, send.x, 1), __shfl_xor_sync(0xffffffffu, send.y, 1));
    const float4 v = odd ? make_float4(got.x, got.y, r8.x, r8.y) : make_float4(r0.x, r0.y, got.x, got.y);
    const int gn = col0 + 8 * j + c4;
    // gn is a multiple of 4 and ld_partials a multiple of 4 >= N: the four fit.
    if (gm < p.M && gn < p.N) *reinterpret_cast<float4*>(W + static_cast<int64_t>(gm) * p.ld_partials + gn) = v;
  }
}

}  // namespace tcgemm::sm90
