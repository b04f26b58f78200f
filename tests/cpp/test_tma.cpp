// Tensor-map parameters (cpp/src/tma/tensor_map.h), no GPU needed: what each
// Hopper kernel asks cuTensorMapEncodeTiled for, for square, skinny and odd
// shapes in both layouts, and the rejection of every driver rule.
#include <cstring>
#include <string>

#include "check.h"
#include "tma/tensor_map.h"

using namespace tcgemm;
using namespace tcgemm::tma;

static const void* fake(uintptr_t addr) { return reinterpret_cast<const void*>(addr); }

static bool mentions(const Status& s, const char* what) {
  return !s.ok() && s.code == StatusCode::invalid_argument && s.message.find(what) != std::string::npos;
}

static GemmArgs args(int64_t M, int64_t N, int64_t K, Layout lay, DType dt = DType::bf16) {
  auto pitch = [](int64_t c) { return (c + 7) / 8 * 8; };
  GemmArgs a;
  a.A = fake(0x100000), a.B = fake(0x200000), a.C = reinterpret_cast<void*>(0x300000);
  a.M = M, a.N = N, a.K = K, a.dtype = dt, a.layout = lay;
  a.lda = pitch(K), a.ldb = lay == Layout::NN ? pitch(N) : pitch(K), a.ldc = pitch(N);
  return a;
}

// The maps of one kernel tile config (BM x BN, B split in `parts`) for one shape.
static void kernel_maps(int64_t M, int64_t N, int64_t K, Layout lay, int bm, int bn, int parts) {
  SCOPED_CASE("%lldx%lldx%lld %s, tile %dx%d, B in %d parts", (long long)M, (long long)N, (long long)K,
              to_string(lay), bm, bn, parts);
  const GemmArgs a = args(M, N, K, lay);
  GemmMaps m;
  Status s = gemm_operand_maps(a, bm, bn, 64, parts, Swizzle::b128, &m);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return;
  // A: M x K, K contiguous, box 64 k x BM rows, 128B swizzle.
  CHECK(m.a.rank == 2 && m.a.base == a.A && m.a.dtype == DType::bf16);
  CHECK(m.a.dims[0] == uint64_t(K) && m.a.dims[1] == uint64_t(M));
  CHECK(m.a.strides[0] == uint64_t(a.lda) * 2 && m.a.strides[0] % 16 == 0);
  CHECK(m.a.box[0] == 64 && m.a.box[1] == uint32_t(bm));
  CHECK(m.a.swizzle == Swizzle::b128 && m.a.oob == OobFill::zero);
  CHECK(m.a.box_bytes() == uint32_t(bm) * 128);
  CHECK(m.b.rank == 2 && m.b.base == a.B && m.b.strides[0] == uint64_t(a.ldb) * 2);
  if (lay == Layout::TN) {  // N x K, K-major: box 64 k x BN/parts rows
    CHECK(m.b.dims[0] == uint64_t(K) && m.b.dims[1] == uint64_t(N));
    CHECK(m.b.box[0] == 64 && m.b.box[1] == uint32_t(bn / parts));
  } else {  // K x N, MN-major: box 64 n x 64 k, BN/64 of them per stage
    CHECK(m.b.dims[0] == uint64_t(N) && m.b.dims[1] == uint64_t(K));
    CHECK(m.b.box[0] == 64 && m.b.box[1] == 64);
  }
  CHECK(m.b.swizzle == Swizzle::b128);
  // Inner box = exactly one swizzle span: the rule the wgmma descriptors rely on.
  CHECK(m.a.box[0] * 2 == 128 && m.b.box[0] * 2 == 128);
}

static bool same_map(const TensorMapParams& x, const TensorMapParams& y) {
  bool same = x.base == y.base && x.dtype == y.dtype && x.rank == y.rank && x.swizzle == y.swizzle &&
              x.oob == y.oob && x.l2_promotion_bytes == y.l2_promotion_bytes;
  for (int i = 0; i < kMaxRank; ++i) same = same && x.dims[i] == y.dims[i] && x.box[i] == y.box[i];
  for (int i = 0; i < kMaxRank - 1; ++i) same = same && x.strides[i] == y.strides[i];
  return same;
}

// The swapped NN problem (sm90.ws_splitk.swap.dsmem on x @ w): the kernel's
// A is the caller's K x N weight read MN-major -- B NN's 64-column x 64-k
// boxes, bm / 64 of them per stage -- and its B is x (M x K) in K-major boxes
// of bn rows. Nothing of the swapped problem's own (M and N exchanged) may
// leak into the maps: each map describes the caller's matrix as stored.
static void swapped_nn_maps(int64_t M, int64_t N, int64_t K, int bm, int bn) {
  SCOPED_CASE("swapped NN %lldx%lldx%lld, tile %dx%d", (long long)M, (long long)N, (long long)K, bm, bn);
  const GemmArgs a = args(M, N, K, Layout::NN);
  GemmMaps m;
  Status s = swapped_nn_operand_maps(a, bm, bn, 64, Swizzle::b128, &m);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return;
  CHECK(m.a.base == a.B && m.a.dims[0] == uint64_t(N) && m.a.dims[1] == uint64_t(K));
  CHECK(m.a.strides[0] == uint64_t(a.ldb) * 2 && m.a.box[0] == 64 && m.a.box[1] == 64);
  CHECK(m.a.box_bytes() == 8192 && uint32_t(bm / 64) * m.a.box_bytes() == uint32_t(bm) * 128);  // A_BYTES of the tile
  CHECK(m.b.base == a.A && m.b.dims[0] == uint64_t(K) && m.b.dims[1] == uint64_t(M));
  CHECK(m.b.strides[0] == uint64_t(a.lda) * 2 && m.b.box[0] == 64 && m.b.box[1] == uint32_t(bn));
  CHECK(m.b.box_bytes() == uint32_t(bn) * 128);  // B_BYTES of the tile
  CHECK(m.a.swizzle == Swizzle::b128 && m.b.swizzle == Swizzle::b128);
  CHECK(m.a.oob == OobFill::zero && m.b.oob == OobFill::zero);  // rows past N, x's rows past M, K's tail: zeros
  // They are exactly the maps the unswapped NN kernel would use for its B and A.
  GemmMaps u;
  CHECK(gemm_operand_maps(a, bn, bm, 64, 1, Swizzle::b128, &u).ok());
  CHECK(same_map(u.a, m.b) && same_map(u.b, m.a));
}

static void rules() {
  TensorMapParams ok;
  CHECK(matrix_2d(fake(0x1000), DType::f16, 100, 72, 72, 64, 64, Swizzle::b128, &ok).ok());
  CHECK(check_params(ok).ok());
  auto bad = [&](auto edit, const char* rule) {
    SCOPED_CASE("the rule '%s'", rule);
    TensorMapParams p = ok;
    edit(p);
    Status s = check_params(p);
    CHECK_MSG(mentions(s, rule), "got '%s'", s.message.c_str());
    // encode() checks before it touches the driver: same error, no GPU needed.
    CUtensorMap map;
    Status e = encode(p, &map);
    CHECK_MSG(mentions(e, rule), "encode: got '%s'", e.message.c_str());
  };
  bad([](TensorMapParams& p) { p.rank = 0; }, "tensorRank");
  bad([](TensorMapParams& p) { p.rank = 6; }, "tensorRank");
  bad([](TensorMapParams& p) { p.base = nullptr; }, "global address must not be null");
  bad([](TensorMapParams& p) { p.base = fake(0x1008); }, "16-byte aligned");
  bad([](TensorMapParams& p) { p.dims[0] = 0; }, "globalDim[0]");
  bad([](TensorMapParams& p) { p.dims[1] = (uint64_t(1) << 32) + 1; }, "globalDim[1]");
  bad([](TensorMapParams& p) { p.strides[0] = 24; }, "multiple of 16 bytes");
  bad([](TensorMapParams& p) { p.strides[0] = uint64_t(1) << 40; }, "< 2^40");
  bad([](TensorMapParams& p) { p.box[1] = 0; }, "boxDim[1]");
  bad([](TensorMapParams& p) { p.box[1] = 257; }, "boxDim[1]");
  bad([](TensorMapParams& p) { p.box[0] = 4; p.swizzle = Swizzle::none; }, "multiple of 16");
  bad([](TensorMapParams& p) { p.box[0] = 128; }, "swizzle span");  // 256 B > 128 B
  bad([](TensorMapParams& p) { p.box[0] = 64; p.swizzle = Swizzle::b64; }, "swizzle span");
  bad([](TensorMapParams& p) { p.box[0] = 32; p.swizzle = Swizzle::b32; }, "swizzle span");
  bad([](TensorMapParams& p) { p.elem_strides[0] = 0; }, "elementStrides[0]");
  bad([](TensorMapParams& p) { p.elem_strides[1] = 9; }, "elementStrides[1]");
  bad([](TensorMapParams& p) { p.l2_promotion_bytes = 32; }, "L2 promotion");
  bad([](TensorMapParams& p) { p.dtype = static_cast<DType>(7); }, "element type");

  // Limits that are allowed.
  TensorMapParams p = ok;
  p.box[1] = 256;
  CHECK(check_params(p).ok());
  p.swizzle = Swizzle::none, p.box[0] = 8;  // 16 B inner box, no swizzle
  CHECK(check_params(p).ok());
  p.swizzle = Swizzle::b32, p.box[0] = 16;  // exactly the 32 B span
  CHECK(check_params(p).ok());
  p.swizzle = Swizzle::b64, p.box[0] = 32;
  CHECK(check_params(p).ok());
  p = ok, p.dims[1] = uint64_t(1) << 32;
  CHECK(check_params(p).ok());

  // The matrix helper's own rules.
  TensorMapParams q;
  CHECK(mentions(matrix_2d(fake(0x1000), DType::f16, 10, 72, 64, 64, 64, Swizzle::b128, &q), "row pitch"));
  CHECK(mentions(matrix_2d(fake(0x1000), DType::f16, 0, 72, 72, 64, 64, Swizzle::b128, &q), "at least one row"));
  // An odd pitch (not a multiple of 8 elements) breaks the 16-byte stride rule.
  CHECK(mentions(matrix_2d(fake(0x1000), DType::f16, 10, 13, 13, 64, 64, Swizzle::b128, &q), "multiple of 16 bytes"));
  GemmMaps m;
  CHECK(mentions(gemm_operand_maps(args(64, 64, 64, Layout::TN), 128, 256, 64, 3, Swizzle::b128, &m), "B parts"));
}

static void three_d() {
  // A K-major operand viewed as (64 k, rows, K/64 column blocks): the shape
  // the Blackwell kernels load with one 3-D box per stage.
  TensorMapParams p;
  const uint64_t dims[3] = {64, 4096, 64};
  const uint64_t strides[2] = {4096 * 2, 128};
  const uint32_t box[3] = {64, 128, 4};
  Status s = tensor_3d(fake(0x4000), DType::f16, dims, strides, box, Swizzle::b128, &p);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  CHECK(p.rank == 3 && p.dims[2] == 64 && p.strides[1] == 128 && p.box[2] == 4);
  CHECK(p.box_bytes() == 64u * 128 * 4 * 2);
  const uint64_t bad_strides[2] = {4096 * 2, 72};  // dim 2 stride not a multiple of 16
  CHECK(mentions(tensor_3d(fake(0x4000), DType::f16, dims, bad_strides, box, Swizzle::b128, &p), "globalStrides[1]"));
  const uint32_t bad_box[3] = {64, 128, 300};
  CHECK(mentions(tensor_3d(fake(0x4000), DType::f16, dims, strides, bad_box, Swizzle::b128, &p), "boxDim[2]"));
}

int main() {
  struct Shape { int64_t M, N, K; };
  const Shape shapes[] = {
      {4096, 4096, 4096}, {8192, 8192, 8192},  // square
      {1, 4096, 4096}, {4096, 1, 4096}, {8192, 8, 64}, {16, 16384, 1},  // skinny
      {1, 1, 1}, {7, 13, 9}, {127, 129, 65}, {129, 127, 200}, {1000, 72, 33},  // odd
  };
  // (BM, BN, parts) of sm90.tma_wgmma*/ws, ws_persistent, ws_mcast.
  const int tiles[][3] = {{128, 128, 1}, {128, 256, 1}, {128, 256, 2}};
  for (const Shape& sh : shapes)
    for (Layout lay : {Layout::NN, Layout::TN})
      for (const auto& t : tiles) kernel_maps(sh.M, sh.N, sh.K, lay, t[0], t[1], t[2]);

  // Odd shape in detail: TN B of 129 x 65 with pitch 72 -> 144-byte stride.
  GemmMaps m;
  GemmArgs a = args(127, 129, 65, Layout::TN, DType::f16);
  CHECK(gemm_operand_maps(a, 128, 256, 64, 2, Swizzle::b128, &m).ok());
  CHECK(m.b.dims[0] == 65 && m.b.dims[1] == 129 && m.b.strides[0] == 144 && m.b.box[1] == 128);
  CHECK(m.a.dtype == DType::f16 && m.a.strides[0] == 144);
  // C as a TMA store target: M x N, box {64 n, 32 rows}.
  TensorMapParams c;
  CHECK(gemm_operand(a, Operand::C, 64, 32, Swizzle::b128, &c).ok());
  CHECK(c.dims[0] == 129 && c.dims[1] == 127 && c.strides[0] == 136 * 2 && c.base == a.C);

  // (BM, BN) of sm90.ws_splitk.swap.dsmem: 64- or 128-row weight tiles, x 16-128 wide.
  const int swap_tiles[][2] = {{64, 16}, {64, 32}, {64, 64}, {64, 128}, {128, 16}, {128, 64}, {128, 128}};
  for (const Shape& sh : shapes)
    for (const auto& t : swap_tiles) swapped_nn_maps(sh.M, sh.N, sh.K, t[0], t[1]);
  CHECK(mentions(swapped_nn_operand_maps(args(16, 4096, 4096, Layout::TN), 64, 16, 64, Swizzle::b128, &m),
                 "NN problem"));
  CHECK(mentions(swapped_nn_operand_maps(args(16, 4096, 4096, Layout::NN), 96, 16, 64, Swizzle::b128, &m),
                 "64-column boxes"));
  CHECK(!swapped_nn_operand_maps(args(16, 4096, 4096, Layout::NN), 64, 16, 64, Swizzle::none, &m).ok());
  rules();
  three_d();
  CHECK(curesult_name(1) == "CUDA_ERROR_INVALID_VALUE");
  CHECK(curesult_name(0) == "CUDA_SUCCESS");
  CHECK(curesult_name(12345) == "CUresult 12345");
  CHECK(swizzle_span_bytes(Swizzle::b128) == 128 && swizzle_span_bytes(Swizzle::none) == 0);
  return finish("test_tma");
}
