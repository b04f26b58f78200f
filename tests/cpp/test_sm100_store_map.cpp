// The C store map and the staging layout of v8's TMA-store epilogue
// (sm100/operands.h store_map, sm100/descriptors.h store_staging_offset,
// device side epilogue_store_tma in sm100/kernel_common.cuh), no GPU needed.
// No sm_100 GPU exists here: this is how the epilogue's addressing is shown
// to agree with what the TMA unit does, on paper. For square, skinny and odd
// shapes:
//   1. the map's parameters: dims, strides, box, swizzle, and every rule of
//      cuTensorMapEncodeTiled (CUDA Driver API, "Tensor Map Object
//      Management: cuTensorMapEncodeTiled");
//   2. the staging box: every element the kernel writes sits where a
//      cp.async.bulk.tensor store with the map's box and 128B swizzle reads
//      it (PTX ISA, "Tensors: Tensor Access Modes / Swizzling Modes"), the
//      layout is a bijection onto the 16 KB box, and the kernel's 16-byte
//      shared stores are free of bank conflicts;
//   3. the kernel's store schedule over all tiles writes every element of C
//      exactly once and nothing outside M x N (TMA stores only the box
//      elements inside the tensor: PTX ISA "cp.async.bulk.tensor", tile
//      mode, out-of-bound elements are not written);
//   4. the double-buffered staging: bulk wait_group.read 1 before a box is
//      rewritten is enough when the box index is the issuer's running store
//      count (PTX ISA "cp.async.bulk.wait_group": .read waits until the
//      source of all but the N most recent bulk groups has been read).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "check.h"
#include "sm100/descriptors.h"
#include "sm100/operands.h"

using namespace tcgemm;
using namespace tcgemm::sm100;

namespace {

constexpr int kRows = 128;                 // BM: the CTA's rows, one TMEM lane each
constexpr int kTileN = 256;                // BN of the persistent kernel
constexpr uint32_t kBoxBytes = kRows * kStoreBoxCols * 2;

GemmArgs args(int64_t M, int64_t N, int64_t ldc, DType dt = DType::f16) {
  GemmArgs a;
  a.A = reinterpret_cast<const void*>(0x100000), a.B = reinterpret_cast<const void*>(0x200000);
  a.C = reinterpret_cast<void*>(0x300000);
  a.M = M, a.N = N, a.K = 64, a.dtype = dt, a.layout = Layout::TN;
  a.lda = a.ldb = 64, a.ldc = ldc;
  return a;
}

int64_t pitch(int64_t n) { return (n + 7) / 8 * 8; }

// TMA's shared-memory position of box element (i0, i1) (innermost first),
// modelled from the documentation, not from store_staging_offset: the box is
// laid out row after row, boxDim[0] * 2 bytes a row (PTX ISA "Tensors:
// Bounding Box" -- dense in shared memory), then the 128B swizzle permutes
// the 16-byte units of every 128-byte segment: unit u of the segment at
// 128-byte index s (s % 8 within the 1024-byte repeat) moves to u ^ (s % 8)
// (PTX ISA "Tensors: Swizzling Modes", 128B mode; CUDA C++ Programming Guide,
// "TMA Swizzle"). Valid for a 1024-byte aligned destination.
uint32_t tma_smem_offset(const tma::TensorMapParams& p, uint32_t i0, uint32_t i1) {
  const uint32_t linear = (i1 * p.box[0] + i0) * 2u;
  if (p.swizzle != tma::Swizzle::b128) return linear;
  const uint32_t segment = linear / 128u, unit = (linear / 16u) % 8u, byte = linear % 16u;
  return segment * 128u + ((unit ^ (segment % 8u)) * 16u) + byte;
}

// 1. The parameters (CUDA Driver API, cuTensorMapEncodeTiled).
void params_of(const GemmArgs& a) {
  SCOPED_CASE("%lldx%lld ldc %lld %s", (long long)a.M, (long long)a.N, (long long)a.ldc, to_string(a.dtype));
  tma::TensorMapParams p;
  const Status s = store_map(a, kRows, &p);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return;
  const std::string what = std::to_string(a.M) + "x" + std::to_string(a.N) + " ldc " + std::to_string(a.ldc);
  // every rule: rank 1..5, 16-byte aligned address, dims 1..2^32, strides
  // multiples of 16 and < 2^40, box dims 1..256, inner box bytes multiple of
  // 16 and <= the swizzle span, element strides 1..8
  CHECK_MSG(tma::check_params(p).ok(), "%s", what.c_str());
  CHECK(p.base == a.C && p.dtype == a.dtype && p.rank == 2);
  // globalDim, innermost first: {N, M}; globalStrides[0] = the row pitch in bytes
  CHECK_MSG(p.dims[0] == static_cast<uint64_t>(a.N) && p.dims[1] == static_cast<uint64_t>(a.M), "%s", what.c_str());
  CHECK_MSG(p.strides[0] == static_cast<uint64_t>(a.ldc) * 2u && p.strides[0] % 16 == 0, "%s", what.c_str());
  // boxDim {64, 128}: 64 columns = 128 bytes = exactly the 128B swizzle
  // span ("the inner dimension of the box must be <= the swizzle size"),
  // 128 rows <= 256; 16 KB per store
  CHECK(p.box[0] == static_cast<uint32_t>(kStoreBoxCols) && p.box[1] == static_cast<uint32_t>(kRows));
  CHECK(p.box[0] * 2u == static_cast<uint32_t>(tma::swizzle_span_bytes(tma::Swizzle::b128)));
  CHECK(p.swizzle == tma::Swizzle::b128 && p.elem_strides[0] == 1 && p.elem_strides[1] == 1);
  CHECK(p.box_bytes() == kBoxBytes && kBoxBytes % 1024 == 0);  // staging boxes stay 1024-byte aligned
}

// 2. The staging box: kernel writes vs TMA reads, bijection, bank conflicts.
void staging_layout() {
  tma::TensorMapParams p;
  CHECK(store_map(args(1000, 1000, 1000), kRows, &p).ok());
  std::vector<int> hits(kBoxBytes / 2, 0);
  bool same = true, inside = true;
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kStoreBoxCols; ++c) {
      const uint32_t k = store_staging_offset(r, c);  // where epilogue_store_tma writes C(r, c)
      inside &= k < kBoxBytes && k % 2 == 0;
      if (k < kBoxBytes) ++hits[k / 2];
      // box element (i0 = column, i1 = row) is read from here by the store
      same &= k == tma_smem_offset(p, static_cast<uint32_t>(c), static_cast<uint32_t>(r));
    }
  CHECK(inside && same);
  bool once = true;
  for (int h : hits) once &= h == 1;
  CHECK(once);  // every 2-byte slot of the 16 KB box written exactly once
  // A 16-byte chunk starts a 16-byte unit (st.shared.v4 needs the alignment).
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kStoreBoxCols / 8; ++j) CHECK(store_staging_offset(r, 8 * j) % 16 == 0);
  // Bank conflicts: lane l of epilogue warp quarter w writes row 32w + l;
  // a warp's 128-bit shared store is served 8 lanes (128 bytes) at a time,
  // conflict-free iff those 8 lanes hit 8 different 16-byte bank groups.
  // Unswizzled (row * 128 + chunk * 16) the same 8 lanes all hit one group.
  int conflicts = 0, unswizzled_conflicts = 0;
  for (int w = 0; w < 4; ++w)
    for (int j = 0; j < kStoreBoxCols / 8; ++j)
      for (int phase = 0; phase < 4; ++phase) {
        unsigned seen = 0, seen_plain = 0;
        for (int l = 8 * phase; l < 8 * phase + 8; ++l) {
          const int r = 32 * w + l;
          seen |= 1u << ((store_staging_offset(r, 8 * j) / 16) % 8);
          seen_plain |= 1u << (((static_cast<uint32_t>(r) * 128u + 16u * j) / 16) % 8);
        }
        conflicts += seen != 0xffu;
        unswizzled_conflicts += seen_plain != 0xffu;
      }
  CHECK(conflicts == 0);
  CHECK(unswizzled_conflicts == 4 * 8 * 4);  // why the staging box is swizzled
}

// 3. The kernel's store schedule (persistent_kernel + epilogue_store_tma):
// the CTA with rows m0 = tile_m * 128 of pair tile column n0 = tile_n * 256
// skips itself when m0 >= M, stores box q at (n0 + 64q, m0) unless n0 + 64q
// >= N. The CTA tiles are those of both CTAs of every pair: tiles_m rounded
// up to even (the odd CTA past M runs too). Walk every element of every box
// through the map.
void schedule_covers_c(const GemmArgs& a) {
  tma::TensorMapParams p;
  if (!store_map(a, kRows, &p).ok()) { CHECK(false); return; }
  const int64_t tiles_m = (a.M + kRows - 1) / kRows, tiles_n = (a.N + kTileN - 1) / kTileN;
  std::vector<uint8_t> hits(static_cast<size_t>(a.M * a.N), 0);
  bool addr_right = true, stray = false;
  int64_t boxes = 0;
  for (int64_t tm = 0; tm < (tiles_m + 1) / 2 * 2; ++tm)
    for (int64_t tn = 0; tn < tiles_n; ++tn) {
      const int64_t m0 = tm * kRows, n0 = tn * kTileN;
      if (m0 >= a.M) continue;
      for (int q = 0; q < kTileN / kStoreBoxCols; ++q) {
        const int64_t c0 = n0 + q * kStoreBoxCols;  // the store's coordinates {c0, m0}
        if (c0 >= a.N) break;
        ++boxes;
        for (uint32_t i1 = 0; i1 < p.box[1]; ++i1)
          for (uint32_t i0 = 0; i0 < p.box[0]; ++i0) {
            const int64_t x = c0 + i0, y = m0 + i1;
            if (x >= static_cast<int64_t>(p.dims[0]) || y >= static_cast<int64_t>(p.dims[1])) continue;  // clipped
            if (x >= a.N || y >= a.M) { stray = true; continue; }
            const int64_t g = x * 2 + y * static_cast<int64_t>(p.strides[0]);  // through the map
            addr_right &= g == (y * a.ldc + x) * 2;  // C(y, x), row-major with pitch ldc
            ++hits[static_cast<size_t>(y * a.N + x)];
          }
      }
    }
  bool once = true;
  for (uint8_t h : hits) once &= h == 1;
  CHECK_MSG(once && addr_right && !stray && boxes > 0, "%lldx%lld ldc %lld: %lld boxes", (long long)a.M,
            (long long)a.N, (long long)a.ldc, (long long)boxes);
}

// 4. Double-buffered staging. The issuer commits one bulk group per box,
// using box seq % 2, and waits for all but the newest group to have read
// their source before rewriting a box. Simulate tiles whose box counts vary
// (N edge: 1..4 boxes) and check no box is rewritten while a pending group
// still reads it -- with seq carried across tiles; restarting it per tile
// would be wrong (a 1-box tile followed by any tile reuses box 0 while its
// store may still be reading: the case the carried count exists for).
bool staging_safe(const std::vector<int>& boxes_per_tile, bool carry) {
  std::vector<int> pending;  // box index of each not-yet-read group, oldest first
  uint32_t seq = 0;
  for (int n : boxes_per_tile) {
    if (!carry) seq = 0;
    for (int q = 0; q < n; ++q, ++seq) {
      const int box = static_cast<int>(seq % 2);
      while (pending.size() > 1) pending.erase(pending.begin());  // wait_group.read 1
      for (int b : pending)
        if (b == box) return false;
      pending.push_back(box);  // store + commit_group
    }
  }
  return true;
}

}  // namespace

int main() {
  struct Shape { int64_t M, N, ldc; };
  const Shape shapes[] = {
      {4096, 4096, 4096},  // square
      {256, 256, 256},     // one pair tile
      {1, 4096, 4096},     // skinny: one row
      {4096, 8, 8},        // skinny: one 16-byte column
      {1, 1, 8},           // a single element
      {7, 13, 16},         // odd, both edges inside one box
      {130, 260, 264},     // odd: partial second tile row and a 4-column box
      {300, 72, 80},       // odd M with an odd pair count, N < one tile
      {1000, 1000, 1008},  // odd, padded pitch
      {129, 321, 1024},    // pitch far wider than N
  };
  for (const Shape& s : shapes)
    for (DType dt : {DType::f16, DType::bf16}) params_of(args(s.M, s.N, s.ldc, dt));
  staging_layout();
  for (const Shape& s : shapes) schedule_covers_c(args(s.M, s.N, s.ldc));
  // The rules the map must not break: a pitch that is not a multiple of 8
  // elements (16 bytes) is refused before the driver sees it.
  tma::TensorMapParams p;
  CHECK(!store_map(args(7, 13, 13), kRows, &p).ok());
  CHECK(!store_map(args(7, 13, 16), 257, &p).ok());
  // Double-buffered staging.
  CHECK(staging_safe({4, 4, 4, 4}, true) && staging_safe({1, 3, 1, 1, 2, 4, 1}, true));
  CHECK(staging_safe({4, 4, 4}, false));    // even box counts happen to work either way ...
  CHECK(!staging_safe({1, 4}, false));      // ... an odd one (N edge) does not, without the carried count
  return finish("test_sm100_store_map");
}
