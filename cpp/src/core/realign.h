// Eight 2-byte elements that start anywhere, out of the two aligned 16-byte
// granules they span: how the kernels that read ragged rows load them
// (sm89/mma_ragged_gemm.cuh, core/copy_matrices.cu's staging copies).
//
// A row of a matrix whose leading dimension is not a multiple of 8 elements
// starts at any even byte of a 16-byte granule, so its 8-element chunks do
// too. 16-byte loads must be aligned (PTX ISA, "Vectors": a vector access is
// aligned to its size), so a chunk that starts `skew` bytes into a granule is
// read as that granule and the next, and its four 32-bit words are cut out of
// the eight loaded: word j is bytes skew + 4j .. skew + 4j + 3 of the pair, a
// funnel shift of words skew / 4 + j and skew / 4 + j + 1 by (skew % 4) * 8
// bits. Two loads per chunk where the element-by-element gather made eight,
// and neighbouring chunks share their granules, which L1 serves.
//
// Pure functions, so host tests can check every skew (tests/cpp/test_realign.cpp).
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define TCGEMM_REALIGN_FN __host__ __device__ __forceinline__
#else
#define TCGEMM_REALIGN_FN inline
#endif

namespace tcgemm {

// The low 32 bits of (hi:lo) >> s, s < 32: SHF.R on the GPU.
TCGEMM_REALIGN_FN uint32_t funnel_right(uint32_t lo, uint32_t hi, uint32_t s) {
  return static_cast<uint32_t>(((static_cast<uint64_t>(hi) << 32) | lo) >> s);
}

// Word j (j < 4) of the chunk that starts `skew` bytes (even, < 16) into the
// granule pair g[0..7] (the first granule's words, then the second's). The
// word offset skew / 4 is chosen by selects, not an index into g: an array
// indexed by a value unknown at compile time would live in local memory.
TCGEMM_REALIGN_FN uint32_t realigned_word(const uint32_t (&g)[8], int j, uint32_t skew) {
  const uint32_t q = skew >> 2, s = (skew & 3) * 8;
  const uint32_t lo = q == 0 ? g[j] : q == 1 ? g[j + 1] : q == 2 ? g[j + 2] : g[j + 3];
  const uint32_t hi = q == 0 ? g[j + 1] : q == 1 ? g[j + 2] : q == 2 ? g[j + 3] : g[j + 4];
  return funnel_right(lo, hi, s);
}

// How many of a chunk's elements lie in its first granule: (16 - skew) / 2,
// 1 to 8; the rest come from the second. With `rem` elements left in the row
// from the chunk's start, both granules lie inside the row when
// rem >= that + 8 (at most 15 for any skew); 8 suffice where skew is 0 (one granule).
TCGEMM_REALIGN_FN int granule_pair_fits(uint32_t skew, int64_t rem) {
  return skew == 0 ? rem >= 8 : rem >= static_cast<int64_t>((16 - skew) / 2 + 8);
}

}  // namespace tcgemm
