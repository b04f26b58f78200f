// Every runnable registry entry against a float64 CPU reference: fresh random
// data, poisoned outputs, odd shapes, NN and TN, both dtypes and accumulators.
// Skips (exit 77) with a message when there is no CUDA device.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
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

static bool run_case(const KernelInfo& k, const Case& c, DType dt, Layout lay, Accum acc, std::mt19937& rng) {
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
  CHECK_MSG(s.ok(), "%s: %s", k.name, s.message.c_str());
  if (!s.ok()) return false;
  double num = 0, den = 0;
  int64_t bad = 0;
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double ref = 0;
      for (int64_t kk = 0; kk < c.K; ++kk)
        ref += fa[m * c.K + kk] * (lay == Layout::NN ? fb[kk * c.N + n] : fb[n * c.K + kk]);
      const double got = from_bits(hc[m * c.N + n], dt);
      if (!std::isfinite(got)) ++bad;
      num += (got - ref) * (got - ref), den += ref * ref;
    }
  const double rel = std::sqrt(num / (den > 0 ? den : 1));
  // fp32 accumulation: output rounding dominates (2^-11 fp16, 2^-8 bf16).
  // fp16 accumulation: error grows ~sqrt(K) ulps; bound stated for K <= 1000.
  const double bound = acc == Accum::f16 ? 1e-2 : (dt == DType::bf16 ? 8e-3 : 2e-3);
  const bool ok = bad == 0 && rel < bound;
  CHECK_MSG(ok, "%s %s %s acc=%s M=%lld N=%lld K=%lld: rel err %.3g (bound %.1g), %lld unwritten/non-finite",
            k.name, to_string(dt), to_string(lay), to_string(acc), (long long)c.M, (long long)c.N, (long long)c.K,
            rel, bound, (long long)bad);
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
  if (k.features & kSplitK) g.split_k = linear ? 1 : 3;  // linear: the unsplit kernel's own epilogue
  if (s.ok()) s = gemm(g, k.name);
  if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
  if (s.ok()) s = C.download(hc.data(), N * 2);
  CHECK_MSG(s.ok(), "%s fused case: %s", k.name, s.message.c_str());
  if (!s.ok()) return false;
  double num = 0, den = 0;
  int64_t bad = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double x = 0;
        for (int64_t kk = 0; kk < K; ++kk)
          x += double(from_bits(ha[(b * M + m) * K + kk], dt)) *
               from_bits(lay == Layout::NN ? hb[(b * K + kk) * N + n] : hb[(b * N + n) * K + kk], dt);
        if (fused) {
          x = 0.5 * x - (linear ? 0.0 : from_bits(hs[(b * M + m) * N + n], dt)) + bias[n];
          x = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
        }
        const double got = from_bits(hc[(b * M + m) * N + n], dt);
        if (!std::isfinite(got)) ++bad;
        num += (got - x) * (got - x), den += x * x;
      }
  const double rel = std::sqrt(num / (den > 0 ? den : 1)), bound = dt == DType::bf16 ? 8e-3 : 2e-3;
  const bool ok = bad == 0 && rel < bound;
  CHECK_MSG(ok, "%s fused case%s %s %s batch=%lld split_k=%d: rel err %.3g (bound %.1g), %lld unwritten", k.name,
            linear ? " (linear)" : "", to_string(dt), to_string(lay), (long long)batch, g.split_k, rel, bound,
            (long long)bad);
  return ok;
}

int main() {
  if (device_count() == 0) {
    std::printf("SKIP: no CUDA device found; GPU tests need one\n");
    return 77;
  }
  std::mt19937 rng(std::random_device{}());  // fresh data every run
  // TCGEMM_TEST_QUICK=1 (the sanitizer runs): two small odd shapes (K = 328:
  // five whole 64-deep slices and a ragged one, so the Ada spread-copy
  // iterations run as well as the general ones), and one with more 128x128
  // tiles than an H200 has SMs (a persistent CTA, and each ping-pong
  // consumer, walks more than one tile).
  // TCGEMM_TEST_KERNELS=substring: only kernels whose name contains it.
  const bool quick = std::getenv("TCGEMM_TEST_QUICK") != nullptr;
  const char* only = std::getenv("TCGEMM_TEST_KERNELS");
  std::vector<Case> cases = {{1, 1, 1}, {7, 13, 9}, {127, 129, 65}, {129, 127, 200}, {256, 384, 512}, {1000, 72, 33}, {64, 1000, 1000},
                             {2100, 2000, 72}};
  if (quick) cases = {{7, 13, 9}, {129, 131, 328}, {1700, 1500, 72}};
  int ran = 0;
  for (const auto& k : kernels()) {
    if (only && !std::strstr(k.name, only)) continue;
    if (!check_runnable(k).ok()) {
      const Status why = check_runnable(k);
      std::printf("  %-22s skipped: needs sm_%d%s (%s)\n", k.name, k.arch, k.arch >= 90 ? "a" : "", why.message.c_str());
      continue;
    }
    for (DType dt : {DType::f16, DType::bf16})
      for (Accum acc : {Accum::f32, Accum::f16})
        for (Layout lay : {Layout::NN, Layout::TN}) {
          GemmArgs probe; probe.dtype = dt, probe.layout = lay, probe.accum = acc;
          if (!check_supports(k, probe).ok()) continue;
          for (const Case& c : cases) run_case(k, c, dt, lay, acc, rng), ++ran;
          if (acc == Accum::f32 && (k.features & (kEpilogue | kBatched | kSplitK))) {
            run_fused_case(k, dt, lay, rng, false);
            if (k.features & kEpilogue) run_fused_case(k, dt, lay, rng, true);
          }
        }
    std::printf("  %-22s checked\n", k.name);
  }
  CHECK_MSG(ran > 0, "no kernel is runnable on this device");
  return finish("test_gpu_gemm");
}
