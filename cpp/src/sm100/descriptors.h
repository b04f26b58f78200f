// The pure arithmetic of the Blackwell (tcgen05) kernels: instruction and
// shared-memory descriptors, Tensor Memory addresses, where an MMA's K step
// starts in a shared-memory tile, the 2-CTA M-first tile pairing and the
// double-buffered TMEM phases (on top of the shared sched/ scheduler and ring).
//
// Every function is __host__ __device__ constexpr: the kernels call exactly
// these, and tests/cpp/test_sm100_descriptors.cpp / test_sm100_schedule.cpp
// check them field by field against the PTX ISA tables without a GPU (there
// is no sm_100 device here: these tests are how the encodings are proven).
#pragma once
#include <cstdint>

#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "tcgemm/types.h"

#ifdef __CUDACC__
#define TCGEMM_SM100_FN __host__ __device__ __forceinline__ constexpr
#define TCGEMM_SM100_RT_FN __host__ __device__ __forceinline__
#else
#define TCGEMM_SM100_FN inline constexpr
#define TCGEMM_SM100_RT_FN inline
#endif

namespace tcgemm::sm100 {

// Which dimension of an operand tile is contiguous in shared memory. The
// instruction descriptor calls K-major "No Transpose" and MN-major
// "Transpose" (PTX ISA 9.7.16.4.1, "Shared memory descriptor").
enum class Major : uint32_t { K = 0, MN = 1 };

// Swizzling-mode field of the shared memory descriptor, bits 61-63 (PTX ISA
// "Shared memory descriptor layout" table): 0 none, 1 128B with 32B atoms,
// 2 128B, 4 64B, 6 32B; 3, 5 and 7 are invalid.
enum class Swizzle : uint32_t { none = 0, b128_atom32 = 1, b128 = 2, b64 = 4, b32 = 6 };

// ---------------------------------------------------------------------------
// Instruction descriptor, .kind::f16 (PTX ISA 9.7.16.4.2, "Instruction
// descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and .kind::i8"):
//   bits 0-1 sparsity selector, 2 sparsity (dense 0), 3 saturate (0),
//   4-5 dtype (F16 0, F32 1), 6 reserved, 7-9 atype (F16 0, BF16 1),
//   10-12 btype, 13/14 negate A/B, 15/16 transpose A/B (1 = MN-major),
//   17-22 N >> 3, 23 reserved, 24-28 M >> 4, 29 reserved, 30-31 max shift (.ws).
// ---------------------------------------------------------------------------
TCGEMM_SM100_FN uint32_t idesc_f16(DType dt, int m, int n, Major a_major, Major b_major, bool f32_accum = true) {
  const uint32_t ab = dt == DType::bf16 ? 1u : 0u;
  return (f32_accum ? 1u : 0u) << 4 | ab << 7 | ab << 10 | static_cast<uint32_t>(a_major) << 15 |
         static_cast<uint32_t>(b_major) << 16 | (static_cast<uint32_t>(n) >> 3) << 17 |
         (static_cast<uint32_t>(m) >> 4) << 24;
}

// Shapes tcgen05.mma .kind::f16 accepts (PTX ISA tcgen05 "Matrix shape" table,
// dense): cta_group::1: M = 64 with N = 8..256 step 8, or M = 128 with N =
// 16..256 step 16; cta_group::2: M = 128 or 256 with N = 32..256 step 32.
TCGEMM_SM100_FN bool valid_mma_shape(int cta_group, int m, int n) {
  if (cta_group == 1) return (m == 64 && n % 8 == 0 && n >= 8 && n <= 256) || (m == 128 && n % 16 == 0 && n >= 16 && n <= 256);
  if (cta_group == 2) return (m == 128 || m == 256) && n % 32 == 0 && n >= 32 && n <= 256;
  return false;
}

// ---------------------------------------------------------------------------
// Shared memory descriptor (PTX ISA 9.7.16.4.1, "Shared memory descriptor
// layout" table): bits 0-13 encode(start address), 16-29 encode(LBO),
// 32-45 encode(SBO), 46-48 the fixed constant 0b001, 49-51 base offset
// (0: every tile here starts on its swizzle pattern's boundary), 52 LBO mode
// (0: relative), 53-60 zero, 61-63 swizzle mode; encode(x) = (x & 0x3FFFF) >> 4.
// ---------------------------------------------------------------------------
TCGEMM_SM100_FN uint64_t desc_encode(uint32_t x) { return (x & 0x3FFFFu) >> 4; }

TCGEMM_SM100_FN uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo, Swizzle sw) {
  return desc_encode(addr) | desc_encode(lbo) << 16 | desc_encode(sbo) << 32 | uint64_t{1} << 46 |
         uint64_t{static_cast<uint32_t>(sw)} << 61;
}

// The shared-memory tile layouts this family's TMA loads produce, and the LBO
// / SBO that describe them as the PTX ISA's canonical layouts ("Shared Memory
// Matrix Layouts": K-major ((8,m),(T,2k)), MN-major ((T,c,m),(8,k)), T = 16 B).
// `rows` is the tile's M (or N) extent, `bk` its K extent, in elements (2 B).
//
//   K-major,  none : [bk/8][rows][8]    16-byte columns of `rows` rows, each
//                    8x16B core matrix 128 contiguous bytes.
//                    SBO = 128 (next 8 rows), LBO = rows*16 (next 16-byte column)
//   K-major,  128B : [bk/64][rows][64]  128-byte rows, 8-row 1024-byte atoms.
//                    SBO = 1024 (next 8 rows), LBO unused ("assumed 1": 16)
//   MN-major, none : [rows/8][bk][8]    16-byte MN chunks of `bk` k-rows.
//                    LBO = 128 (next 8 k-rows), SBO = bk*16 (next MN chunk)
//   MN-major, 128B : [rows/64][bk][64]  128-byte k-rows, 8-k-row 1024-byte atoms.
//                    SBO = 1024 (next 8 k-rows), LBO = bk*128 (next 64-wide MN atom)
struct LboSbo {
  uint32_t lbo, sbo;
};
TCGEMM_SM100_FN LboSbo tile_lbo_sbo(Major major, Swizzle sw, int rows, int bk) {
  if (major == Major::K)
    return sw == Swizzle::none ? LboSbo{static_cast<uint32_t>(rows) * 16u, 128u} : LboSbo{16u, 1024u};
  return sw == Swizzle::none ? LboSbo{128u, static_cast<uint32_t>(bk) * 16u}
                             : LboSbo{static_cast<uint32_t>(bk) * 128u, 1024u};
}

// Byte offset, from the tile's start, of the operand of the kk-th MMA K step
// (K = 16 elements = 32 bytes per tcgen05.mma .kind::f16) in the layouts above.
// Inside a 128B-swizzled row the step moves the start address by 32 bytes;
// the hardware applies the swizzle to the final address, so the tile's atoms
// (not each step's start) are what must sit on 1024-byte boundaries.
TCGEMM_SM100_FN uint32_t kstep_offset(Major major, Swizzle sw, int rows, int kk) {
  const uint32_t k = static_cast<uint32_t>(kk), r = static_cast<uint32_t>(rows);
  if (major == Major::K)
    return sw == Swizzle::none ? k * 2u * r * 16u : (k / 4u) * r * 128u + (k % 4u) * 32u;
  return sw == Swizzle::none ? k * 2u * 128u : k * 16u * 128u;
}

TCGEMM_SM100_FN uint64_t operand_desc(uint32_t tile_addr, Major major, Swizzle sw, int rows, int bk, int kk) {
  const LboSbo o = tile_lbo_sbo(major, sw, rows, bk);
  return smem_desc(tile_addr + kstep_offset(major, sw, rows, kk), o.lbo, o.sbo, sw);
}

// ---------------------------------------------------------------------------
// Tensor Memory address (PTX ISA 9.7.16.1.1, "Tensor Memory Addressing"):
// bits 31-16 lane, bits 15-0 column.
// ---------------------------------------------------------------------------
TCGEMM_SM100_FN uint32_t tmem_addr(uint32_t base, uint32_t lane, uint32_t column) {
  return base + (lane << 16 | column);
}

// tcgen05.alloc: a power of two of at least 32 columns (PTX ISA 9.7.16.1.2).
TCGEMM_SM100_FN uint32_t tmem_columns(int n) {
  uint32_t c = 32;
  while (c < static_cast<uint32_t>(n)) c <<= 1;
  return c;
}

// ---------------------------------------------------------------------------
// 2-CTA tile pairing, M first. A cluster of two CTAs (ranks 0 and 1, the
// "CTA pair" of PTX ISA 9.7.16.5.1) computes one 256 x BN block of C with
// tcgen05 .cta_group::2: rank r owns the 128-row tile 2*pm + r of pair tile
// (pm, pn), so the two CTAs always share their N columns and sit one above
// the other along M -- what .cta_group::2 needs of their A halves (each CTA
// holds its own 128 rows of A, and half of B). The pair tiles are the work
// units of the shared persistent scheduler with cluster_m = 2 (grouped
// raster; group 1 is row-major). A rank-1 CTA past M still runs: it loads
// its half of B and stores nothing.
// ---------------------------------------------------------------------------
TCGEMM_SM100_RT_FN sched::PersistentSchedule pair_schedule(int tiles_m, int tiles_n, int group) {
  sched::PersistentSchedule s;
  s.tiles_m = tiles_m;
  s.tiles_n = tiles_n;
  s.group = group < 1 ? 1 : group;
  s.cluster_m = 2;
  return s;
}

TCGEMM_SM100_RT_FN sched::TileCoord pair_tile(int64_t pair_id, int rank, int tiles_m, int tiles_n, int group) {
  return pair_schedule(tiles_m, tiles_n, group).tile(pair_id, rank);
}

// ---------------------------------------------------------------------------
// The staging tile of the TMA-store epilogue (v8): a ROWS x 64 block of C
// (one 128-byte swizzle span of 16-bit columns per row) in shared memory,
// exactly as a cp.async.bulk.tensor store with box {64, ROWS} and
// CU_TENSOR_MAP_SWIZZLE_128B reads it (sm100/operands.h, store_map): row r
// at r * 128 bytes, its 16-byte chunk j (columns 8j .. 8j+7) at chunk
// j ^ (r % 8) of the row. The buffer starts on a 1024-byte boundary (the
// swizzle repeats every 8 rows), so the XOR is of the row's own index.
// A thread writes one row's chunk with st.shared.v4: the 8 threads of a
// 128-byte store phase hold rows r..r+7 and so hit 8 different chunks --
// conflict-free (unswizzled, all 8 would hit the same 4 banks).
// tests/cpp/test_sm100_store_map.cpp walks it against TMA's swizzle.
// ---------------------------------------------------------------------------
constexpr int kStoreBoxCols = 64;  // 16-bit columns per staging row: one 128B swizzle span

TCGEMM_SM100_FN uint32_t store_staging_offset(int r, int c) {
  const uint32_t row = static_cast<uint32_t>(r), chunk = static_cast<uint32_t>(c) / 8u;
  return row * 128u + ((chunk ^ (row % 8u)) * 16u) + (static_cast<uint32_t>(c) % 8u) * 2u;
}

// ---------------------------------------------------------------------------
// The double-buffered TMEM accumulator of the persistent kernels (v6, v7): a
// ring of two accumulators guarded by tmem_full / tmem_empty mbarrier pairs,
// walked like the shared-memory ring (sched/pipeline.h): a CTA's t-th tile
// accumulates into buffer t % 2 (TMEM columns (t % 2) * BN); the epilogue
// waits tmem_full[buf] for parity (t / 2) & 1, the MMA waits tmem_empty[buf]
// for the opposite parity (a fresh barrier passes it: both buffers start free).
// ---------------------------------------------------------------------------
TCGEMM_SM100_RT_FN sched::PipeState<2> tmem_accum_state(int64_t t) { return sched::PipeState<2>{}.advanced(t); }

}  // namespace tcgemm::sm100
