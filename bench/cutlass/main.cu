// tcgemm's Ada family beside CUTLASS's own mma.sync kernels, in one run on
// the GPU at hand (docs/benchmarking.md, "Ada against CUTLASS"):
//
//   tcgemm_cutlass_bench [--shapes 4096,8192,3584x5120x4096] [--rounds 5]
//                        [--tcgemm sm89.mma_spread.s3,...] [--json F] [--md F] [--list]
//
// For each shape, element type (fp16, bf16: TN and NN; e4m3: TN) every
// CUTLASS configuration of cutlass_kernels.cuh and every named tcgemm entry
// that takes the arguments run on the same buffers: a warm-up, then rounds in
// which each kernel times one chunk of calls (GPU time by events, the inputs
// rotated over sets that together pass 3x the L2), the median of the rounds
// per kernel. A row's ratio is CUTLASS's best over tcgemm's best of the same
// rounds (above 1: tcgemm faster). Each output is checked against the first
// CUTLASS kernel's on the first set (relative Frobenius difference: both round
// to the same 16-bit output, so they agree to its rounding) after a NaN poison.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cutlass/version.h"
#include "cutlass_kernels.cuh"
#include "tcgemm/tcgemm.h"

namespace cutlass_bench {
// Filled by the configurations' static registrars (cutlass_kernels.cuh), in
// link order; main sorts it by name.
std::vector<CutlassKernel>& registry() {
  static std::vector<CutlassKernel> kernels;
  return kernels;
}
}  // namespace cutlass_bench

using cutlass_bench::Elem;
using cutlass_bench::Problem;

namespace {

#define CUDA_OK(x)                                                                                 \
  do {                                                                                             \
    const cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

int elem_bytes(Elem e) { return e == Elem::e4m3 ? 1 : 2; }
const char* elem_name(Elem e) { return e == Elem::f16 ? "f16" : e == Elem::bf16 ? "bf16" : "e4m3"; }

// uniform(-1, 1) from a hash of the index, in the element's encoding.
__device__ float uniform(uint64_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
  return static_cast<float>(x >> 40) / static_cast<float>(1ull << 23) - 1.f;
}

__global__ void fill(void* p, int64_t n, Elem e, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const float v = uniform(static_cast<uint64_t>(i), seed);
    if (e == Elem::f16) static_cast<cutlass::half_t*>(p)[i] = cutlass::half_t(v);
    else if (e == Elem::bf16) static_cast<cutlass::bfloat16_t*>(p)[i] = cutlass::bfloat16_t(v);
    else static_cast<cutlass::float_e4m3_t*>(p)[i] = cutlass::float_e4m3_t(v);
  }
}

// sum (x - y)^2 and sum y^2 over n 16-bit outputs (bf16 or fp16), in double.
__global__ void diff_norms(const void* x, const void* y, int64_t n, bool bf16, double* out) {
  double d = 0, r = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const float a = bf16 ? float(static_cast<const cutlass::bfloat16_t*>(x)[i]) : float(static_cast<const cutlass::half_t*>(x)[i]);
    const float b = bf16 ? float(static_cast<const cutlass::bfloat16_t*>(y)[i]) : float(static_cast<const cutlass::half_t*>(y)[i]);
    const double t = std::isfinite(a) ? double(a) - double(b) : INFINITY;
    d += t * t, r += double(b) * b;
  }
  atomicAdd(&out[0], d);
  atomicAdd(&out[1], r);
}

struct Shape { int M, N, K; };

std::vector<Shape> parse_shapes(const std::string& s) {
  std::vector<Shape> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(item.c_str(), "%dx%dx%d", &m, &n, &k) == 3) out.push_back({m, n, k});
    else if (std::sscanf(item.c_str(), "%d", &m) == 1) out.push_back({m, m, m});
    if (out.empty() || out.back().M < 1 || out.back().N < 1 || out.back().K < 1) {
      std::fprintf(stderr, "bad shape '%s' (M, or MxNxK)\n", item.c_str());
      std::exit(2);
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o + "\"";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One timed candidate: a launch per buffer set.
struct Candidate {
  std::string name, side;  // side: "cutlass" or "tcgemm"
  std::vector<std::function<cudaError_t(cudaStream_t)>> run;  // per set
  std::vector<double> ms;                                   // per round, per call
  double agree = NAN;                                       // vs the first CUTLASS kernel's output
};

struct Row {
  Shape s;
  Elem e;
  bool tn;
  std::vector<Candidate> c;
};

}  // namespace

int main(int argc, char** argv) {
  std::string shapes_arg = "4096,8192,3584x5120x4096,2048x2048x8192", json, md;
  std::string ours = "sm89.mma_spread.s3,sm89.mma_spread_8w.s3,sm89.mma_spread_8w_k32.s4,sm89.mma_unroll.s3,"
                     "sm89.mma_unroll_8w.s3,sm89.mma_ldsm_first_8w_k32.s4,sm89.mma_copies_last_8w.s3,"
                     "sm89.mma_ldsm_first.s3,sm89.mma_ldsm_first_8w.s3,sm89.mma_ldsm_unroll_8w_k32.s4,"
                     "sm89.fp8_mma.s3,sm89.fp8_mma_8w.s4";
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--shapes") shapes_arg = next();
    else if (a == "--rounds") rounds = std::max(1, std::atoi(next().c_str()));
    else if (a == "--tcgemm") ours = next();
    else if (a == "--json") json = next();
    else if (a == "--md") md = next();
    else if (a == "--list") {  // the CUTLASS candidates (no device needed)
      std::stable_sort(cutlass_bench::registry().begin(), cutlass_bench::registry().end(),
                       [](const auto& x, const auto& y) { return x.name < y.name; });
      for (const auto& k : cutlass_bench::registry())
        std::printf("%s %s %s\n", k.name.c_str(), elem_name(k.elem), k.tn ? "TN" : "NN");
      return 0;
    }
    else { std::fprintf(stderr, "unknown argument %s\n", a.c_str()); return 2; }
  }
  if (tcgemm::device_count() == 0) {
    std::fprintf(stderr, "tcgemm_cutlass_bench: no CUDA device\n");
    return 1;
  }
  tcgemm::DeviceInfo dev;
  if (!tcgemm::current_device(&dev).ok()) return 1;
  int driver = 0, runtime = 0;
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  // The commit measured: TCGEMM_COMMIT where the caller names it (a tree
  // copied without .git builds with no stamp), else the build's own stamp
  // (a binary bench/cutlass/pack.sh built elsewhere), else unknown.
  const char* env_commit = std::getenv("TCGEMM_COMMIT");
  const char* env_dirty = std::getenv("TCGEMM_COMMIT_DIRTY");
  const bool named = env_commit && *env_commit;
  const std::string build = tcgemm::source_commit();  // "" where the build had no stamp
  const std::string commit = named ? env_commit : !build.empty() ? build : "unknown";
  const int stamp_dirty = tcgemm::source_dirty();
  const std::string dirty = named ? (env_dirty ? env_dirty : "unknown")
                                  : stamp_dirty < 0 ? "unknown" : std::to_string(stamp_dirty);
  // A named commit other than the build's (a binary packed from another
  // tree) is recorded beside it, as tcgemm.bench.provenance's build_commit.
  const std::string build_note = named && !build.empty() && build != commit ? build : "";
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  double* norms;
  CUDA_OK(cudaMalloc(&norms, 2 * sizeof(double)));
  float* one;  // tensor-wise FP8 scales of 1: the plain product
  CUDA_OK(cudaMalloc(&one, sizeof(float)));
  const float h_one = 1.f;
  CUDA_OK(cudaMemcpy(one, &h_one, sizeof h_one, cudaMemcpyHostToDevice));

  std::stable_sort(cutlass_bench::registry().begin(), cutlass_bench::registry().end(),
                   [](const auto& x, const auto& y) { return x.name < y.name; });
  std::vector<Row> rows;
  for (const Shape& s : parse_shapes(shapes_arg)) {
    for (Elem e : {Elem::f16, Elem::bf16, Elem::e4m3}) {
      for (bool tn : {true, false}) {
        if (e == Elem::e4m3 && !tn) continue;  // FP8 mma.sync reads B K-major only
        Row row{s, e, tn, {}};
        const int eb = elem_bytes(e);
        // Row pitches: whole 16-byte rows.
        const int64_t lda = s.K, ldb = tn ? s.K : s.N, ldd = s.N;
        const size_t a_bytes = size_t(s.M) * lda * eb, b_bytes = size_t(tn ? s.N : s.K) * ldb * eb;
        const size_t d_bytes = size_t(s.M) * ldd * 2;
        const size_t per = a_bytes + b_bytes + d_bytes;
        const int sets = static_cast<int>(std::clamp<int64_t>((3 * dev.l2_bytes + per - 1) / int64_t(per), 1, 8));
        std::vector<void*> bufs;
        std::vector<Problem> probs(sets);
        for (int i = 0; i < sets; ++i) {
          void *A, *B, *D;
          CUDA_OK(cudaMalloc(&A, a_bytes));
          CUDA_OK(cudaMalloc(&B, b_bytes));
          CUDA_OK(cudaMalloc(&D, d_bytes));
          bufs.insert(bufs.end(), {A, B, D});
          fill<<<1024, 256, 0, stream>>>(A, int64_t(a_bytes / eb), e, 2 * i + 1);
          fill<<<1024, 256, 0, stream>>>(B, int64_t(b_bytes / eb), e, 2 * i + 2);
          CUDA_OK(cudaGetLastError());
          probs[i] = Problem{s.M, s.N, s.K, A, B, D, lda, ldb, ldd, tn};
        }
        void* ref;
        CUDA_OK(cudaMalloc(&ref, d_bytes));
        CUDA_OK(cudaStreamSynchronize(stream));

        for (const auto& k : cutlass_bench::registry()) {
          if (k.elem != e || k.tn != tn) continue;
          Candidate c{k.name, "cutlass", {}, {}};
          std::vector<std::shared_ptr<cutlass_bench::Runner>> runners;
          std::string why;
          for (const Problem& p : probs) {
            std::shared_ptr<cutlass_bench::Runner> r = k.make(p, &why);
            if (!r) break;
            runners.push_back(r);
          }
          if (runners.size() != probs.size()) {
            std::printf("  %s: cannot implement (%s)\n", k.name.c_str(), why.c_str());
            continue;
          }
          for (auto& r : runners) c.run.push_back([r](cudaStream_t st) { return r->run(st); });
          row.c.push_back(std::move(c));
        }
        for (const std::string& name : split(ours)) {
          const tcgemm::KernelInfo* k = tcgemm::find_kernel(name);
          if (!k) { std::fprintf(stderr, "unknown tcgemm kernel %s\n", name.c_str()); return 2; }
          Candidate c{name, "tcgemm", {}, {}};
          bool ok = true;
          for (const Problem& p : probs) {
            tcgemm::GemmArgs g;
            g.A = p.A, g.B = p.B, g.C = p.D, g.M = p.M, g.N = p.N, g.K = p.K;
            g.lda = p.lda, g.ldb = p.ldb, g.ldc = p.ldd, g.layout = tn ? tcgemm::Layout::TN : tcgemm::Layout::NN;
            g.dtype = e == Elem::f16 ? tcgemm::DType::f16 : e == Elem::bf16 ? tcgemm::DType::bf16 : tcgemm::DType::e4m3;
            if (e == Elem::e4m3) {
              g.dtype_c = tcgemm::DType::bf16;
              g.scales.mode = tcgemm::ScaleMode::tensor, g.scales.a = one, g.scales.b = one;
            }
            g.stream = stream;
            if (!tcgemm::check_runnable(*k).ok() || !tcgemm::check_supports(*k, g).ok()) { ok = false; break; }
            c.run.push_back([g, name](cudaStream_t) {
              const tcgemm::Status st = tcgemm::gemm(g, name);
              if (st.ok()) return cudaSuccess;
              std::fprintf(stderr, "%s: %s\n", name.c_str(), st.message.c_str());
              return cudaErrorLaunchFailure;
            });
          }
          if (ok) row.c.push_back(std::move(c));
        }
        // Correctness: each candidate once on set 0 over a NaN poison, against the first CUTLASS kernel.
        bool have_ref = false;
        for (Candidate& c : row.c) {
          CUDA_OK(cudaMemsetAsync(probs[0].D, 0xFF, d_bytes, stream));
          CUDA_OK(c.run[0](stream));
          if (!have_ref) {
            CUDA_OK(cudaMemcpyAsync(ref, probs[0].D, d_bytes, cudaMemcpyDeviceToDevice, stream));
            have_ref = true;
          }
          CUDA_OK(cudaMemsetAsync(norms, 0, 2 * sizeof(double), stream));
          diff_norms<<<512, 256, 0, stream>>>(probs[0].D, ref, int64_t(s.M) * ldd, e != Elem::f16, norms);
          CUDA_OK(cudaGetLastError());
          double h[2];
          CUDA_OK(cudaMemcpyAsync(h, norms, sizeof h, cudaMemcpyDeviceToHost, stream));
          CUDA_OK(cudaStreamSynchronize(stream));
          c.agree = std::sqrt(h[0] / (h[1] > 0 ? h[1] : 1));
        }
        // Warm-up, then the calls per chunk: about 20 ms of work, 3-50 calls.
        auto chunk = [&](Candidate& c, int calls) {
          CUDA_OK(cudaEventRecord(t0, stream));
          for (int i = 0; i < calls; ++i) CUDA_OK(c.run[i % sets](stream));
          CUDA_OK(cudaEventRecord(t1, stream));
          CUDA_OK(cudaEventSynchronize(t1));
          float ms = 0;
          CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
          return double(ms) / calls;
        };
        std::vector<int> calls(row.c.size());
        for (size_t i = 0; i < row.c.size(); ++i) {
          chunk(row.c[i], 2);
          calls[i] = static_cast<int>(std::clamp(20.0 / std::max(chunk(row.c[i], 3), 1e-3), 3.0, 50.0));
        }
        for (int r = 0; r < rounds; ++r)
          for (size_t i = 0; i < row.c.size(); ++i) row.c[i].ms.push_back(chunk(row.c[i], calls[i]));
        const double flops = 2.0 * s.M * s.N * s.K;
        for (const Candidate& c : row.c)
          std::printf("  %dx%dx%d %s %s %-28s %8.0f TFLOPS  agree %.2e\n", s.M, s.N, s.K, elem_name(e), tn ? "TN" : "NN",
                      c.name.c_str(), flops / (median(c.ms) * 1e-3) / 1e12, c.agree);
        std::fflush(stdout);
        rows.push_back(std::move(row));
        for (void* p : bufs) CUDA_OK(cudaFree(p));
        CUDA_OK(cudaFree(ref));
      }
    }
  }

  // Results: every candidate's median, and per row the best of each side.
  std::ostringstream js, mdo;
  char buf[512];
  js << "{\n \"environment\": {\"gpu\": " << json_str(dev.name) << ", \"sm_count\": " << dev.sm_count
     << ", \"driver\": " << driver << ", \"cuda_runtime\": " << runtime << ", \"nvcc\": \"" << __CUDACC_VER_MAJOR__
     << "." << __CUDACC_VER_MINOR__ << "\", \"cutlass\": \"" << CUTLASS_MAJOR << "." << CUTLASS_MINOR << "."
     << CUTLASS_PATCH << "\", \"commit\": " << json_str(commit)
     << ", \"dirty\": " << json_str(dirty) << ", \"build_commit\": " << json_str(build)
     << ", \"rounds\": " << rounds << "},\n \"rows\": [";
  mdo << "# tcgemm's Ada family beside CUTLASS's mma.sync kernels\n\n"
      << "- GPU: " << dev.name << " (" << dev.sm_count << " SMs), CUDA driver " << driver / 1000 << "."
      << driver % 1000 / 10 << ", CUDA runtime " << runtime / 1000 << "." << runtime % 1000 / 10 << ", nvcc "
      << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << ", CUTLASS " << CUTLASS_MAJOR << "." << CUTLASS_MINOR
      << "." << CUTLASS_PATCH << "\n- commit: " << commit << " (dirty: " << dirty << ")"
      << (build_note.empty() ? "" : "; build commit: " + build_note) << "\n"
      << "- GPU time by events over chunks of calls, inputs rotated past 3x the L2, " << rounds
      << " alternating rounds, medians; ratio = CUTLASS's best / tcgemm's best (above 1: tcgemm faster); agree: "
         "relative Frobenius difference from the first CUTLASS kernel's output\n\n"
      << "| shape | type | layout | CUTLASS best | TFLOPS | tcgemm best | TFLOPS | ratio |\n"
      << "|---|---|---|---|---:|---|---:|---:|\n";
  bool first = true;
  for (const Row& row : rows) {
    const double flops = 2.0 * row.s.M * row.s.N * row.s.K;
    const Candidate *bc = nullptr, *bt = nullptr;
    for (const Candidate& c : row.c) {
      const Candidate*& best = c.side == "cutlass" ? bc : bt;
      if (!best || median(c.ms) < median(best->ms)) best = &c;
      js << (first ? "\n" : ",\n") << "  {\"M\": " << row.s.M << ", \"N\": " << row.s.N << ", \"K\": " << row.s.K
         << ", \"dtype\": \"" << elem_name(row.e) << "\", \"layout\": \"" << (row.tn ? "TN" : "NN")
         << "\", \"side\": \"" << c.side << "\", \"kernel\": " << json_str(c.name) << ", \"median_ms\": "
         << median(c.ms) << ", \"tflops\": " << flops / (median(c.ms) * 1e-3) / 1e12 << ", \"agree\": " << c.agree
         << "}";
      first = false;
    }
    if (bc && bt) {
      std::snprintf(buf, sizeof buf, "| %dx%dx%d | %s | %s | %s | %.0f | %s | %.0f | %.3f |\n", row.s.M, row.s.N,
                    row.s.K, elem_name(row.e), row.tn ? "TN" : "NN", bc->name.c_str(),
                    flops / (median(bc->ms) * 1e-3) / 1e12, bt->name.c_str(), flops / (median(bt->ms) * 1e-3) / 1e12,
                    median(bc->ms) / median(bt->ms));
      mdo << buf;
    }
  }
  js << "\n ]\n}\n";
  mdo << "\n## Every kernel\n\n| shape | type | layout | side | kernel | TFLOPS | ms | agree |\n"
      << "|---|---|---|---|---|---:|---:|---:|\n";
  for (const Row& row : rows)
    for (const Candidate& c : row.c) {
      const double flops = 2.0 * row.s.M * row.s.N * row.s.K;
      std::snprintf(buf, sizeof buf, "| %dx%dx%d | %s | %s | %s | %s | %.0f | %.4f | %.2e |\n", row.s.M, row.s.N,
                    row.s.K, elem_name(row.e), row.tn ? "TN" : "NN", c.side.c_str(), c.name.c_str(),
                    flops / (median(c.ms) * 1e-3) / 1e12, median(c.ms), c.agree);
      mdo << buf;
    }
  auto write = [](const std::string& path, const std::string& text) {
    if (path.empty()) return;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) { std::fprintf(stderr, "cannot write %s\n", path.c_str()); std::exit(2); }
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  write(json, js.str());
  write(md, mdo.str());
  if (md.empty()) std::fputs(mdo.str().c_str(), stdout);
  // A kernel whose output differs from the reference by more than the
  // output's rounding fails the run (bf16 8e-3, fp16 2e-3, as the suites).
  int bad = 0;
  for (const Row& row : rows)
    for (const Candidate& c : row.c)
      if (!(c.agree < (row.e == Elem::f16 ? 2e-3 : 8e-3))) {
        std::fprintf(stderr, "%s on %dx%dx%d %s: differs from the reference by %.2e\n", c.name.c_str(), row.s.M,
                     row.s.N, row.s.K, elem_name(row.e), c.agree);
        ++bad;
      }
  CUDA_OK(cudaFree(norms));
  CUDA_OK(cudaFree(one));
  return bad ? 1 : 0;
}
