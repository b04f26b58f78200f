// Shared-memory layouts of the Ada family (cpp/src/sm89/smem_layout.h):
// each swizzle is a bijection, and it makes the access patterns the kernel
// uses free of bank conflicts, which the unswizzled layout is not. And the
// FP8 kernel's fragments (cpp/src/sm89/fp8_fragments.h): ldmatrix.x4 with the
// 16-bit kernel's row addresses hands every lane its m16n8k32 FP8 fragment.
#include <set>

#include "check.h"
#include "sm89/fp8_fragments.h"
#include "sm89/smem_layout.h"

using namespace tcgemm::sm89;

// 16-byte bank group (of 8 per 128-byte line) of a byte offset.
static int group_of(uint32_t off) { return static_cast<int>((off / 16) % 8); }

template <class Tile>
static bool bijective() {
  std::set<uint32_t> offs;
  for (int r = 0; r < Tile::rows; ++r)
    for (int c = 0; c < Tile::chunks; ++c) {
      uint32_t o = Tile::offset(r, c);
      if (o % 16 != 0 || o >= static_cast<uint32_t>(Tile::bytes)) return false;
      offs.insert(o);
    }
  return static_cast<int>(offs.size()) == Tile::rows * Tile::chunks;
}

// ldmatrix: one 8x8 matrix = 8 consecutive rows at one logical chunk; its 8
// row addresses are served in one pass only if their groups are distinct.
// Returns the worst conflict degree over all aligned 8-row groups and chunks.
template <class Tile>
static int ldmatrix_conflicts() {
  int worst = 1;
  for (int r0 = 0; r0 + 8 <= Tile::rows; r0 += 8)
    for (int c = 0; c < Tile::chunks; ++c) {
      int count[8] = {0};
      for (int r = r0; r < r0 + 8; ++r) ++count[group_of(Tile::offset(r, c))];
      for (int g : count) worst = g > worst ? g : worst;
    }
  return worst;
}

// cp.async: 8 consecutive threads write 8 consecutive logical chunks
// (row-major order); conflict-free if their groups are distinct.
template <class Tile>
static int copy_conflicts() {
  int worst = 1;
  const int total = Tile::rows * Tile::chunks;
  for (int t0 = 0; t0 + 8 <= total; t0 += 8) {
    int count[8] = {0};
    for (int t = t0; t < t0 + 8; ++t) ++count[group_of(Tile::offset(t / Tile::chunks, t % Tile::chunks))];
    for (int g : count) worst = g > worst ? g : worst;
  }
  return worst;
}

// The address iterators (Config::ADDR_ITER) step a thread's offsets by whole
// multiples of `period` rows and add a constant: the XOR must repeat there.
template <class Tile>
static bool periodic() {
  for (int r = 0; r + Tile::period < Tile::rows; ++r)
    for (int c = 0; c < Tile::chunks; ++c)
      if (Tile::offset(r + Tile::period, c) != Tile::offset(r, c) + Tile::period * Tile::row_bytes) return false;
  return true;
}

int main() {
  // A tiles and TN B tiles: 128 rows of BK = 16 or 32 elements.
  using A16 = SmemTile<128, 2, true>;
  using A32 = SmemTile<128, 4, true>;
  using A64 = SmemTile<128, 8, true>;
  // NN B tiles: BK rows of BN = 128 elements (16 chunks).
  using BNN16 = SmemTile<16, 16, true>;
  using BNN32 = SmemTile<32, 16, true>;
  CHECK(bijective<A16>());
  CHECK(bijective<A32>());
  CHECK(bijective<A64>());
  CHECK(bijective<BNN16>());
  CHECK(bijective<BNN32>());
  CHECK(ldmatrix_conflicts<A16>() == 1);
  CHECK(ldmatrix_conflicts<A32>() == 1);
  CHECK(ldmatrix_conflicts<A64>() == 1);
  CHECK(ldmatrix_conflicts<BNN16>() == 1);
  CHECK(ldmatrix_conflicts<BNN32>() == 1);
  CHECK(copy_conflicts<A16>() == 1);
  CHECK(copy_conflicts<A32>() == 1);
  CHECK(copy_conflicts<BNN16>() == 1);

  // Without the swizzle the same patterns conflict: 2-way for 32-byte rows,
  // 4-way for 64-byte rows, 8-way for the 256-byte rows of the NN B tile --
  // what the sm89.mma_swz step removes.
  CHECK((bijective<SmemTile<128, 2, false>>()));
  CHECK((ldmatrix_conflicts<SmemTile<128, 2, false>>() == 2));
  CHECK((ldmatrix_conflicts<SmemTile<128, 4, false>>() == 4));
  CHECK((ldmatrix_conflicts<SmemTile<16, 16, false>>() == 8));

  CHECK(periodic<A16>() && periodic<A32>() && periodic<A64>() && periodic<BNN16>() && periodic<BNN32>());
  CHECK((periodic<SmemTile<64, 32, true>>()));  // NN B of a 256-wide tile, BK = 64
  CHECK((periodic<SmemTile<128, 2, false>>()));
  // ... and with a shorter step it does not: the period is the smallest one.
  CHECK(!(A64::offset(4, 0) == A64::offset(0, 0) + 4 * A64::row_bytes));

  // Swizzling permutes chunks only within a row.
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 4; ++c) {
      SCOPED_CASE("A32 row %d chunk %d", r, c);
      CHECK(A32::offset(r, c) / 64 == static_cast<uint32_t>(r));
    }

  // FP8 m16n8k32: for every lane, register and byte, the (row, K byte) that
  // ldmatrix.x4 delivers is the element PTX puts there. A: registers 0-3 of
  // one x4 load. B (TN tile, rows are N): one x4 load is two n8 fragments,
  // registers 0-1 fragment j (n 0-7), 2-3 fragment j + 1 (n 8-15).
  int fp8_bytes = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r)
      for (int byte = 0; byte < 4; ++byte) {
        SCOPED_CASE("lane %d register %d byte %d", lane, r, byte);
        const fp8::RowCol a = fp8::ldmatrix_x4_byte(fp8::a_address, lane, r, byte);
        const fp8::RowCol want_a = fp8::a_element(lane, r, byte);
        CHECK(a.row == want_a.row && a.col == want_a.col);
        const fp8::RowCol b = fp8::ldmatrix_x4_byte(fp8::b_address, lane, r, byte);
        const fp8::RowCol want_b = fp8::b_element(lane, r % 2, byte);
        CHECK(b.row == want_b.row + 8 * (r / 2) && b.col == want_b.col);
        fp8_bytes += 2;
      }
  CHECK(fp8_bytes == 32 * 4 * 4 * 2);
  // Each fragment covers its matrix exactly once: A 16 x 32, B 8 x 32 bytes.
  std::set<int> a_cells, b_cells;
  for (int lane = 0; lane < 32; ++lane)
    for (int byte = 0; byte < 4; ++byte) {
      for (int r = 0; r < 4; ++r) a_cells.insert(fp8::a_element(lane, r, byte).row * 32 + fp8::a_element(lane, r, byte).col);
      for (int r = 0; r < 2; ++r) b_cells.insert(fp8::b_element(lane, r, byte).row * 32 + fp8::b_element(lane, r, byte).col);
    }
  CHECK(a_cells.size() == 16 * 32 && *a_cells.rbegin() == 16 * 32 - 1);
  CHECK(b_cells.size() == 8 * 32 && *b_cells.rbegin() == 8 * 32 - 1);
  // sm_90's two f16 MMAs per k32 step: for each f16 K of MMA h, the FP8 K
  // that A's and B's registers hold is the same, and the 16 f16 K of MMA h
  // cover FP8 K 16h .. 16h + 15 once each.
  for (int h = 0; h < 2; ++h) {
    int fp8_of[16];
    for (int& x : fp8_of) x = -1;
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < 2; ++e) {
        for (int q = 0; q < 4; ++q) {
          int& x = fp8_of[fp8::f16_a_k(lane, q, e)];
          CHECK(x == -1 || x == fp8::sm90_a_k(lane, h, q, e));
          x = fp8::sm90_a_k(lane, h, q, e);
        }
        for (int q = 0; q < 2; ++q) {
          SCOPED_CASE("MMA %d lane %d B register %d half %d", h, lane, q, e);
          CHECK(fp8_of[fp8::f16_b_k(lane, q, e)] == fp8::sm90_b_k(lane, h, q, e));
        }
      }
    std::set<int> ks(fp8_of, fp8_of + 16);
    CHECK(ks.size() == 16 && *ks.begin() == 16 * h && *ks.rbegin() == 16 * h + 15);
  }
  return finish("test_smem_layout");
}
