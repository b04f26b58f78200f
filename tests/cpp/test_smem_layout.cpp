// Shared-memory layouts of the Ada family (cpp/src/sm89/smem_layout.h):
// each swizzle is a bijection, and it makes the access patterns the kernel
// uses free of bank conflicts, which the unswizzled layout is not.
#include <set>

#include "check.h"
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
  return finish("test_smem_layout");
}
