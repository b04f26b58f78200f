// Shared-memory tile layouts of the Ada (mma.sync) family, as pure functions
// so host tests can check them (tests/cpp/test_smem_layout.cpp).
//
// A tile is stored row-major as rows of `kChunks` 16-byte chunks (8 b16
// elements each): cp.async writes whole chunks, ldmatrix reads whole chunks
// (one 8-element row of an 8x8 matrix per lane address).
//
// Shared memory has 32 banks of 4 bytes, i.e. 8 "bank groups" of 16 bytes per
// 128-byte line. ldmatrix serves its 8 row addresses of one 8x8 matrix in one
// pass only if they fall in 8 different bank groups. Unswizzled, rows of 32
// bytes (BK = 16) put rows r and r+4 in the same group (2-way conflict); rows
// of 256 bytes (the NN B tile, BN = 128) put all 8 rows in one group (8-way).
// The XOR swizzle permutes the chunks inside each row with bits of the row
// index so the 8 rows of any ldmatrix phase land in 8 distinct groups, with
// no padding (CUTLASS calls this Swizzle<3,4,3>-style permutation).
#pragma once
#include <cstdint>

#include "sched/raster.h"  // TCGEMM_SCHED_FN

namespace tcgemm::sm89 {

constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x / 2); }

template <int kRows, int kChunks, bool kSwizzle>
struct SmemTile {
  static_assert((kChunks & (kChunks - 1)) == 0, "chunks per row must be a power of two");
  static constexpr int rows = kRows;
  static constexpr int chunks = kChunks;
  static constexpr int bytes = kRows * kChunks * 16;
  // How many chunks a row's XOR may permute (at most the 8 groups of a line),
  // and how many consecutive rows share one 128-byte line.
  static constexpr int span = kChunks < 8 ? kChunks : 8;
  static constexpr int row_shift = ilog2(8 / span);
  // Rows after which the XOR pattern repeats (span << row_shift = 8 lines'
  // worth of groups): offset(r + period, c) = offset(r, c) + period rows, so a
  // thread's addresses for rows a multiple of `period` apart differ by a
  // constant (what the address iterators of Config::ADDR_ITER rely on).
  static constexpr int period = kSwizzle ? 8 : 1;
  static constexpr int row_bytes = kChunks * 16;

  // Physical chunk of logical (row, chunk).
  static TCGEMM_SCHED_FN int chunk_at(int row, int chunk) {
    if constexpr (!kSwizzle) {
      return chunk;
    } else {
      return chunk ^ ((row >> row_shift) & (span - 1));
    }
  }
  // Byte offset of logical (row, chunk) from the tile's start.
  static TCGEMM_SCHED_FN uint32_t offset(int row, int chunk) {
    return static_cast<uint32_t>((row * kChunks + chunk_at(row, chunk)) * 16);
  }
};

}  // namespace tcgemm::sm89
