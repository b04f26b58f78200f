// Why the Ada FP8 kernel (mma_fp8_gemm.cuh) loads its m16n8k32 fragments with
// the 16-bit kernel's ldmatrix addresses: pure functions of a lane, so a host
// test (tests/cpp/test_smem_layout.cpp) can check, byte by byte, that what
// ldmatrix.x4 (b16) hands each lane is the FP8 fragment PTX specifies.
//
// PTX ISA, "Matrix Fragments for mma.m16n8k32" (.e4m3/.e5m2, like .s8/.u8),
// groupID = lane / 4, tig (threadID_in_group) = lane % 4:
//   A (16 x 32, .row): element i (0..15) of a lane, byte i % 4 of register i / 4,
//     row = groupID + 8 if (i / 4) is odd, col (K) = 4 tig + i % 4 + 16 if i >= 8
//   B (32 x 8, .col):  element i (0..7), byte i % 4 of register i / 4,
//     row (K) = 4 tig + i % 4 + 16 if i >= 4, col (N) = groupID
// ldmatrix.x4 (b16): lanes 8r..8r+7 give the 8 row addresses (16 bytes each)
// of matrix r; register r of lane l then holds b16 elements 2 (l % 4) and
// 2 (l % 4) + 1 of row l / 4 of matrix r, i.e. its bytes 4 (l % 4) .. +3.
#pragma once
#include "sched/raster.h"  // TCGEMM_SCHED_FN

namespace tcgemm::sm89::fp8 {

struct RowCol {
  int row, col;
};

// (row, K) of byte `byte` (0..3) of A register `reg` (0..3) of `lane` (PTX).
TCGEMM_SCHED_FN RowCol a_element(int lane, int reg, int byte) {
  return {lane / 4 + 8 * (reg % 2), 4 * (lane % 4) + byte + 16 * (reg / 2)};
}

// (N, K) of byte `byte` of B register `reg` (0..1) of `lane` (PTX): B is .col,
// so it is read as N rows of K, the TN tile's own rows.
TCGEMM_SCHED_FN RowCol b_element(int lane, int reg, int byte) {
  return {lane / 4, 4 * (lane % 4) + byte + 16 * reg};
}

// The 16-bit kernel's ldmatrix.x4 row addresses (FragmentLoader::init, TN) for
// one 32-byte K step, as (tile row, 16-byte chunk of the step):
//   A: lanes 0-15 rows 0-15 at chunk 0, lanes 16-31 the same rows at chunk 1
//   B: matrices (n 0-7, chunk 0) (n 0-7, chunk 1) (n 8-15, chunk 0) (n 8-15, chunk 1)
TCGEMM_SCHED_FN RowCol a_address(int lane) { return {lane & 15, lane >> 4}; }
TCGEMM_SCHED_FN RowCol b_address(int lane) { return {(lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1}; }

// Which (tile row, byte of the K step) byte `byte` of register `reg` of
// `lane` receives from ldmatrix.x4 with the row addresses `address(lane)`.
template <class Address>
TCGEMM_SCHED_FN RowCol ldmatrix_x4_byte(Address address, int lane, int reg, int byte) {
  const RowCol src = address(8 * reg + lane / 4);  // the lane that addressed row lane / 4 of matrix reg
  return {src.row, 16 * src.col + 4 * (lane % 4) + byte};
}

// sm_90 (mma_fp8_gemm.cuh, step): k32 step = two f16 m16n8k16 MMAs, h = 0, 1.
// The FP8 K (0..31) that f16 MMA h's register q, half e holds, for A
// (register r = 2h + q % 2, bytes 2 (q / 2) + e) and B (register h, bytes
// 2q + e). The f16 fragment's own K (PTX ISA, m16n8k16 .f16): A 2 tig + e +
// 8 (q / 2), B 2 tig + e + 8q. For the MMA to be right, A and B must map each
// f16 K to the same FP8 K (tests/cpp/test_smem_layout.cpp).
TCGEMM_SCHED_FN int sm90_a_k(int lane, int h, int q, int e) { return 16 * h + 4 * (lane % 4) + 2 * (q / 2) + e; }
TCGEMM_SCHED_FN int sm90_b_k(int lane, int h, int q, int e) { return 16 * h + 4 * (lane % 4) + 2 * q + e; }
TCGEMM_SCHED_FN int f16_a_k(int lane, int q, int e) { return 2 * (lane % 4) + e + 8 * (q / 2); }
TCGEMM_SCHED_FN int f16_b_k(int lane, int q, int e) { return 2 * (lane % 4) + e + 8 * q; }

}  // namespace tcgemm::sm89::fp8
