// Tensor-map parameters of the Blackwell load styles (cpp/src/sm100/operands.h
// over the shared cpp/src/tma/tensor_map.h), no GPU needed: for v1a (2-D,
// 16-byte boxes), v1b (3-D, 16-byte columns), v2a (2-D, 128B swizzle) and
// v2b (3-D, 128B swizzle), both B layouts, square / skinny / odd shapes.
// Each map must (a) pass every cuTensorMapEncodeTiled rule (check_params),
// (b) address exactly the elements the kernel means -- checked by walking the
// box's elements through the map's dims/strides and comparing with the
// operand's row-major (row, k) position -- and (c) land them in shared memory
// in the layout the shared-memory descriptors describe (descriptors.h).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "check.h"
#include "sm100/descriptors.h"
#include "sm100/operands.h"

using namespace tcgemm;
using namespace tcgemm::sm100;

static const void* fake(uintptr_t addr) { return reinterpret_cast<const void*>(addr); }

static GemmArgs args(int64_t M, int64_t N, int64_t K, Layout lay) {
  auto pitch = [](int64_t c) { return (c + 7) / 8 * 8; };
  GemmArgs a;
  a.A = fake(0x100000), a.B = fake(0x200000), a.C = reinterpret_cast<void*>(0x300000);
  a.M = M, a.N = N, a.K = K, a.dtype = DType::f16, a.layout = lay;
  a.lda = pitch(K), a.ldb = lay == Layout::NN ? pitch(N) : pitch(K), a.ldc = pitch(N);
  return a;
}

// Byte offset from the base of box element (i0, i1, i2) at coordinates c, or
// -1 if TMA would fill it (any coordinate outside its dimension).
static int64_t element_offset(const tma::TensorMapParams& p, const int64_t (&c)[3], const int (&i)[3]) {
  int64_t off = 0;
  for (int d = 0; d < p.rank; ++d) {
    const int64_t x = c[d] + i[d];
    if (x < 0 || x >= static_cast<int64_t>(p.dims[d])) return -1;
    off += d == 0 ? x * 2 : x * static_cast<int64_t>(p.strides[d - 1]);
  }
  return off;
}

// The shared-memory byte offset (before swizzling) of operand element (r, k)
// of a tile in the layouts of descriptors.h (tile_lbo_sbo).
static int64_t smem_offset(Major major, int chunk, int rows, int bk, int r, int k) {
  if (major == Major::K) return (static_cast<int64_t>(k / chunk) * rows + r) * chunk * 2 + (k % chunk) * 2;
  return (static_cast<int64_t>(r / chunk) * bk + k) * chunk * 2 + (r % chunk) * 2;
}

// Issue, on paper, the loads OperandTile::load makes for the slice (mn0, k0)
// and check that every shared-memory byte of the tile receives the operand
// element the layout says, or a TMA zero fill exactly when it is outside.
static void slice_lands_right(const GemmArgs& a, bool is_a, Load load, int rows, int bk, int mn0, int k0) {
  SCOPED_CASE("load %d %s %s %lldx%lldx%lld, slice (%d,%d) of %dx%d", static_cast<int>(load), is_a ? "A" : "B",
              to_string(a.layout), (long long)a.M, (long long)a.N, (long long)a.K, mn0, k0, rows, bk);
  OperandMaps m;
  const tma::Operand op = is_a ? tma::Operand::A : tma::Operand::B;
  Status s = operand_maps(a, op, load, rows, bk, &m);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return;
  const Major major = (is_a || a.layout == Layout::TN) ? Major::K : Major::MN;
  const int chunk = load_chunk(load);
  const int64_t mn_extent = is_a ? a.M : a.N;
  const int64_t ld = is_a ? a.lda : a.ldb;
  // Which maps, boxes and destinations the kernel uses for this slice.
  struct Box { const tma::TensorMapParams* map; int64_t c[3]; int64_t dst; };
  Box boxes[32];
  int n = 0;
  const bool full = major == Major::K ? k0 + bk <= a.K : mn0 + rows <= mn_extent;
  if (load_is_3d(load) && full) {
    CHECK(m.has_3d);
    boxes[n++] = major == Major::K ? Box{&m.map3d, {0, mn0, k0 / chunk}, 0} : Box{&m.map3d, {0, k0, mn0 / chunk}, 0};
  } else if (major == Major::K) {
    for (int j = 0; j < bk / chunk; ++j) boxes[n++] = Box{&m.map2d, {k0 + j * chunk, mn0, 0}, j * rows * chunk * 2};
  } else {
    for (int j = 0; j < rows / chunk; ++j) boxes[n++] = Box{&m.map2d, {mn0 + j * chunk, k0, 0}, j * bk * chunk * 2};
  }
  // Which tile element (r, k) each shared-memory element holds, from the layout.
  std::vector<int> at(static_cast<size_t>(rows) * bk, -1);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < bk; ++k) at[static_cast<size_t>(smem_offset(major, chunk, rows, bk, r, k) / 2)] = r * bk + k;
  // Walk every element of every box in TMA order (innermost first); its
  // shared-memory position is the box-linear order from the destination.
  int64_t total = 0;
  bool right = true;
  for (int b = 0; b < n; ++b) {
    const tma::TensorMapParams& p = *boxes[b].map;
    CHECK(tma::check_params(p).ok());
    CHECK(p.base == (is_a ? a.A : a.B));
    const int b2 = p.rank == 3 ? static_cast<int>(p.box[2]) : 1;
    int64_t lin = 0;
    for (int i2 = 0; i2 < b2; ++i2)
      for (int i1 = 0; i1 < static_cast<int>(p.box[1]); ++i1)
        for (int i0 = 0; i0 < static_cast<int>(p.box[0]); ++i0, ++lin) {
          const int64_t e = boxes[b].dst / 2 + lin;
          if (e >= static_cast<int64_t>(at.size()) || at[static_cast<size_t>(e)] < 0) { right = false; continue; }
          const int r = at[static_cast<size_t>(e)] / bk, k = at[static_cast<size_t>(e)] % bk;
          const int64_t g = element_offset(p, boxes[b].c, {i0, i1, i2});
          const int64_t gm = mn0 + r, gk = k0 + k;
          const bool inside = gm < mn_extent && gk < a.K;
          // The operand element's byte offset in its row-major storage.
          const int64_t want = major == Major::K ? (gm * ld + gk) * 2 : (gk * ld + gm) * 2;
          right &= inside ? g == want : g < 0;
          ++total;
        }
  }
  CHECK_MSG(right && total == static_cast<int64_t>(rows) * bk, "%lld elements%s", (long long)total,
            right ? "" : ", some in the wrong place");
}

// The parameters themselves, for the record: what v1a..v2b encode.
static void documented_params() {
  const GemmArgs a = args(1000, 1000, 1000, Layout::TN);  // lda = ldb = 1000
  OperandMaps m;
  // v1a A: dims {K, M}, stride ld*2, box {8, 128}, no swizzle.
  CHECK(operand_maps(a, tma::Operand::A, Load::tma2d_16B, 128, 64, &m).ok());
  CHECK(m.map2d.rank == 2 && m.map2d.dims[0] == 1000 && m.map2d.dims[1] == 1000 && m.map2d.strides[0] == 2000);
  CHECK(m.map2d.box[0] == 8 && m.map2d.box[1] == 128 && m.map2d.swizzle == tma::Swizzle::none);
  CHECK(m.map2d.box_bytes() == 128 * 16 && !m.has_3d);
  // v1b A: dims {8, M, K/8}, strides {ld*2, 16}, box {8, 128, 8}.
  CHECK(operand_maps(a, tma::Operand::A, Load::tma3d_16B, 128, 64, &m).ok());
  CHECK(m.has_3d && m.map3d.rank == 3 && m.map3d.dims[0] == 8 && m.map3d.dims[1] == 1000 && m.map3d.dims[2] == 125);
  CHECK(m.map3d.strides[0] == 2000 && m.map3d.strides[1] == 16);
  CHECK(m.map3d.box[0] == 8 && m.map3d.box[1] == 128 && m.map3d.box[2] == 8 && m.map3d.box_bytes() == 128 * 64 * 2);
  // v2a A: box {64, 128}, 128B swizzle (inner box = one swizzle span).
  CHECK(operand_maps(a, tma::Operand::A, Load::tma2d_128B, 128, 128, &m).ok());
  CHECK(m.map2d.box[0] == 64 && m.map2d.box[1] == 128 && m.map2d.swizzle == tma::Swizzle::b128);
  // v2b A: dims {64, M, K/64}, strides {ld*2, 128}, box {64, 128, 2}, 128B swizzle.
  CHECK(operand_maps(a, tma::Operand::A, Load::tma3d_128B, 128, 128, &m).ok());
  CHECK(m.has_3d && m.map3d.dims[0] == 64 && m.map3d.dims[2] == 15 && m.map3d.strides[1] == 128);
  CHECK(m.map3d.box[0] == 64 && m.map3d.box[1] == 128 && m.map3d.box[2] == 2 && m.map3d.swizzle == tma::Swizzle::b128);
  // NN B (MN-major, K x N): v1b dims {8, K, N/8}, box {8, BK, BN/8}.
  const GemmArgs nn = args(1000, 1000, 1000, Layout::NN);
  CHECK(operand_maps(nn, tma::Operand::B, Load::tma3d_16B, 128, 64, &m).ok());
  CHECK(m.map3d.dims[0] == 8 && m.map3d.dims[1] == 1000 && m.map3d.dims[2] == 125);
  CHECK(m.map3d.box[0] == 8 && m.map3d.box[1] == 64 && m.map3d.box[2] == 16);
  // NN B v2a: box {64 n, BK k rows}.
  CHECK(operand_maps(nn, tma::Operand::B, Load::tma2d_128B, 128, 128, &m).ok());
  CHECK(m.map2d.dims[0] == 1000 && m.map2d.dims[1] == 1000 && m.map2d.box[0] == 64 && m.map2d.box[1] == 128);
  // Too small for one whole 3-D box: no 3-D map (the kernel then uses the 2-D one).
  CHECK(operand_maps(args(5, 7, 40, Layout::TN), tma::Operand::A, Load::tma3d_128B, 128, 128, &m).ok());
  CHECK(!m.has_3d);
}

int main() {
  documented_params();
  struct Shape { int64_t M, N, K; };
  const Shape shapes[] = {{256, 256, 256}, {1, 1, 1}, {7, 13, 9}, {130, 260, 200}, {300, 72, 1000}};
  for (Layout lay : {Layout::TN, Layout::NN})
    for (const Shape& sh : shapes) {
      const GemmArgs a = args(sh.M, sh.N, sh.K, lay);
      for (Load load : {Load::tma2d_16B, Load::tma3d_16B, Load::tma2d_128B, Load::tma3d_128B}) {
        const int bk = load_is_swizzled(load) ? 128 : 64;  // v1: BK 64, v2: BK 128
        for (int k0 : {0, static_cast<int>((sh.K - 1) / bk * bk)}) {
          slice_lands_right(a, true, load, 128, bk, 0, k0);                                   // A, first row block
          slice_lands_right(a, true, load, 128, bk, static_cast<int>((sh.M - 1) / 128 * 128), k0);  // A, last
          slice_lands_right(a, false, load, 128, bk, 0, k0);
          slice_lands_right(a, false, load, 128, bk, static_cast<int>((sh.N - 1) / 128 * 128), k0);
        }
      }
    }
  return finish("test_sm100_tensor_maps");
}
