// Argument checks and the registry, without a GPU.
#include <cstring>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include "check.h"
#include "core/workspace.h"
#include "sm90/heuristics.h"
#include "sm90/lines.h"
#include "tcgemm/tcgemm.h"

using namespace tcgemm;

static GemmArgs good() {
  alignas(16) static char buf[64];
  GemmArgs a;
  a.A = a.B = a.C = buf;
  a.M = 100, a.N = 50, a.K = 30;
  a.lda = 32, a.ldb = 56, a.ldc = 56;  // NN: B rows hold N = 50 -> pitch 56
  return a;
}

static bool rejects(const GemmArgs& a, const char* needle) {
  Status s = check_args(a);
  bool ok = !s.ok() && s.code == StatusCode::invalid_argument && s.message.find(needle) != std::string::npos;
  if (!ok) std::fprintf(stderr, "  expected rejection containing '%s', got '%s'\n", needle, s.message.c_str());
  return ok;
}

int main() {
  CHECK(check_args(good()).ok());
  { GemmArgs a = good(); a.M = 0; CHECK(rejects(a, "must be >= 1")); }
  { GemmArgs a = good(); a.K = -3; CHECK(rejects(a, "must be >= 1")); }
  { GemmArgs a = good(); a.N = int64_t(1) << 31; a.ldb = a.ldc = a.N; CHECK(rejects(a, "2^31")); }
  { GemmArgs a = good(); a.A = nullptr; CHECK(rejects(a, "non-null")); }
  { GemmArgs a = good(); a.C = static_cast<char*>(a.C) + 2; CHECK(rejects(a, "16-byte aligned")); }
  { GemmArgs a = good(); a.lda = 24; CHECK(rejects(a, "lda = 24 is smaller")); }
  { GemmArgs a = good(); a.lda = 36; CHECK(rejects(a, "multiple of 8")); }
  { GemmArgs a = good(); a.ldc = 48; CHECK(rejects(a, "ldc")); }
  // Rows anywhere: the 16-byte rule is every kernel's but kAnyRows ones'
  // (sm89.mma_ragged.s2); such a kernel takes any leading dimension and
  // batch stride and 2-byte aligned starts, and the strict message names it.
  {
    const KernelInfo* any = find_kernel("sm89.mma_ragged.s2");
    const KernelInfo* strict = find_kernel("sm89.mma_bk32.s3");
    CHECK(any && (any->features & kAnyRows) && strict && !(strict->features & kAnyRows));
    GemmArgs a = good();
    a.lda = 33, a.ldb = 51, a.ldc = 53;
    a.A = static_cast<const char*>(a.A) + 2, a.C = static_cast<char*>(a.C) + 6;
    a.batch = 3, a.batch_stride_a = 100 * 33 + 1, a.batch_stride_b = 30 * 51 + 3, a.batch_stride_c = 100 * 53 + 5;
    CHECK(check_args(a, any).ok());
    CHECK(rejects(a, "any_rows"));
    CHECK(!check_args(a, strict).ok() && !check_args(a, nullptr).ok());
    { GemmArgs b = a; b.A = static_cast<const char*>(b.A) + 1;
      Status st = check_args(b, any); CHECK(!st.ok() && st.message.find("element size") != std::string::npos); }
    { GemmArgs b = a; b.lda = 29;  // shorter than K = 30 stays wrong
      Status st = check_args(b, any); CHECK(!st.ok() && st.message.find("lda = 29 is smaller") != std::string::npos); }
    { GemmArgs b = a; b.batch_stride_c = -1;
      Status st = check_args(b, any); CHECK(!st.ok() && st.message.find("batch_stride_c") != std::string::npos); }
    { GemmArgs b = a; b.batch_stride_c = 100 * 53 - 1;  // overlapping outputs stay wrong
      Status st = check_args(b, any); CHECK(!st.ok() && st.message.find("overlap") != std::string::npos); }
    { GemmArgs b = a; b.epilogue.beta = 1.f, b.epilogue.source = static_cast<char*>(a.C) + 2, b.epilogue.ld_source = 51;
      CHECK(check_args(b, any).ok());
      b.epilogue.ld_source = 49;  // < N
      CHECK(!check_args(b, any).ok()); }
  }
  // TN: B is stored N x K, so its rows hold K elements.
  { GemmArgs a = good(); a.layout = Layout::TN; a.ldb = 32; CHECK(check_args(a).ok()); }
  { GemmArgs a = good(); a.layout = Layout::TN; a.ldb = 24; CHECK(rejects(a, "ldb")); }
  { GemmArgs a = good(); a.dtype = static_cast<DType>(7); CHECK(rejects(a, "dtype")); }

  // FP8: one operand may be e5m2, never both; the output is 16- or 32-bit;
  // rows are 16 bytes (16 FP8 elements); scales only with FP8 operands.
  alignas(16) static float sa[4], sb[4];
  auto fp8 = [] {
    GemmArgs a = good();
    a.dtype = DType::e4m3, a.dtype_c = DType::bf16, a.layout = Layout::TN;
    a.lda = 32, a.ldb = 32, a.ldc = 56;
    a.scales.mode = ScaleMode::tensor, a.scales.a = sa, a.scales.b = sb;
    return a;
  };
  CHECK(check_args(fp8()).ok());
  CHECK(fp8().b_type() == DType::e4m3 && fp8().c_type() == DType::bf16);
  CHECK(good().b_type() == DType::f16 && good().c_type() == DType::f16);
  { GemmArgs a = fp8(); a.dtype_b = DType::e5m2; CHECK(check_args(a).ok()); }
  { GemmArgs a = fp8(); a.dtype = DType::e5m2, a.dtype_b = DType::e4m3; CHECK(check_args(a).ok()); }
  { GemmArgs a = fp8(); a.dtype = a.dtype_b = DType::e5m2; CHECK(rejects(a, "float8_e5m2 x float8_e5m2")); }
  { GemmArgs a = fp8(); a.dtype_c = kSameAsA; CHECK(rejects(a, "output dtype")); }
  { GemmArgs a = fp8(); a.dtype_c = DType::f32; a.ldc = 52; CHECK(check_args(a).ok()); }
  { GemmArgs a = fp8(); a.dtype_c = DType::f32; a.ldc = 54; CHECK(rejects(a, "multiple of 4")); }
  { GemmArgs a = fp8(); a.lda = 40; CHECK(rejects(a, "lda = 40 must be a multiple of 16")); }
  { GemmArgs a = fp8(); a.accum = Accum::fast; CHECK(check_args(a).ok()); }
  { GemmArgs a = good(); a.accum = Accum::fast; CHECK(rejects(a, "'fast' (use_fast_accum) is for FP8 operands")); }
  { GemmArgs a = fp8(); a.accum = static_cast<Accum>(3); CHECK(rejects(a, "unknown accumulator")); }
  { GemmArgs a = good(); a.dtype_b = DType::bf16; CHECK(rejects(a, "same dtype")); }
  { GemmArgs a = good(); a.dtype_b = DType::e4m3; CHECK(rejects(a, "same dtype")); }
  { GemmArgs a = good(); a.dtype = DType::f32; CHECK(rejects(a, "operand dtype")); }
  {
    GemmArgs a = fp8();
    CHECK(check_args(a).ok());
    { GemmArgs b = a; b.scales.mode = ScaleMode::none; CHECK(rejects(b, "FP8 operands need scales")); }
    { GemmArgs b = a; b.scales.b = nullptr; CHECK(rejects(b, "both scale pointers")); }
    { GemmArgs b = a; b.scales.a = reinterpret_cast<const float*>(reinterpret_cast<const char*>(sa) + 2);
      CHECK(rejects(b, "4-byte aligned")); }
    { GemmArgs b = a; b.scales.mode = static_cast<ScaleMode>(9); CHECK(rejects(b, "scale mode")); }
    { GemmArgs b = a; b.batch = 2, b.batch_stride_c = 100 * 56; CHECK(rejects(b, "batch = 1")); }
    { GemmArgs b = a; b.dtype = DType::f16, b.dtype_c = kSameAsA, b.layout = Layout::NN, b.ldb = 56;
      CHECK(rejects(b, "scales are for FP8")); }
  }
  // Scale indexing (types.h, Scales): row-major and MN-major block scales
  // name the same entry; a partial last 128-K block counts.
  CHECK(scale_blocks(1) == 1 && scale_blocks(128) == 1 && scale_blocks(129) == 2 && scale_blocks(16384) == 128);
  {
    float a[6 * 3], b[2 * 3];  // M = 6 rows, K = 300 (3 blocks); N = 200 (2 column blocks)
    for (int i = 0; i < 18; ++i) a[i] = float(i);
    for (int i = 0; i < 6; ++i) b[i] = float(100 + i);
    Scales row{ScaleMode::block, a, b, 3, 1, 3, 1};  // a[m][kb], b[nb][kb]
    CHECK(row.scale_a(4, 2) == a[4 * 3 + 2] && row.scale_b(199, 1) == b[1 * 3 + 1] && row.scale_b(127, 2) == b[2]);
    float at[8 * 3];  // MN-major, TMA-aligned: column kb of A's starts at kb * round_up(6, 4)
    for (int m = 0; m < 6; ++m)
      for (int kb = 0; kb < 3; ++kb) at[kb * 8 + m] = a[m * 3 + kb];
    Scales mn{ScaleMode::block, at, b, 1, 8, 3, 1};
    for (int m = 0; m < 6; ++m)
      for (int kb = 0; kb < 3; ++kb) CHECK(mn.scale_a(m, kb) == row.scale_a(m, kb));
    Scales rw{ScaleMode::rowwise, a, b, 3, 0, 1, 0};  // every third float of a; b per column
    CHECK(rw.scale_a(5, 7) == a[15] && rw.scale_b(4, 7) == b[4]);
    Scales t{ScaleMode::tensor, a + 1, b + 2};
    CHECK(t.scale_a(5, 2) == a[1] && t.scale_b(199, 1) == b[2]);
  }

  // Every fp16/bf16 kernel refuses FP8 operands, a mixed B, another output and scales.
  for (const auto& k : kernels()) {
    if (k.dtypes & (bit(DType::e4m3) | bit(DType::e5m2))) continue;
    SCOPED_CASE("%s", k.name);
    GemmArgs a = fp8();
    CHECK(check_supports(k, a).code == StatusCode::not_supported);
    GemmArgs h = good();
    h.dtype = DType::f16, h.dtype_c = DType::f32;
    CHECK(check_supports(k, h).message.find("output dtype float32") != std::string::npos);
    h.dtype_c = kSameAsA, h.scales.mode = ScaleMode::rowwise;
    CHECK(check_supports(k, h).message.find("scale mode 'rowwise'") != std::string::npos);
  }

  CHECK(pitch_for(1) == 8);
  CHECK(pitch_for(8) == 8);
  CHECK(pitch_for(9) == 16);
  CHECK(pitch_for(4097) == 4104);

  // Registry: unique names, every family's ladder present, fields sane.
  std::set<std::string> names;
  for (const auto& k : kernels()) {
    SCOPED_CASE("%s", k.name);
    CHECK_MSG(names.insert(k.name).second, "duplicate kernel name %s", k.name);
    CHECK(k.tile_m > 0 && k.tile_n > 0 && k.tile_k > 0 && k.stages >= 1);
    CHECK(k.dtypes != 0 && k.layouts != 0 && k.accums != 0);
    CHECK(std::strncmp(k.name, k.family, std::strlen(k.family)) == 0);
  }
  for (const char* n : {"sm89.mma.s2", "sm89.mma.s5", "sm89.mma_swz.s3", "sm89.mma_swz_x4.s3", "sm89.mma_bk32.s3"})
    CHECK_MSG(find_kernel(n) != nullptr, "missing %s", n);
  CHECK(find_kernel("no.such.kernel") == nullptr);

  // The Ada family is built for sm_89 and sm_90a when both are targets.
  const std::string archs = built_archs();
  const KernelInfo* k = find_kernel("sm89.mma.s3");
  if (archs.find("89") != std::string::npos && archs.find("90a") != std::string::npos) {
    CHECK(k->launch != nullptr);
    CHECK(k->sass_for.size() == 2 && k->sass_for[0] == 89 && k->sass_for[1] == 90);
  }

  // gemm() on bad arguments fails before touching a device.
  { GemmArgs a = good(); a.M = 0; CHECK(gemm(a, "sm89.mma.s3").code == StatusCode::invalid_argument); }
  { Status s = gemm(good(), "no.such.kernel");
    CHECK(s.code == StatusCode::invalid_argument && s.message.find("unknown kernel") != std::string::npos); }

  // The planner: a bad shape or name is refused before any device query; a
  // good one needs a device (and says so without one).
  {
    const Plan* p = nullptr;
    GemmArgs a = good();
    a.K = 0;
    CHECK(plan_gemm(a, "auto", &p).code == StatusCode::invalid_argument && p == nullptr);
    Status s = plan_gemm(good(), "no.such.kernel", &p);
    CHECK(s.code == StatusCode::invalid_argument && s.message.find("unknown kernel") != std::string::npos);
    if (device_count() == 0) {
      CHECK(plan_gemm(good(), "auto", &p).code == StatusCode::no_device);
      CHECK(plan_gemm(good(), "sm90.ws_persistent", &p).code == StatusCode::no_device);
    }
    size_t bytes = 1;
    CHECK(workspace_size(*find_kernel("sm89.mma.s3"), good(), &bytes).ok() && bytes == 0);  // no workspace
    const KernelInfo* splitk = find_kernel("sm90.ws_splitk");
    CHECK(splitk != nullptr);
    if (splitk) CHECK((splitk->workspace != nullptr) == (splitk->launch != nullptr));  // built: it sizes its partials
  }

  // `auto`'s measured policy on an H200 (132 SMs), by shape class (the rules
  // and their figures: sm90/heuristics.cpp).
  {
    auto first = [](int64_t M, int64_t N, int64_t K, int split_k = 0, int64_t batch = 1) {
      GemmArgs a = good();
      a.M = M, a.N = N, a.K = K, a.split_k = split_k, a.batch = batch;
      return std::string(auto_preference(90, a, 132).front());
    };
    // The configurations that split K by their policy (each with its tile).
    auto splits_k = [](const std::string& name) {
      return name == "sm90.ws_splitk" || name == "sm90.ws_mcast" || name == "sm90.ws_splitk.n192" ||
             name == "sm90.ws_mcast.n192";
    };
    // Decode, M <= 64: A and B swapped while the weight's 128-row tiles fit
    // in one wave (N <= 128 * 132), either layout; else split K.
    CHECK(first(16, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");  // NN: x @ w
    CHECK(first(64, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first(8, 8192, 28672) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first(64, 16897, 4096) == "sm90.ws_splitk");     // 133 swapped tiles
    CHECK(first(16, 28672, 4096) == "sm90.ws_splitk");     // 112 narrow tiles, unsplit: half the MMAs
    auto first_tn = [](int64_t M, int64_t N, int64_t K) {
      GemmArgs a = good();
      a.M = M, a.N = N, a.K = K, a.layout = Layout::TN;
      return std::string(auto_preference(90, a, 132).front());
    };
    CHECK(first_tn(16, 4096, 4096) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first_tn(1, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first_tn(64, 16896, 4096) == "sm90.ws_splitk.swap.dsmem");  // 132 swapped tiles
    CHECK(first_tn(64, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");   // 64 tiles: at most 2 slices
    CHECK(first_tn(48, 1000, 4104) == "sm90.ws_splitk.swap.dsmem");   // 16 tiles of 64 rows (h200_decode.md)
    CHECK(first_tn(64, 16897, 4096) == "sm90.ws_splitk");       // 133
    CHECK(first_tn(16, 28672, 4096) == "sm90.ws_splitk");
    // 65-128 rows against a wide weight: the swapped cluster split (n128
    // tiles) while 64-row tiles of the weight fit in one wave, either layout.
    CHECK(first_tn(128, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");  // 128 tiles of 64 rows
    CHECK(first_tn(65, 4096, 4096) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first_tn(128, 8512, 8192) == "sm90.ws_pingpong");           // 133 tiles of 64 rows
    CHECK(first_tn(128, 3000, 5000) != "sm90.ws_splitk.swap.dsmem");  // a narrow weight
    CHECK(first_tn(129, 4096, 4096) != "sm90.ws_splitk.swap.dsmem");
    CHECK(first(128, 8192, 8192) == "sm90.ws_splitk.swap.dsmem");  // NN: 128 tiles of 64 rows
    CHECK(first(96, 4096, 4096) == "sm90.ws_splitk.swap.dsmem");
    CHECK(first(128, 8576, 8192) == "sm90.ws_pingpong");      // 134 tiles of 64 rows
    CHECK(first(128, 14336, 4096) == "sm90.ws_pingpong");
    CHECK(first(128, 8192, 1024) == "sm90.ws_pingpong");      // 16 K tiles: too short to split
    CHECK(first(1000, 1000, 1000) == "sm90.ws_pingpong");
    CHECK(first(64, 8192, 512) == "sm90.ws_pingpong");     // too short to split
    CHECK(first(256, 4096, 4096) == "sm90.ws_pingpong");   // 64 square tiles, 64 k-tiles
    // ... but 224 k-tiles: split K (h200_llm.md, 256 x 4096 x 14336 TN:
    // ws_splitk 0.85-0.86x, ws_mcast 0.84-0.85x, ws_mcast.n192 0.85-0.86x;
    // ping-pong 0.66-0.67x).
    CHECK(splits_k(first(256, 4096, 14336)));
    CHECK(splits_k(first(200, 4096, 14336)));
    CHECK(first(256, 4096, 14336, 1) == "sm90.ws_pingpong");
    CHECK(first(2048, 2048, 2048) == "sm90.ws_persistent"); // square tiles take two waves
    CHECK(first(512, 8192, 8192) == "sm90.ws_persistent");
    // 4096^3 and up: multicast (h200.md: 4096^3 ws_mcast 0.97x, ws_persistent
    // 0.97-0.98x; 16384^3 fp16 ws_mcast 0.97x / 1.00x TN / NN, ws_persistent
    // 0.97x / 0.95x).
    CHECK(first(4096, 4096, 4096) == "sm90.ws_mcast");
    CHECK(first(16384, 16384, 16384) == "sm90.ws_mcast");
    CHECK(first(128, 8192, 8192, 1) == "sm90.ws_pingpong");   // split_k=1: never split
    CHECK(first(4096, 4096, 4096, 3) == "sm90.ws_splitk");    // asked for
    CHECK(first(16, 8192, 8192, 1) == "sm90.ws_pingpong");
    CHECK(first(256, 256, 256, 0, 128) == "sm90.ws_persistent");  // 128 batches: many tiles
    // The time model (sm90_costs) for shapes that fill the GPU: rows 16 bytes
    // into a 32-byte sector (K = 7000: 8 mod 16) send it to multicast, a last
    // wave of 28 tiles to the split tail (ws_mcast's over cluster rows, ahead
    // of ws_splitk's in the model: kSplitTailSpeed), 3 waves of 128x128 tiles
    // beat 3 of 128x256 (266 tiles: the third wave 2 tiles).
    CHECK(first(3072, 5120, 7000).rfind("sm90.ws_mcast", 0) == 0);  // multicast, 256 or 192 wide
    CHECK(first(3072, 5120, 6976).rfind("sm90.ws_mcast", 0) == 0);  // aligned too: 0.96x (h200_pick_checks.md)
    CHECK(first(2504, 1904, 7136) == "sm90.ws_mcast");
    CHECK(splits_k(first(2384, 1792, 4096)));  // fp16 TN ws_splitk 0.81x, ws_mcast 0.78x (h200_split_tail.md)
    CHECK(first(2504, 1904, 7136, 1) != "sm90.ws_splitk");  // split_k=1: never split
    // NN with B rows of 1896 (8 mod 16): multicast, with its own split tail
    // (the two are within 2% in the model; h200_split_tail.md, fp16 TN:
    // ws_mcast 0.83x, ws_splitk 0.84x).
    CHECK(first(2504, 1896, 7136) == "sm90.ws_mcast");
    // Ping-pong's 30 tiles would leave more than 3/4 of the SMs idle: split K.
    CHECK(splits_k(first(600, 752, 4832)));
    CHECK(first(2360, 3440, 3424) == "sm90.ws_pingpong");
    CHECK(first(2384, 1792, 4184) == "sm90.ws_mcast");  // misaligned rows and a 1-tile last wave: its split tail
    // 128x192 tiles where the 256-wide grid quantizes badly: 6280x808x3104
    // fp16 TN (808 columns: 3.2 wide tiles, 4.2 of 192) ws_splitk.n192 0.71x,
    // ws_mcast.n192 0.75x, the 256-wide ones <= 0.67x; 1104x5528x6176 bf16 TN
    // (198 wide tiles: 2 waves, the second 66) ws_splitk.n192 0.92x, the
    // others <= 0.83x (h200_random_aligned.md); NN it goes to 2x2 by 1% in
    // the model (h200_pick_checks.md: 0.84x, the best of eight); 3576x640x7896
    // fp16 NN ws_splitk.n192 0.89x, the pick (ws_mcast.n192) 0.69-0.72x, the
    // 256-wide ones <= 0.79x (h200_random_aligned.md).
    auto n192 = [](const std::string& name) { return name.size() > 5 && name.substr(name.size() - 5) == ".n192"; };
    CHECK(n192(first(6280, 808, 3104)));
    CHECK(n192(first_tn(1104, 5528, 6176)));
    {
      GemmArgs a = good();
      a.M = 3576, a.N = 640, a.K = 7896, a.layout = Layout::NN;
      CHECK(n192(auto_preference(90, a, 132).front()));
      // 2x2 clusters where B's rows are misaligned and their 30-wide waves
      // fit (h200_random_aligned.md, bf16 NN: ws_mcast.2x2 1.02x, ws_mcast 0.93x).
      a.M = 3328, a.N = 8024, a.K = 3096;
      CHECK(std::string(auto_preference(90, a, 132).front()) == "sm90.ws_mcast.2x2");
      // ... but not on aligned squares: 8192^3 on 120 SMs 0.84-0.89x,
      // ws_mcast 0.91-0.93x (h200.md).
      a.M = a.N = a.K = 8192;
      CHECK(std::string(auto_preference(90, a, 132).front()) != "sm90.ws_mcast.2x2");
    }
    {
      GemmArgs a = good();
      a.M = 3072, a.N = 5120, a.K = 7000;
      const Sm90Costs c = sm90_costs(a, 132);
      CHECK(c.misaligned && c.mcast < c.persistent && c.persistent < c.pingpong && c.splitk == c.persistent);  // no split
      a.K = 7008;
      CHECK(!sm90_costs(a, 132).misaligned);
      a.layout = Layout::NN, a.N = 5000;  // a row-major B of 5000 columns: its rows are misaligned
      CHECK(sm90_costs(a, 132).misaligned);
      a.layout = Layout::TN;  // K-major B: N is no pitch
      CHECK(!sm90_costs(a, 132).misaligned);
      a.M = 2504, a.N = 1896, a.K = 7136;
      const Sm90Costs t = sm90_costs(a, 132);
      CHECK(t.splitk < t.persistent);  // its split tail
    }
    for (int64_t M : {1, 16, 128, 1000, 4096}) {  // the Ada fallbacks follow the Hopper names
      GemmArgs a = good();
      a.M = M, a.N = a.K = 4096;
      CHECK(std::string(auto_preference(90, a, 132).back()) == "sm89.mma_wt64_k64.s3");
    }
    // The first Ada name (f16 accumulation takes it): per number of tile waves.
    auto first_ada = [](int64_t n, Layout layout) {
      GemmArgs a = good();
      a.M = a.N = a.K = n, a.layout = layout;
      for (const char* name : auto_preference(90, a, 132))
        if (std::string(name).rfind("sm89.", 0) == 0) return std::string(name);
      return std::string();
    };
    CHECK(first_ada(4096, Layout::TN) == "sm89.mma_spread.s3");
    CHECK(first_ada(4096, Layout::NN) == "sm89.mma_spread.s3");
    CHECK(first_ada(8192, Layout::TN) == "sm89.mma_spread_8w.s3");
    CHECK(first_ada(8192, Layout::NN) == "sm89.mma_spread_8w.s3");
    CHECK(first_ada(1000, Layout::NN) == "sm89.mma_spread.s3");
    CHECK(std::string(auto_preference(89, good(), 128).front()) == "sm89.mma_swz_x4.s3");
    CHECK(auto_preference(75, good(), 40).empty());
    // FP8: the Ada FP8 entries, the 128x256 one from four waves of its tiles,
    // block scales on the 128x128 one only; every name registered and able.
    {
      GemmArgs a = good();
      a.dtype = DType::e4m3, a.dtype_c = DType::bf16, a.layout = Layout::TN, a.M = a.N = a.K = 8192;
      a.scales.mode = ScaleMode::tensor;
      a.accum = Accum::fast;  // torch's use_fast_accum=True: the unpromoted wgmma entries
      auto first_fp8 = [](const GemmArgs& g, int cc) {
        for (const char* name : auto_preference(cc, g, 132))
          if (std::string(name).rfind("sm89.", 0) == 0) return std::string(name);
        return std::string();
      };
      CHECK(first_fp8(a, 90) == "sm89.fp8_mma_8w.s4" && first_fp8(a, 89) == "sm89.fp8_mma_8w.s4");
      GemmArgs small = a;
      small.M = small.N = 1000;
      CHECK(first_fp8(small, 89) == "sm89.fp8_mma.s3");
      GemmArgs block = a;
      block.scales.mode = ScaleMode::block;
      CHECK(first_fp8(block, 90) == "sm89.fp8_mma.s3");
      // On an H100/H200 the wgmma kernels come first (the Ada ones run FP8 as fp16 mma.sync there).
      // Which: sm90/heuristics.cpp (sm90_fp8_preference) and its figures, h100_fp8_entries.md.
      auto fp8_first = [](const GemmArgs& g, int64_t M, int64_t N, int64_t K) {
        GemmArgs s = g;
        s.M = M, s.N = N, s.K = K;
        return std::string(auto_preference(90, s, 132).front());
      };
      CHECK(fp8_first(a, 8192, 8192, 8192) == "sm90.ws_fp8.pingpong");   // whole lines, K <= 8192 (wide: 16 rounds against 32)
      CHECK(fp8_first(a, 4096, 4096, 14336) == "sm90.ws_fp8.wide");      // deeper: 4 wide rounds against 8
      CHECK(fp8_first(a, 2080, 2544, 1184) == "sm90.ws_fp8.pingpong");   // short K, whole sectors
      CHECK(fp8_first(a, 6384, 4000, 5584) == "sm90.ws_fp8.tile192");    // rows 16 bytes into a sector, deep K: 6 rounds of
      CHECK(fp8_first(a, 6384, 4000, 4592) == "sm90.ws_fp8.pingpong.lines");  // 192x192 clusters against 7 wide; K <= 4608
      CHECK(fp8_first(a, 6384, 3000, 5584) == "sm90.ws_fp8.wide");       // 5 against 5: 1.125x the work
      // ... copied to whole lines first from two rounds of square tiles, to K = 4608 or where
      // the wide rounds cost more than 1.2x the square ones (2 against 3):
      CHECK(fp8_first(a, 2768, 2016, 6800) == "sm90.ws_fp8.pingpong.lines");  // (tile192: 2 rounds against 2 wide)
      CHECK(fp8_first(a, 3000, 1536, 7184) == "sm90.ws_fp8.tile192");    // ... unless 192x192 rounds cost <= 0.8x the wide ones' work
      CHECK(fp8_first(a, 2080, 2544, 1200) == "sm90.ws_fp8.pingpong.lines");
      CHECK(fp8_first(a, 7472, 4000, 6544) == "sm90.ws_fp8.tile192");    // deep K: 7 rounds of 192x192 clusters against 8 wide
      CHECK(fp8_first(a, 2544, 1248, 4368) == "sm90.ws_fp8.wide");       // 200 tiles: under two rounds
      CHECK(fp8_first(a, 16384, 16384, 4112) == "sm90.ws_fp8.pingpong.lines");  // copies of 138 MB
      CHECK(fp8_first(a, 32768, 32768, 4112) == "sm90.ws_fp8.wide");     // copies of 264 MiB: not taken
      {
        GemmArgs shape = a;  // as tcgemm.plan makes a plan: the shape alone, no pointers or leading dimensions
        shape.A = shape.B = nullptr, shape.C = nullptr, shape.lda = shape.ldb = shape.ldc = 0;
        CHECK(fp8_first(shape, 2080, 2544, 1200) == "sm90.ws_fp8.pingpong.lines");
        CHECK(fp8_first(shape, 4816, 3968, 4384) == "sm90.ws_fp8.splitk");
      }
      {
        GemmArgs f32 = a;  // ping-pong stores 16-bit boxes: fp32 output takes the wide tiles in place
        f32.dtype_c = DType::f32, f32.M = 2080, f32.N = 2544, f32.K = 1200;
        const auto list = auto_preference(90, f32, 132);
        CHECK(std::string(list.at(0)) == "sm90.ws_fp8.pingpong.lines" && std::string(list.at(1)) == "sm90.ws_fp8.wide");
        CHECK(!check_supports(*find_kernel("sm90.ws_fp8.pingpong.lines"), f32).ok());
        // Where the wide tiles do not fit (4 wide rounds' work against 2 square), ping-pong in place
        // came before the copies, and fp32 output falls past both ping-pong entries to ws_fp8. One
        // round of 192x192 clusters against two wide ones comes first for 16-bit output only (fp32 is
        // untimed on those tiles).
        f32.M = 912, f32.N = 4176, f32.K = 1200;
        const auto narrow = auto_preference(90, f32, 132);
        CHECK(narrow.size() >= 3 && std::string(narrow[0]) == "sm90.ws_fp8.pingpong.lines" &&
              std::string(narrow[1]) == "sm90.ws_fp8.pingpong" && std::string(narrow[2]) == "sm90.ws_fp8");
        GemmArgs bf16 = f32;
        bf16.dtype_c = DType::bf16;
        CHECK(std::string(auto_preference(90, bf16, 132).at(0)) == "sm90.ws_fp8.tile192");
        // Part lines from three rounds of square tiles: the 128x256 tiles without a cluster, which
        // write 16-bit values only: fp32 output takes the pick that follows (ping-pong's clusters
        // refuse it too).
        f32.M = 4816, f32.N = 3968, f32.K = 4384;
        const auto part = auto_preference(90, f32, 132);
        CHECK(std::string(part.at(0)) == "sm90.ws_fp8.splitk" && std::string(part.at(1)) == "sm90.ws_fp8.pingpong.mcast");
        CHECK(!check_supports(*find_kernel("sm90.ws_fp8.splitk"), f32).ok());
      }
      CHECK(fp8_first(a, 6080, 544, 3600) == "sm90.ws_fp8.tile192");     // 1 round of 192x192 clusters against 2 wide
      CHECK(fp8_first(a, 6080, 1056, 3600) == "sm90.ws_fp8.pingpong.lines");  // 2 against 2: the copies, K <= 4608
      CHECK(fp8_first(a, 368, 2416, 2192) == "sm90.ws_fp8.pingpong");    // 1 against 1
      CHECK(fp8_first(a, 3072, 1536, 7168) == "sm90.ws_fp8.tile192");    // whole lines: 1 round against 3 square
      CHECK(fp8_first(a, 2304, 4224, 4096) == "sm90.ws_fp8.pingpong");   // 2 against 5: 0.9x the work
      CHECK(fp8_first(a, 2080, 2544, 2080) == "sm90.ws_fp8.pingpong");   // part lines, K <= 2816, 340 tiles
      CHECK(fp8_first(a, 2080, 2544, 3104) == "sm90.ws_fp8.pingpong");   // 2 wide rounds against 3 square: ping-pong
      CHECK(fp8_first(a, 2080, 2544, 3072) == "sm90.ws_fp8.pingpong");   // whole lines to K = 8192
      CHECK(fp8_first(a, 2080, 2544, 8320) == "sm90.ws_fp8");            // whole lines, deeper, wide not fitting
      CHECK(fp8_first(a, 4096, 2128, 2256) == "sm90.ws_fp8.tile192");    // 16 bytes into a sector: 2 rounds against 3 wide
      CHECK(fp8_first(a, 4096, 2384, 2256) == "sm90.ws_fp8.pingpong.lines");  // 3 against 3, K <= 4608
      // Part lines, 396 tiles (three rounds) and more: the 128x256 tiles without a cluster; what
      // follows is the square / wide tiles' pick: ping-pong in 2-CTA clusters from 4.5 rounds, the wide
      // tiles where their rounds fit.
      const auto second = [&](int64_t M, int64_t N, int64_t K) {
        GemmArgs s = a;
        s.M = M, s.N = N, s.K = K;
        const auto list = auto_preference(90, s, 132);
        return std::string(list.at(0)) + " " + list.at(1);
      };
      CHECK(second(4816, 3968, 4384) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong.mcast");  // 1178 tiles
      CHECK(second(7408, 3408, 1120) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong.mcast");  // K <= 2816
      CHECK(second(5120, 1840, 4384) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong.mcast");  // 600 tiles
      CHECK(second(3456, 2816, 2080) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong.mcast");  // 594 tiles: 4.5 rounds
      CHECK(second(2048, 4736, 2080) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong");        // 592 tiles
      CHECK(second(1232, 6800, 2784) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong");        // 540 tiles
      CHECK(second(4500, 2496, 2848) == "sm90.ws_fp8.splitk sm90.ws_fp8.wide");      // deeper: the wide tiles where they fit
      CHECK(second(1200, 7200, 4000) == "sm90.ws_fp8.splitk sm90.ws_fp8.pingpong");  // 3 wide rounds (6 square rounds' work) against 5
      CHECK(second(5000, 4096, 3104) == "sm90.ws_fp8.splitk sm90.ws_fp8.wide");      // 5 wide rounds against 10 square
      CHECK(fp8_first(a, 1872, 2224, 1824) == "sm90.ws_fp8.pingpong");        // 270 tiles: under three rounds
      CHECK(fp8_first(a, 128, 65536, 4000) == "sm90.ws_fp8.pingpong");        // 512 tiles in one row: not timed
      CHECK(fp8_first(a, 848, 4240, 3552) == "sm90.ws_fp8.pingpong");         // 238 tiles
      CHECK(fp8_first(a, 7504, 7776, 4608) == "sm90.ws_fp8.pingpong");        // whole lines: alone
      CHECK(fp8_first(a, 128, 14336, 4096) == "sm90.ws_fp8.pingpong");
      CHECK(fp8_first(a, 128, 14336, 5200) == "sm90.ws_fp8.pingpong");   // one tile row: no wide cluster
      CHECK(fp8_first(a, 16, 4096, 4096) == "sm90.ws_fp8.swap");         // decode: the weight as A
      CHECK(fp8_first(a, 64, 14336, 16384) == "sm90.ws_fp8.swap");
      CHECK(fp8_first(a, 65, 4096, 4096) == "sm90.ws_fp8.pingpong");     // 32 tiles, K too short to split
      CHECK(fp8_first(a, 65, 4096, 14336) == "sm90.ws_fp8.dsmem");       // 32 tiles, 112 stages
      CHECK(fp8_first(a, 128, 8192, 28672) == "sm90.ws_fp8.dsmem");      // 64 tiles
      CHECK(fp8_first(a, 100, 14336, 16384) == "sm90.ws_fp8");           // 112 tiles
      {
        GemmArgs f32 = a;  // the swap stores 16-bit values: fp32 output takes the square tiles' rule
        f32.dtype_c = DType::f32;
        const auto list = auto_preference(90, [&] { GemmArgs s = f32; s.M = 16, s.N = 4096, s.K = 4096; return s; }(), 132);
        CHECK(std::string(list.at(0)) == "sm90.ws_fp8.swap" && std::string(list.at(1)) == "sm90.ws_fp8.pingpong");
        GemmArgs s = f32;
        s.M = 16, s.N = 4096, s.K = 4096;
        CHECK(!check_supports(*find_kernel("sm90.ws_fp8.swap"), s).ok());
      }
      {
        GemmArgs f32 = a;  // ping-pong stores 16-bit boxes: fp32 output takes the next in line
        f32.dtype_c = DType::f32;
        const auto list = auto_preference(90, f32, 132);
        CHECK(std::string(list.at(0)) == "sm90.ws_fp8.pingpong" && std::string(list.at(1)) == "sm90.ws_fp8.wide");
        CHECK(!check_supports(*find_kernel("sm90.ws_fp8.pingpong"), f32).ok());
        CHECK(check_supports(*find_kernel("sm90.ws_fp8.wide"), f32).ok());
      }
      CHECK(fp8_first(block, 8192, 8192, 8192) == "sm90.ws_fp8.block.overlap.scale_warp");
      CHECK(fp8_first(block, 64, 4096, 4096) == "sm90.ws_fp8.block.dsmem");  // 32 tiles, 32 stages
      CHECK(fp8_first(block, 64, 7168, 2048) == "sm90.ws_fp8.block");  // 16 stages; one row of tiles
      CHECK(fp8_first(block, 128, 14336, 4096) == "sm90.ws_fp8.block");  // 112 tiles, one row
      // Two rounds of 128x128 tiles at most, two rows or more: the 128x256 tiles.
      CHECK(fp8_first(block, 512, 7168, 16384) == "sm90.ws_fp8.block.wide");  // 224 tiles
      CHECK(fp8_first(block, 1000, 3008, 5120) == "sm90.ws_fp8.block.wide");  // 192 tiles
      CHECK(fp8_first(block, 3000, 1536, 7168) == "sm90.ws_fp8.block.overlap.scale_warp");  // 288 tiles
      // fp32 accumulation (Accum::f32, use_fast_accum=False): tensor / row-wise
      // scales take the promoting entries, split in a cluster by the block rule;
      // block scales promote either way.
      GemmArgs exact = a;
      exact.accum = Accum::f32;
      // Decode (M <= 128): the promoting swap, then the 128x128 tiles' rule (which fp32 output takes).
      auto fp8_after_swap = [](const GemmArgs& g, int64_t M, int64_t N, int64_t K) {
        GemmArgs s = g;
        s.M = M, s.N = N, s.K = K;
        const auto list = auto_preference(90, s, 132);
        const bool swap = std::string(list.front()) == "sm90.ws_fp8.promoted.swap";
        return (M <= 128) == swap ? std::string(list.at(swap ? 1 : 0)) : std::string("(swap misplaced)");
      };
      CHECK(fp8_first(exact, 8192, 8192, 8192) == "sm90.ws_fp8.promoted.overlap");
      CHECK(fp8_first(exact, 1, 4096, 4096) == "sm90.ws_fp8.promoted.swap");
      CHECK(fp8_first(exact, 128, 4096, 4096) == "sm90.ws_fp8.promoted.swap");
      CHECK(fp8_first(exact, 129, 4096, 4096) == "sm90.ws_fp8.promoted.overlap");
      CHECK(fp8_after_swap(exact, 16, 4096, 4096) == "sm90.ws_fp8.promoted.overlap");  // 32 tiles, 32 stages: unsplit
      CHECK(fp8_after_swap(exact, 16, 4096, 8192) == "sm90.ws_fp8.promoted.dsmem");    // 64 stages: the cluster split
      CHECK(fp8_after_swap(exact, 256, 2048, 6144) == "sm90.ws_fp8.promoted.dsmem");   // 32 tiles, 48 stages
      CHECK(fp8_after_swap(exact, 16, 4096, 2048) == "sm90.ws_fp8.promoted.overlap");  // 16 stages
      CHECK(fp8_after_swap(exact, 128, 14336, 4096) == "sm90.ws_fp8.promoted.overlap");  // 112 tiles
      {
        GemmArgs f32 = exact;  // the swap stores 16-bit values: fp32 output takes the square tiles' rule
        f32.dtype_c = DType::f32;
        f32.M = 16, f32.N = 4096, f32.K = 4096;
        CHECK(!check_supports(*find_kernel("sm90.ws_fp8.promoted.swap"), f32).ok());
        CHECK(check_supports(*find_kernel("sm90.ws_fp8.promoted.overlap"), f32).ok());
      }
      // Rows 16 bytes into a sector: 128x256 tiles promoted part by part (also where their rounds
      // fit worse than the square tiles', 3000 x 1536); whole sectors keep .overlap.
      CHECK(fp8_first(exact, 1000, 3008, 5008) == "sm90.ws_fp8.promoted.wide");
      CHECK(fp8_first(exact, 3000, 1536, 7184) == "sm90.ws_fp8.promoted.wide");
      CHECK(fp8_first(exact, 1000, 3008, 5120) == "sm90.ws_fp8.promoted.overlap");  // whole lines
      CHECK(fp8_first(exact, 1500, 5120, 5216) == "sm90.ws_fp8.promoted.wide");     // part lines past K = 2048
      CHECK(fp8_first(exact, 4500, 2496, 2848) == "sm90.ws_fp8.promoted.wide");     // 6 wide rounds' work, 6 square
      CHECK(fp8_first(exact, 5600, 2800, 2656) == "sm90.ws_fp8.promoted.wide");     // 8 against 8
      CHECK(fp8_first(exact, 6000, 3008, 2592) == "sm90.ws_fp8.promoted.overlap");  // 10 against 9
      CHECK(fp8_first(exact, 4000, 4000, 1376) == "sm90.ws_fp8.promoted.overlap");  // 8 against 8, K <= 2048
      CHECK(fp8_first(exact, 1200, 7200, 4000) == "sm90.ws_fp8.promoted.overlap");  // wide rounds 1.2x the square
      CHECK(fp8_first(exact, 1800, 6400, 5600) == "sm90.ws_fp8.promoted.overlap");  // wide rounds 1.33x the square
      CHECK(fp8_after_swap(exact, 16, 4096, 4112) == "sm90.ws_fp8.promoted.overlap");  // 33 stages, one row of tiles
      CHECK(fp8_after_swap(exact, 16, 4096, 6160) == "sm90.ws_fp8.promoted.dsmem");    // 49 stages: the cluster split
      CHECK(fp8_first(exact, 6080, 544, 3600) == "sm90.ws_fp8.promoted.overlap");  // wide rounds 2x the square ones
      { GemmArgs b = block; b.accum = Accum::f32; CHECK(fp8_first(b, 1000, 3008, 5008) == "sm90.ws_fp8.block.wide"); }
      { GemmArgs r = exact; r.scales.mode = ScaleMode::rowwise;
        CHECK(fp8_first(r, 4096, 4096, 4096) == "sm90.ws_fp8.promoted.overlap"); }
      { GemmArgs b = block; b.accum = Accum::f32; CHECK(fp8_first(b, 8192, 8192, 8192) == "sm90.ws_fp8.block.overlap.scale_warp"); }
      // Who sums how: the unpromoted wgmma entries refuse fp32 accumulation by
      // name; the promoting, block and Ada entries take both; f16 and 16-bit
      // operands never take 'fast'.
      for (const char* name : {"sm90.ws_fp8", "sm90.ws_fp8.mcast", "sm90.ws_fp8.wide", "sm90.ws_fp8.pingpong",
                               "sm90.ws_fp8.swap", "sm90.ws_fp8.dsmem"}) {
        SCOPED_CASE("%s", name);
        const KernelInfo* k = find_kernel(name);
        CHECK(k != nullptr && check_supports(*k, a).ok());
        CHECK(k != nullptr && check_supports(*k, exact).message.find("fp32 accumulation") != std::string::npos);
      }
      for (const char* name : {"sm90.ws_fp8.promoted", "sm90.ws_fp8.promoted.dsmem", "sm90.ws_fp8.promoted.overlap",
                               "sm90.ws_fp8.promoted.wide", "sm90.ws_fp8.promoted.mcast", "sm89.fp8_mma.s3",
                               "sm89.fp8_mma_8w.s4"}) {
        SCOPED_CASE("%s", name);
        const KernelInfo* k = find_kernel(name);
        CHECK(k != nullptr && check_supports(*k, a).ok() && check_supports(*k, exact).ok());
        CHECK(k != nullptr && !check_supports(*k, block).ok() == (std::string(name) != "sm89.fp8_mma.s3"));
        GemmArgs h = exact;
        h.accum = Accum::f16;
        CHECK(k != nullptr && check_supports(*k, h).message.find("accumulate='f16'") != std::string::npos);
      }
      for (const char* name : {"sm90.ws_fp8.block", "sm90.ws_fp8.block.dsmem", "sm90.ws_fp8.block.overlap",
                               "sm90.ws_fp8.block.wide", "sm90.ws_fp8.block.mcast",
                               "sm90.ws_fp8.block.overlap.scale_warp"}) {
        SCOPED_CASE("%s", name);
        GemmArgs b = block;
        b.accum = Accum::f32;
        CHECK(check_supports(*find_kernel(name), block).ok() && check_supports(*find_kernel(name), b).ok());
      }
      {
        GemmArgs h = good();
        h.accum = Accum::fast;
        CHECK(check_supports(*find_kernel("sm90.ws_persistent"), h).message.find("'fast' on float16 operands (FP8 only)") !=
              std::string::npos);
        CHECK(std::string(to_string(Accum::fast)) == "fast");
      }
      for (const GemmArgs& g : {a, block, exact}) {
        const KernelInfo* k = find_kernel(auto_preference(90, g, 132).front());
        CHECK(k != nullptr && check_supports(*k, g).ok());
      }
      for (const GemmArgs& g : {a, small, block, exact})
        for (const char* name : auto_preference(89, g, 132)) {
          const KernelInfo* k = find_kernel(name);
          CHECK(k != nullptr && check_supports(*k, g).ok());
        }
    }
  }

  // copy_matrices (the staging copies): what its checks refuse, before any launch.
  {
    alignas(16) static char buf[64];
    auto copy = [&] {
      MatrixCopy m;
      m.src = buf, m.dst = buf + 32, m.rows = 3, m.cols = 5, m.src_row = 7, m.dst_row = 8;
      return m;
    };
    auto refuses = [](const MatrixCopy* c, int n, const char* needle) {
      const Status s = check_copies(c, n);
      const bool ok = s.code == StatusCode::invalid_argument && s.message.find(needle) != std::string::npos;
      if (!ok) std::fprintf(stderr, "  expected a refusal containing '%s', got '%s'\n", needle, s.message.c_str());
      return ok;
    };
    MatrixCopy four[kMaxMatrixCopies + 1] = {copy(), copy(), copy(), copy(), copy()};
    CHECK(check_copies(four, kMaxMatrixCopies).ok());
    CHECK(check_copies(nullptr, 0).ok());
    CHECK(refuses(four, kMaxMatrixCopies + 1, "not in 0..4"));
    CHECK(refuses(nullptr, 1, "copies is null"));
    { MatrixCopy m = copy(); m.rows = -1; CHECK(refuses(&m, 1, ">= 0")); }
    { MatrixCopy m = copy(); m.src = nullptr; CHECK(refuses(&m, 1, "must not be null")); }
    { MatrixCopy m = copy(); m.src = nullptr, m.cols = 0; CHECK(check_copies(&m, 1).ok()); }  // empty: nothing read
    { MatrixCopy m = copy(); m.dst = buf + 3; CHECK(refuses(&m, 1, "2-byte aligned")); }
    { MatrixCopy m = copy(); m.src_row = -7, m.dst_col = 0; CHECK(check_copies(&m, 1).ok()); }  // any stride
    { MatrixCopy m = copy(); m.rows = int64_t{1} << 20, m.cols = int64_t{1} << 14, m.batch = 4;
      CHECK(check_copies(&m, 1).ok()); }  // 2^33 chunks: copied in pieces
    // split_copy: the pieces of a copy too large for one launch move every element once. Small
    // limits stand in for 2^31: whole matrices, whole rows, and columns of one row, with negative
    // and batch strides; each element's (source, destination) offset pair is enumerated.
    {
      auto elements = [](const std::vector<MatrixCopy>& ms, const MatrixCopy& base) {
        std::multiset<std::pair<int64_t, int64_t>> e;
        for (const MatrixCopy& m : ms)
          for (int64_t b = 0; b < m.batch; ++b)
            for (int64_t r = 0; r < m.rows; ++r)
              for (int64_t c = 0; c < m.cols; ++c)
                e.insert({static_cast<const uint16_t*>(m.src) - static_cast<const uint16_t*>(base.src) + b * m.src_batch +
                              r * m.src_row + c * m.src_col,
                          static_cast<uint16_t*>(m.dst) - static_cast<uint16_t*>(base.dst) + b * m.dst_batch +
                              r * m.dst_row + c * m.dst_col});
        return e;
      };
      alignas(16) static uint16_t space[1 << 16];
      MatrixCopy m;
      m.src = space + 30000, m.dst = space + 2, m.rows = 7, m.cols = 21, m.batch = 3;
      m.src_row = -25, m.src_col = 1, m.src_batch = 200, m.dst_row = 24, m.dst_col = 1, m.dst_batch = 7 * 24;
      const auto want = elements({m}, m);
      for (int64_t limit : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, int64_t{21}, int64_t{22}, int64_t{50},
                            int64_t{63}, int64_t{1000}}) {
        SCOPED_CASE("split_copy, %lld chunks a piece", (long long)limit);
        std::vector<MatrixCopy> pieces;
        split_copy(m, limit, &pieces);
        CHECK(elements(pieces, m) == want);
        for (const MatrixCopy& p : pieces) CHECK(p.batch * p.rows * ((p.cols + 7) / 8) <= limit);
        if (limit >= 63) CHECK(pieces.size() == 1);
      }
      std::vector<MatrixCopy> none;
      MatrixCopy empty = m;
      empty.rows = 0;
      split_copy(empty, 4, &none);
      CHECK(none.empty());
    }
    if (device_count() == 0) CHECK(copy_matrices(four, 1, nullptr).code != StatusCode::ok);
  }

  // The `.lines` entries' copies (sm90/lines.h): operands whose rows do not
  // start at 128-byte lines go to the workspace at a pitch of whole lines,
  // from its first line boundary: A's copy first, B's after it at a 256-byte
  // boundary; the bytes reserved from the shape alone hold both and a line
  // of slack.
  {
    GemmArgs a;
    a.M = 1000, a.N = 333, a.K = 4112, a.lda = 4112, a.ldb = 4112;
    const sm90::LinesPlan p = sm90::lines_plan(a);
    CHECK(p.pitch == 4224 && p.copy_a && p.copy_b);
    CHECK(p.a_offset == 0 && p.b_offset == 1000 * 4224 && p.b_offset % 256 == 0);
    CHECK(p.bytes == 128 + p.b_offset + ((333 * 4224 + 255) / 256) * 256);
    { GemmArgs b = a; b.lda = 4224;  // A already whole lines apart (a view of a padded buffer): read in place
      const sm90::LinesPlan q = sm90::lines_plan(b);
      CHECK(!q.copy_a && q.copy_b && q.bytes == p.bytes && q.b_offset == p.b_offset); }
    { GemmArgs b = a; b.lda = 4224; b.A = reinterpret_cast<const void*>(uintptr_t{1} << 20 | 16);  // ... starting mid-line
      CHECK(sm90::lines_plan(b).copy_a); }
    { GemmArgs b = a; b.M = 7, b.K = 16, b.lda = b.ldb = 16;  // one short line
      const sm90::LinesPlan q = sm90::lines_plan(b);
      CHECK(q.pitch == 128 && q.copy_a && q.copy_b && q.b_offset == 1024 && q.bytes == 128 + 1024 + 333 * 128 + 128); }
    { GemmArgs b = a; b.K = 4096, b.lda = b.ldb = 4096;  // whole lines: nothing to copy, nothing reserved
      const sm90::LinesPlan q = sm90::lines_plan(b);
      CHECK(!q.copy_a && !q.copy_b && q.bytes == 0 && sm90::lines_workspace_bytes(b) == 0); }
    { GemmArgs b = a; b.K = 4096, b.lda = 4112;  // a view of K whole lines at another pitch: read in place
      CHECK(!sm90::lines_plan(b).copy_a && sm90::lines_plan(b).bytes == 0); }
    { GemmArgs b = a; b.K = 4111;  // an odd K (the C++ API allows it): no 2-byte copy moves it, read in place
      CHECK(!sm90::lines_plan(b).copy_a && !sm90::lines_plan(b).copy_b && sm90::lines_plan(b).bytes == 0); }
    // The copies themselves: 2-byte elements, from the workspace's first line boundary.
    {
      GemmArgs b = a;
      b.A = reinterpret_cast<const void*>(uintptr_t{1} << 30), b.B = reinterpret_cast<const void*>(uintptr_t{1} << 31);
      b.lda = 4128, b.ldb = 4224;  // B whole lines apart: read in place
      const sm90::LinesPlan q = sm90::lines_plan(b);
      char* ws = reinterpret_cast<char*>(uintptr_t{1} << 32) + 16;  // 16-byte aligned, 16 bytes into a line
      MatrixCopy c[2];
      GemmArgs g;
      CHECK(sm90::lines_copies(b, q, ws, c, &g) == 1);
      CHECK(c[0].src == b.A && c[0].dst == ws + 112 && c[0].rows == 1000 && c[0].cols == 2056 && c[0].batch == 1);
      CHECK(c[0].src_row == 2064 && c[0].src_col == 1 && c[0].dst_row == 2112 && c[0].dst_col == 1);
      CHECK(g.A == ws + 112 && g.lda == 4224 && g.B == b.B && g.ldb == 4224 && g.K == 4112 && !g.workspace);
      CHECK(112 + q.b_offset + 333 * 4224 <= q.bytes);  // B's copy would fit after the slack too
      b.ldb = 4112;
      CHECK(sm90::lines_copies(b, sm90::lines_plan(b), ws, c, &g) == 2);
      CHECK(c[1].src == b.B && c[1].dst == ws + 112 + q.b_offset && c[1].rows == 333 && c[1].src_row == 2056);
      CHECK(g.B == ws + 112 + q.b_offset && g.ldb == 4224);
    }
    for (const char* name : {"sm90.ws_fp8.pingpong.lines", "sm90.ws_fp8.wide.lines",
                             "sm90.ws_fp8.promoted.overlap.lines", "sm90.ws_fp8.promoted.wide.lines"}) {
      const KernelInfo* k = find_kernel(name);
      CHECK(k != nullptr);
      if (k && k->workspace) {  // (built with the family: what the plan reserves for the shape)
        size_t bytes = 0;
        CHECK(k->workspace(a, &bytes).ok() && bytes == p.bytes);
      }
    }
  }

  // A launch's workspace given by the caller (core/workspace.h): checked for
  // size, used as it is, never freed; the launch's status passes through.
  {
    alignas(16) static char mem[256];
    LaunchWorkspace w;
    const Status small = w.acquire(mem, 128, 256, nullptr);
    CHECK(!small.ok() && small.code == StatusCode::invalid_argument &&
          small.message.find("workspace of 128 bytes; this launch needs 256") != std::string::npos);
    LaunchWorkspace v;
    CHECK(v.acquire(mem, 256, 256, nullptr).ok() && v.ptr() == mem);
    CHECK(v.release(Status::Ok()).ok());
    LaunchWorkspace u;
    CHECK(u.acquire(mem, 512, 256, nullptr).ok() && u.ptr() == mem);
    const Status e = u.release(Status::Error(StatusCode::cuda_error, "launch"));
    CHECK(!e.ok() && e.message == "launch");
    // tcgemm's pool: with no device the acquire fails and release frees nothing; with one, the
    // launch's error wins over the free's success and the scratch is back in the pool after it.
    LaunchWorkspace p;
    const Status got = p.acquire(nullptr, 0, 4096, nullptr);
    if (device_count() == 0) {
      CHECK(!got.ok() && p.ptr() == nullptr && p.release(Status::Ok()).ok());
    } else {
      size_t reserved = 0, used = 0;
      CHECK(got.ok() && p.ptr() != nullptr);
      const Status r = p.release(Status::Error(StatusCode::cuda_error, "launch"));
      CHECK(!r.ok() && r.message == "launch" && p.release(Status::Ok()).ok());
      CHECK(cudaDeviceSynchronize() == cudaSuccess && workspace_stats(&reserved, &used).ok() && used == 0);
    }
  }

  if (device_count() == 0) {
    // Without a device every kernel reports why it cannot run.
    for (const auto& kk : kernels()) CHECK(check_runnable(kk).code == StatusCode::no_device);
    Status s = gemm(good(), "auto");
    CHECK(s.code == StatusCode::no_device);
    CHECK(s.message.find("no CUDA device") != std::string::npos);
    DeviceBuffer b;
    CHECK(DeviceBuffer::allocate(4, 4, DType::f16, &b).code == StatusCode::no_device);
  }
  return finish("test_args");
}
