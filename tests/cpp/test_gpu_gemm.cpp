// Every runnable registry entry against a float64 CPU reference: fresh random
// data, poisoned outputs, odd shapes, NN and TN, both dtypes and accumulators.
// Skips (exit 77) with a message when there is no CUDA device.
//
// By default a representative set (see main); TCGEMM_TEST_EXHAUSTIVE=1 runs
// every shape and fused case on every (dtype, accumulator, layout) of every
// kernel. A failing check names its case: kernel, dtype, layout, accumulator,
// MxNxK, batch, epilogue.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "check.h"
#include "core/launch_check.h"
#include "tcgemm/tcgemm.h"

using namespace tcgemm;

static uint16_t to_bits(float x, DType d) {
  if (d == DType::f16) { __half h = __float2half_rn(x); uint16_t b; std::memcpy(&b, &h, 2); return b; }
  __nv_bfloat16 h = __float2bfloat16_rn(x); uint16_t b; std::memcpy(&b, &h, 2); return b;
}
static float from_bits(uint16_t b, DType d) {
  if (d == DType::f16) { __half h; std::memcpy(&h, &b, 2); return __half2float(h); }
  __nv_bfloat16 h; std::memcpy(&h, &b, 2); return __bfloat162float(h);
}

struct Case { int64_t M, N, K; };

// Sums over (m, n) of (got - ref)^2 and ref^2, and the count of non-finite
// outputs, where ref(m, n) = finish(m, n, sum_k a[m, k] * bt[n, k]) in
// float64 (bt: B as N x K rows) and got(m, n) is the output's element. Rows
// are split over the host's threads; each row's sums are kept apart and
// added in row order (the same result whatever the thread count).
template <class Finish, class Got>
static void compare_rows(int64_t M, int64_t N, int64_t K, const double* a, const double* bt, Finish finish, Got got_at,
                         double* num, double* den, int64_t* bad) {
  std::vector<double> rn(M), rd(M);
  std::vector<int64_t> rb(M);
  auto rows = [&](int64_t m0, int64_t m1) {
    for (int64_t m = m0; m < m1; ++m) {
      double n2 = 0, d2 = 0;
      int64_t b = 0;
      for (int64_t n = 0; n < N; ++n) {
        double dot = 0;
        const double *x = a + m * K, *y = bt + n * K;
        for (int64_t kk = 0; kk < K; ++kk) dot += x[kk] * y[kk];
        const double ref = finish(m, n, dot), got = got_at(m, n);
        if (!std::isfinite(got)) ++b;
        n2 += (got - ref) * (got - ref), d2 += ref * ref;
      }
      rn[m] = n2, rd[m] = d2, rb[m] = b;
    }
  };
  for_rows(M, M * N * K, rows);
  *num = 0, *den = 0, *bad = 0;
  for (int64_t m = 0; m < M; ++m) *num += rn[m], *den += rd[m], *bad += rb[m];
}

static bool run_case(const KernelInfo& k, const Case& c, DType dt, Layout lay, Accum acc, std::mt19937& rng) {
  SCOPED_CASE("%s %s acc=%s %lldx%lldx%lld batch=1 epilogue=none", to_string(dt), to_string(lay), to_string(acc),
              (long long)c.M, (long long)c.N, (long long)c.K);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  const int64_t brows = lay == Layout::NN ? c.K : c.N, bcols = lay == Layout::NN ? c.N : c.K;
  std::vector<uint16_t> ha(c.M * c.K), hb(brows * bcols), hc(c.M * c.N);
  std::vector<double> fa(ha.size()), fb(hb.size());
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = to_bits(U(rng), dt), fa[i] = from_bits(ha[i], dt);
  for (size_t i = 0; i < hb.size(); ++i) hb[i] = to_bits(U(rng), dt), fb[i] = from_bits(hb[i], dt);
  DeviceBuffer A, B, C;
  Status s = DeviceBuffer::allocate(c.M, c.K, dt, &A);
  if (s.ok()) s = DeviceBuffer::allocate(brows, bcols, dt, &B);
  if (s.ok()) s = DeviceBuffer::allocate(c.M, c.N, dt, &C);
  if (s.ok()) s = A.upload(ha.data(), c.K * 2);
  if (s.ok()) s = B.upload(hb.data(), bcols * 2);
  if (s.ok()) s = C.fill_bytes(0xFF);  // NaN poison: an unwritten element cannot pass
  GemmArgs g;
  g.A = A.data(), g.B = B.data(), g.C = C.data(), g.M = c.M, g.N = c.N, g.K = c.K;
  g.lda = A.pitch(), g.ldb = B.pitch(), g.ldc = C.pitch(), g.dtype = dt, g.layout = lay, g.accum = acc;
  if (s.ok()) s = gemm(g, k.name);
  if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
  if (s.ok()) s = C.download(hc.data(), c.N * 2);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return false;
  std::vector<double> fbt(fb.size());  // B as N x K rows
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t kk = 0; kk < c.K; ++kk) fbt[n * c.K + kk] = lay == Layout::NN ? fb[kk * c.N + n] : fb[n * c.K + kk];
  double num = 0, den = 0;
  int64_t bad = 0;
  compare_rows(
      c.M, c.N, c.K, fa.data(), fbt.data(), [](int64_t, int64_t, double dot) { return dot; },
      [&](int64_t m, int64_t n) { return double(from_bits(hc[m * c.N + n], dt)); }, &num, &den, &bad);
  const double rel = std::sqrt(num / (den > 0 ? den : 1));
  // fp32 accumulation: output rounding dominates (2^-11 fp16, 2^-8 bf16).
  // fp16 accumulation: error grows ~sqrt(K) ulps; bound stated for K <= 1000.
  const double bound = acc == Accum::f16 ? 1e-2 : (dt == DType::bf16 ? 8e-3 : 2e-3);
  const bool ok = bad == 0 && rel < bound;
  CHECK_MSG(ok, "rel err %.3g (bound %.1g), %lld unwritten/non-finite", rel, bound, (long long)bad);
  return ok;
}

// What a kernel's features add, all at once: a batch of 2 (if kBatched),
// D = gelu(0.5 A B - S + bias) with a source S and an fp32 bias (if
// kEpilogue), K split 3 ways (if kSplitK). The sanitizer runs reach these
// code paths through this case. `linear`: D = gelu(0.5 A B + bias), no
// source (the form the Hopper TMA-store kernels stage the bias for), at a
// shape with more output tiles than an H200 has SMs, so that persistent CTAs
// restage the bias tile after tile.
static bool run_fused_case(const KernelInfo& k, DType dt, Layout lay, std::mt19937& rng, bool linear) {
  const bool batched = k.features & kBatched, fused = k.features & kEpilogue;
  const int64_t M = linear ? 1100 : 129, N = linear ? 2000 : 131, K = linear ? 40 : 200, batch = batched ? 2 : 1;
  const int split_k = (k.features & kSplitK) && !linear ? 3 : 1;  // linear: the unsplit kernel's own epilogue
  SCOPED_CASE("%s %s acc=f32 %lldx%lldx%lld batch=%lld epilogue=%s split_k=%d", to_string(dt), to_string(lay),
              (long long)M, (long long)N, (long long)K, (long long)batch,
              !fused ? "none" : linear ? "gelu(0.5 AB + f32 bias)" : "gelu(0.5 AB - S + f32 bias)", split_k);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  const int64_t brows = lay == Layout::NN ? K : N, bcols = lay == Layout::NN ? N : K;
  std::vector<uint16_t> ha(batch * M * K), hb(batch * brows * bcols), hs(batch * M * N), hc(batch * M * N);
  std::vector<float> bias(N);
  for (auto& x : ha) x = to_bits(U(rng), dt);
  for (auto& x : hb) x = to_bits(U(rng), dt);
  for (auto& x : hs) x = to_bits(U(rng), dt);
  for (auto& x : bias) x = U(rng);
  DeviceBuffer A, B, C, S, Bias;
  Status s = DeviceBuffer::allocate(batch * M, K, dt, &A);
  if (s.ok()) s = DeviceBuffer::allocate(batch * brows, bcols, dt, &B);
  if (s.ok()) s = DeviceBuffer::allocate(batch * M, N, dt, &C);
  if (s.ok()) s = DeviceBuffer::allocate(batch * M, N, dt, &S);
  if (s.ok()) s = DeviceBuffer::allocate(1, 2 * N, DType::f16, &Bias);  // N floats as 2N 16-bit words
  if (s.ok()) s = A.upload(ha.data(), K * 2);
  if (s.ok()) s = B.upload(hb.data(), bcols * 2);
  if (s.ok()) s = S.upload(hs.data(), N * 2);
  if (s.ok()) s = Bias.upload(bias.data(), N * 4);
  if (s.ok()) s = C.fill_bytes(0xFF);
  GemmArgs g;
  g.A = A.data(), g.B = B.data(), g.C = C.data(), g.M = M, g.N = N, g.K = K;
  g.lda = A.pitch(), g.ldb = B.pitch(), g.ldc = C.pitch(), g.dtype = dt, g.layout = lay;
  g.batch = batch, g.batch_stride_a = M * A.pitch(), g.batch_stride_b = brows * B.pitch();
  g.batch_stride_c = M * C.pitch();
  if (fused) {
    g.epilogue.alpha = 0.5f, g.epilogue.bias = Bias.data();
    if (!linear) {
      g.epilogue.beta = -1.f, g.epilogue.source = S.data(), g.epilogue.ld_source = S.pitch();
      g.epilogue.batch_stride_source = M * S.pitch();
    }
    g.epilogue.bias_type = BiasType::f32, g.epilogue.act = Activation::gelu;
  }
  if (k.features & kSplitK) g.split_k = split_k;
  if (s.ok()) s = gemm(g, k.name);
  if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
  if (s.ok()) s = C.download(hc.data(), N * 2);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return false;
  double num = 0, den = 0;
  int64_t bad = 0;
  std::vector<double> fa(M * K), fbt(N * K);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < M * K; ++i) fa[i] = from_bits(ha[b * M * K + i], dt);
    for (int64_t n = 0; n < N; ++n)  // B as N x K rows
      for (int64_t kk = 0; kk < K; ++kk)
        fbt[n * K + kk] = from_bits(lay == Layout::NN ? hb[(b * K + kk) * N + n] : hb[(b * N + n) * K + kk], dt);
    const auto finish = [&](int64_t m, int64_t n, double x) {
      if (!fused) return x;
      x = 0.5 * x - (linear ? 0.0 : from_bits(hs[(b * M + m) * N + n], dt)) + bias[n];
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    };
    double bn = 0, bd = 0;
    int64_t bb = 0;
    compare_rows(
        M, N, K, fa.data(), fbt.data(), finish,
        [&](int64_t m, int64_t n) { return double(from_bits(hc[(b * M + m) * N + n], dt)); }, &bn, &bd, &bb);
    num += bn, den += bd, bad += bb;
  }
  const double rel = std::sqrt(num / (den > 0 ? den : 1)), bound = dt == DType::bf16 ? 8e-3 : 2e-3;
  const bool ok = bad == 0 && rel < bound;
  CHECK_MSG(ok, "rel err %.3g (bound %.1g), %lld unwritten/non-finite", rel, bound, (long long)bad);
  return ok;
}

// A kernel that reads rows anywhere (kAnyRows): every leading dimension 1 or 3
// past a multiple of 8 elements, every matrix 1-5 elements into its
// allocation, a batch of 2 at odd strides; `fused`: gelu(0.5 AB - S + bias)
// with the source S at an odd leading dimension too. The poisoned elements
// around C's (between rows, between the matrices, before the first) must
// come back untouched.
static bool run_any_rows_case(const KernelInfo& k, const Case& c, DType dt, Layout lay, Accum acc, bool fused,
                              std::mt19937& rng, bool via_auto = false) {
  const int64_t M = c.M, N = c.N, K = c.K, batch = 2;
  const int64_t brows = lay == Layout::NN ? K : N, bcols = lay == Layout::NN ? N : K;
  auto odd_ld = [](int64_t cols, int64_t past) { return (cols + 7) / 8 * 8 + past; };
  const int64_t lda = odd_ld(K, 1), ldb = odd_ld(bcols, 3), ldc = odd_ld(N, 1), lds = odd_ld(N, 3);
  const int64_t sa = M * lda + 1, sb = brows * ldb + 3, sc = M * ldc + 1, ss = M * lds + 5;
  const int64_t oa = 1, ob = 3, oc = 5, os = 1;  // elements before each first matrix
  SCOPED_CASE("%s%s %s acc=%s %lldx%lldx%lld batch=2 lda=%lld ldb=%lld ldc=%lld epilogue=%s",
              via_auto ? "auto: " : "", to_string(dt), to_string(lay), to_string(acc), (long long)M, (long long)N,
              (long long)K, (long long)lda, (long long)ldb, (long long)ldc,
              fused ? "gelu(0.5 AB - S + f32 bias)" : "none");
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  const uint16_t poison = 0xFFFF;  // NaN in fp16 and bf16
  std::vector<uint16_t> ha(oa + batch * sa, poison), hb(ob + batch * sb, poison), hs(os + batch * ss, poison);
  std::vector<uint16_t> hc(oc + batch * sc, poison);
  std::vector<float> bias(N);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t kk = 0; kk < K; ++kk) ha[oa + b * sa + m * lda + kk] = to_bits(U(rng), dt);
    for (int64_t r = 0; r < brows; ++r)
      for (int64_t q = 0; q < bcols; ++q) hb[ob + b * sb + r * ldb + q] = to_bits(U(rng), dt);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) hs[os + b * ss + m * lds + n] = to_bits(U(rng), dt);
  }
  for (auto& x : bias) x = U(rng);
  uint16_t *dA = nullptr, *dB = nullptr, *dC = nullptr, *dS = nullptr;
  float* dBias = nullptr;
  auto bytes = [](const std::vector<uint16_t>& v) { return v.size() * 2; };
  Status s = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dA), bytes(ha)), "cudaMalloc");
  if (s.ok()) s = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dB), bytes(hb)), "cudaMalloc");
  if (s.ok()) s = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dC), bytes(hc)), "cudaMalloc");
  if (s.ok()) s = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dS), bytes(hs)), "cudaMalloc");
  if (s.ok()) s = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dBias), N * 4), "cudaMalloc");
  if (s.ok()) s = cuda_status(cudaMemcpy(dA, ha.data(), bytes(ha), cudaMemcpyHostToDevice), "upload");
  if (s.ok()) s = cuda_status(cudaMemcpy(dB, hb.data(), bytes(hb), cudaMemcpyHostToDevice), "upload");
  if (s.ok()) s = cuda_status(cudaMemcpy(dC, hc.data(), bytes(hc), cudaMemcpyHostToDevice), "upload");
  if (s.ok()) s = cuda_status(cudaMemcpy(dS, hs.data(), bytes(hs), cudaMemcpyHostToDevice), "upload");
  if (s.ok()) s = cuda_status(cudaMemcpy(dBias, bias.data(), N * 4, cudaMemcpyHostToDevice), "upload");
  GemmArgs g;
  g.A = dA + oa, g.B = dB + ob, g.C = dC + oc, g.M = M, g.N = N, g.K = K;
  g.lda = lda, g.ldb = ldb, g.ldc = ldc, g.dtype = dt, g.layout = lay, g.accum = acc;
  g.batch = batch, g.batch_stride_a = sa, g.batch_stride_b = sb, g.batch_stride_c = sc;
  if (fused) {
    g.epilogue.alpha = 0.5f, g.epilogue.beta = -1.f, g.epilogue.bias = dBias, g.epilogue.bias_type = BiasType::f32;
    g.epilogue.source = dS + os, g.epilogue.ld_source = lds, g.epilogue.batch_stride_source = ss;
    g.epilogue.act = Activation::gelu;
  }
  // The 16-byte rule turns these arguments away from every other kernel.
  CHECK_MSG(!check_args(g).ok(), "check_args took rows that are not 16-byte multiples apart");
  // via_auto: "auto" must take this kernel for B off the 16-byte grid (GemmArgs::b_ragged).
  const KernelInfo* chosen = nullptr;
  if (s.ok()) s = gemm(g, via_auto ? "auto" : k.name, &chosen);
  if (s.ok() && via_auto) CHECK_MSG(chosen == &k, "auto took %s", chosen ? chosen->name : "nothing");
  if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
  if (s.ok()) s = cuda_status(cudaMemcpy(hc.data(), dC, bytes(hc), cudaMemcpyDeviceToHost), "download");
  for (void* p : {static_cast<void*>(dA), static_cast<void*>(dB), static_cast<void*>(dC), static_cast<void*>(dS),
                  static_cast<void*>(dBias)})
    if (p) cudaFree(p);
  CHECK_MSG(s.ok(), "%s", s.message.c_str());
  if (!s.ok()) return false;
  // Outside the M x N matrices, C is as it was.
  int64_t touched = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(hc.size()); ++i) {
    const int64_t j = i - oc, b = j / sc, m = (j % sc) / ldc, n = (j % sc) % ldc;
    const bool inside = j >= 0 && b < batch && j % sc < M * ldc && m < M && n < N;
    if (!inside && hc[i] != poison) ++touched;
  }
  double num = 0, den = 0;
  int64_t bad = 0;
  std::vector<double> fa(M * K), fbt(N * K);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t kk = 0; kk < K; ++kk) fa[m * K + kk] = from_bits(ha[oa + b * sa + m * lda + kk], dt);
    for (int64_t n = 0; n < N; ++n)  // B as N x K rows
      for (int64_t kk = 0; kk < K; ++kk)
        fbt[n * K + kk] = from_bits(hb[ob + b * sb + (lay == Layout::NN ? kk * ldb + n : n * ldb + kk)], dt);
    const auto finish = [&](int64_t m, int64_t n, double x) {
      if (!fused) return x;
      x = 0.5 * x - from_bits(hs[os + b * ss + m * lds + n], dt) + bias[n];
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    };
    double bn = 0, bd = 0;
    int64_t bb = 0;
    compare_rows(
        M, N, K, fa.data(), fbt.data(), finish,
        [&](int64_t m, int64_t n) { return double(from_bits(hc[oc + b * sc + m * ldc + n], dt)); }, &bn, &bd, &bb);
    num += bn, den += bd, bad += bb;
  }
  const double rel = std::sqrt(num / (den > 0 ? den : 1));
  const double bound = acc == Accum::f16 ? 1e-2 : (dt == DType::bf16 ? 8e-3 : 2e-3);
  const bool ok = bad == 0 && rel < bound && touched == 0;
  CHECK_MSG(ok, "rel err %.3g (bound %.1g), %lld unwritten/non-finite, %lld written outside C", rel, bound,
            (long long)bad, (long long)touched);
  return ok;
}

// One (dtype, accumulator, layout) a kernel supports.
struct Combo { DType dt; Accum acc; Layout lay; };

// copy_matrices (the staging copies of the Python call path) against the same copies made on the
// host: ragged row-major sources, column-major sources and destinations, a negative and a zero
// stride, batches, an empty copy, four copies in one launch and one large enough for the grid-
// stride loop; every element of the destination buffers compared, so a write outside a copy (the
// padding) fails too. Each launch's last source ends where its allocation does, so memcheck sees
// any read past a row's end.
static void check_copy_matrices(std::mt19937& rng) {
  struct C {
    int64_t rows, cols, batch, sr, sc, sb, dr, dc, db;
  };
  auto extent = [](int64_t rows, int64_t cols, int64_t batch, int64_t r, int64_t c, int64_t b, int64_t* lo) {
    int64_t l = 0, h = 0;
    for (int64_t v : {(rows - 1) * r, (cols - 1) * c, (batch - 1) * b}) (v < 0 ? l : h) += v;
    *lo = l;
    return h - l + 1;
  };
  const std::vector<std::vector<C>> launches = {
      {{37, 1001, 2, 1003, 1, 37 * 1003 + 3, 1008, 1, 37 * 1008},  // ragged rows -> padded (the common case)
       {129, 77, 1, 1, 131, 0, 80, 1, 129 * 80},                   // column-major a -> row-major
       {130, 45, 1, 48, 1, 0, 1, 133, 0},                          // padded result -> column-major out
       {21, 19, 3, -19, 1, 0, 24, 1, 21 * 24}},                    // negative row stride, broadcast batch
      {{2048, 1000, 1, 1000, 1, 0, 1000, 1, 0},                    // aligned, 16-byte chunks, grid-stride
       {5, 0, 1, 8, 1, 0, 8, 1, 0},                                // empty
       {1, 9, 1, 0, 0, 0, 16, 1, 0},                               // one element broadcast (zero strides)
       {3, 29, 1, 31, 1, 0, 32, 1, 0}}};                           // ragged rows, the last at the source's end
  SCOPED_CASE("copy_matrices");
  std::uniform_int_distribution<int> bits(0, 0x7BFF);
  const uint16_t poison = 0xFFFF;
  for (const auto& cs : launches) {
    std::vector<MatrixCopy> copies;
    std::vector<int64_t> src_at, dst_at;
    int64_t ns = 1, nd = 3;  // odd starts: 2-byte aligned only
    for (const C& c : cs) {
      int64_t lo = 0;
      const int64_t es = c.rows && c.cols ? extent(c.rows, c.cols, c.batch, c.sr, c.sc, c.sb, &lo) : 0;
      src_at.push_back(ns - lo), ns += es + (&c == &cs.back() ? 0 : 5);
      const int64_t ed = c.rows && c.cols ? extent(c.rows, c.cols, c.batch, c.dr, c.dc, c.db, &lo) : 0;
      dst_at.push_back(nd - lo), nd += ed + 7;
    }
    std::vector<uint16_t> hs(ns), hd(nd, poison), want(nd, poison);
    for (auto& x : hs) x = static_cast<uint16_t>(bits(rng));
    uint16_t *ds = nullptr, *dd = nullptr;
    Status st = cuda_status(cudaMalloc(reinterpret_cast<void**>(&ds), ns * 2), "cudaMalloc");
    if (st.ok()) st = cuda_status(cudaMalloc(reinterpret_cast<void**>(&dd), nd * 2), "cudaMalloc");
    if (st.ok()) st = cuda_status(cudaMemcpy(ds, hs.data(), ns * 2, cudaMemcpyHostToDevice), "upload");
    if (st.ok()) st = cuda_status(cudaMemcpy(dd, hd.data(), nd * 2, cudaMemcpyHostToDevice), "upload");
    for (size_t i = 0; i < cs.size(); ++i) {
      const C& c = cs[i];
      MatrixCopy m;
      m.src = ds + src_at[i], m.dst = dd + dst_at[i], m.rows = c.rows, m.cols = c.cols, m.batch = c.batch;
      m.src_row = c.sr, m.src_col = c.sc, m.src_batch = c.sb, m.dst_row = c.dr, m.dst_col = c.dc, m.dst_batch = c.db;
      copies.push_back(m);
      for (int64_t b = 0; b < c.batch; ++b)
        for (int64_t r = 0; r < c.rows; ++r)
          for (int64_t q = 0; q < c.cols; ++q)
            want[dst_at[i] + b * c.db + r * c.dr + q * c.dc] = hs[src_at[i] + b * c.sb + r * c.sr + q * c.sc];
    }
    if (st.ok()) st = copy_matrices(copies.data(), static_cast<int>(copies.size()), nullptr);
    if (st.ok()) st = cuda_status(cudaDeviceSynchronize(), "copy_matrices");
    if (st.ok()) st = cuda_status(cudaMemcpy(hd.data(), dd, nd * 2, cudaMemcpyDeviceToHost), "download");
    CHECK_MSG(st.ok(), "%s", st.message.c_str());
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < nd; ++i)
      if (hd[i] != want[i]) first = first < 0 ? i : first, ++wrong;
    CHECK_MSG(wrong == 0, "%lld of %lld elements wrong (first at %lld)", (long long)wrong, (long long)nd,
              (long long)first);
    cudaFree(ds), cudaFree(dd);
  }
  std::printf("  copy_matrices          checked\n");
}

int main() {
  if (device_count() == 0) {
    std::printf("SKIP: no CUDA device found; GPU tests need one\n");
    return 77;
  }
  std::mt19937 rng(std::random_device{}());  // fresh data every run
  check_copy_matrices(rng);
  // Two kinds of shape. Small ones, none a multiple of any tile side (1, 7,
  // 127, 129, 1000 and their neighbours): by default 7x13x9 and 129x127x200
  // on every (dtype, accumulator, layout) of every kernel and one of the
  // other three in turn (each kernel meets all three; exhaustively all five
  // everywhere). Large ones -- whole tiles (256x384x512), a long
  // K (64x1000x1000), more 128x128 tiles than an H200 has SMs (2100x2000x72:
  // persistent CTAs and both ping-pong consumers walk several tiles) -- run
  // on every combination with TCGEMM_TEST_EXHAUSTIVE=1; by default each on
  // one combination per kernel, rotating from kernel to kernel so that every
  // dtype, accumulator and layout meets each large shape, and 2100x2000x72
  // on both layouts of every kernel. The fused case (batch, epilogue, split
  // K: small) runs on every (dtype, layout); the linear one (a multi-tile
  // bias restage) on all of them exhaustively, else once per kernel.
  // TCGEMM_TEST_QUICK=1 (the sanitizer runs): two small odd shapes (K = 328:
  // five whole 64-deep slices and a ragged one, so the Ada spread-copy
  // iterations run as well as the general ones), and as the large one a
  // shape with more 128x128 tiles than an H200 has SMs.
  // TCGEMM_TEST_KERNELS=substring: only kernels whose name contains it.
  const char* ex = std::getenv("TCGEMM_TEST_EXHAUSTIVE");
  const bool exhaustive = ex && *ex && std::strcmp(ex, "0") != 0;
  const bool quick = std::getenv("TCGEMM_TEST_QUICK") != nullptr;
  const char* only = std::getenv("TCGEMM_TEST_KERNELS");
  std::vector<Case> small = {{7, 13, 9}, {129, 127, 200}}, turns = {{1, 1, 1}, {127, 129, 65}, {1000, 72, 33}};
  Case whole{256, 384, 512}, long_k{64, 1000, 1000}, many_tiles{2100, 2000, 72};
  if (quick) small = {{7, 13, 9}, {129, 131, 328}}, turns = {}, many_tiles = {1700, 1500, 72};
  std::printf("test_gpu_gemm: %s\n", exhaustive ? "every shape on every combination (TCGEMM_TEST_EXHAUSTIVE)"
                                                 : "the representative set (TCGEMM_TEST_EXHAUSTIVE=1: every "
                                                   "shape on every combination)");
  int ran = 0, index = 0;
  for (const auto& k : kernels()) {
    if (only && !std::strstr(k.name, only)) continue;
    if (!check_runnable(k).ok()) {
      const Status why = check_runnable(k);
      std::printf("  %-22s skipped: needs sm_%d%s (%s)\n", k.name, k.arch, k.arch >= 90 ? "a" : "", why.message.c_str());
      continue;
    }
    SCOPED_CASE("%s", k.name);
    std::vector<Combo> combos;  // layout innermost: combos 2i and 2i + 1 are NN and TN of one dtype and accumulator
    for (DType dt : {DType::f16, DType::bf16})
      for (Accum acc : {Accum::f32, Accum::f16})
        for (Layout lay : {Layout::NN, Layout::TN}) {
          GemmArgs probe; probe.dtype = dt, probe.layout = lay, probe.accum = acc;
          if (check_supports(k, probe).ok()) combos.push_back({dt, acc, lay});
        }
    const int n = static_cast<int>(combos.size());
    if (n == 0) continue;
    // The representative set's turns: kernel number `index` of those run
    // takes 2100x2000x72 on the NN and TN combinations of dtype/accumulator
    // pair index, 256x384x512 on combination index, 64x1000x1000 on the next
    // one, the linear fused case on the one after (or the next with f32
    // accumulation): consecutive kernels walk every combination.
    const int pair = (2 * index) % n;
    auto on = [&](int i, int j) { return exhaustive || i == j % n; };
    int linear = (index + 2) % n;
    for (int step = 0; step < n && combos[linear].acc != Accum::f32; ++step) linear = (linear + 1) % n;
    for (int i = 0; i < n; ++i) {
      const Combo& c = combos[i];
      for (const Case& sh : small) run_case(k, sh, c.dt, c.lay, c.acc, rng), ++ran;
      for (size_t t = 0; t < turns.size(); ++t)
        if (exhaustive || t == (i + index) % turns.size()) run_case(k, turns[t], c.dt, c.lay, c.acc, rng), ++ran;
      if (on(i, pair) || on(i, pair + 1)) run_case(k, many_tiles, c.dt, c.lay, c.acc, rng), ++ran;
      if (!quick && on(i, index)) run_case(k, whole, c.dt, c.lay, c.acc, rng), ++ran;
      if (!quick && on(i, index + 1)) run_case(k, long_k, c.dt, c.lay, c.acc, rng), ++ran;
      if (c.acc == Accum::f32 && (k.features & (kEpilogue | kBatched | kSplitK))) {
        run_fused_case(k, c.dt, c.lay, rng, false), ++ran;
        if ((k.features & kEpilogue) && (exhaustive || i == linear)) run_fused_case(k, c.dt, c.lay, rng, true), ++ran;
      }
    }
    // Rows anywhere (kAnyRows): the small shapes and a K of several slices
    // with a ragged last one, on every combination; decode shapes (1, 17 and
    // 70 rows against a wider weight: sm89.mma_skinny.s4's 8- and 32-row
    // blocks, three of them for 70 rows, K over several of its stages); the
    // fused form on f32 ones.
    if (k.features & kAnyRows)
      for (const Combo& c : combos) {
        for (const Case& sh : {Case{7, 13, 9}, Case{129, 127, 200}, Case{300, 77, 1001}, Case{1, 200, 1003},
                               Case{17, 1031, 2051}, Case{70, 263, 1601}})
          run_any_rows_case(k, sh, c.dt, c.lay, c.acc, false, rng), ++ran;
        if (c.acc == Accum::f32) run_any_rows_case(k, {129, 131, 328}, c.dt, c.lay, c.acc, true, rng), ++ran;
      }
    // "auto" with B off the grid, where a family names this kernel for it (the Ada family: the
    // decode kernel on a Hopper, x @ w.T with at most 32 rows).
    if (k.features & kAnyRows) {
      GemmArgs probe;
      probe.M = 17, probe.N = 1031, probe.K = 2051, probe.layout = Layout::TN, probe.b_ragged = true;
      DeviceInfo dev;
      if (current_device(&dev).ok()) {
        const std::vector<const char*> order = auto_preference(dev.cc, probe, dev.sm_count);
        if (!order.empty() && std::find_if(order.begin(), order.end(), [&](const char* n) {
              return std::strcmp(n, k.name) == 0;
            }) != order.end())
          run_any_rows_case(k, {17, 1031, 2051}, DType::bf16, Layout::TN, Accum::f32, true, rng, true), ++ran;
      }
    }
    std::printf("  %-22s checked\n", k.name);
    ++index;
  }
  std::printf("test_gpu_gemm: %d cases (one gemm() call each)\n", ran);
  CHECK_MSG(ran > 0, "no kernel is runnable on this device");
  return finish("test_gpu_gemm");
}
