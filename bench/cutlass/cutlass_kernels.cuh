// CUTLASS's own mma.sync kernels (CUTLASS 2.x device::Gemm), each a
// registered candidate of the Ada comparison (main.cu): the SM80 multistage
// kernels for fp16 / bf16 and the SM89 ones for FP8, in the configurations
// CUTLASS's profiler builds for those architectures. One translation unit
// per configuration (sm80_*.cu, sm89_*.cu), so that they compile in parallel.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cutlass/cutlass.h"
#include "cutlass/gemm/device/gemm.h"
#include "cutlass/numeric_types.h"

namespace cutlass_bench {

enum class Elem { f16, bf16, e4m3 };

// One buffer set of a problem: D = A B, A row-major M x K, B stored N x K
// (TN) or K x N (NN), D row-major M x N of the 16-bit type (bf16 for FP8).
struct Problem {
  int M = 0, N = 0, K = 0;
  const void* A = nullptr;
  const void* B = nullptr;
  void* D = nullptr;
  int64_t lda = 0, ldb = 0, ldd = 0;
  bool tn = true;
};

// A kernel prepared for one buffer set: run() is the launch alone.
struct Runner {
  virtual ~Runner() = default;
  virtual cudaError_t run(cudaStream_t stream) = 0;
};

struct CutlassKernel {
  std::string name;  // cutlass.<arch>.<tile>.s<stages>[.fast]
  Elem elem;
  bool tn;
  // nullptr (and *why set) when CUTLASS cannot implement the problem.
  std::unique_ptr<Runner> (*make)(const Problem&, std::string* why);
};

std::vector<CutlassKernel>& registry();

struct Register {
  explicit Register(CutlassKernel k) { registry().push_back(std::move(k)); }
};

template <class Gemm>
struct GemmRunner final : Runner {
  Gemm op;
  cudaError_t run(cudaStream_t stream) override {
    const cutlass::Status s = op.run(stream);
    if (s != cutlass::Status::kSuccess) return cudaErrorLaunchFailure;
    return cudaGetLastError();
  }
};

template <class Gemm>
std::unique_ptr<Runner> make_runner(const Problem& p, std::string* why) {
  using EA = typename Gemm::ElementA;
  using EB = typename Gemm::ElementB;
  using EC = typename Gemm::ElementC;
  typename Gemm::Arguments args({p.M, p.N, p.K}, {static_cast<const EA*>(p.A), p.lda},
                                {static_cast<const EB*>(p.B), p.ldb}, {static_cast<EC*>(p.D), p.ldd},
                                {static_cast<EC*>(p.D), p.ldd}, {1.f, 0.f});
  auto r = std::make_unique<GemmRunner<Gemm>>();
  cutlass::Status s = r->op.can_implement(args);
  if (s == cutlass::Status::kSuccess) s = r->op.initialize(args, nullptr);
  if (s != cutlass::Status::kSuccess) {
    *why = cutlassGetStatusString(s);
    return nullptr;
  }
  return r;
}

template <class T> struct CutlassType;
template <> struct CutlassType<cutlass::half_t> { static constexpr Elem elem = Elem::f16; static constexpr const char* name = "f16"; };
template <> struct CutlassType<cutlass::bfloat16_t> { static constexpr Elem elem = Elem::bf16; static constexpr const char* name = "bf16"; };

// SM80 multistage, fp32 accumulation, the output in the operands' type; B
// column-major for TN (stored N x K), row-major for NN. 128-bit accesses.
template <class T, class LayoutB, int TM, int TN, int TK, int WM, int WN, int WK, int Stages>
using Sm80Gemm = cutlass::gemm::device::Gemm<
    T, cutlass::layout::RowMajor, T, LayoutB, T, cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp,
    cutlass::arch::Sm80, cutlass::gemm::GemmShape<TM, TN, TK>, cutlass::gemm::GemmShape<WM, WN, WK>,
    cutlass::gemm::GemmShape<16, 8, 16>, cutlass::epilogue::thread::LinearCombination<T, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, Stages, 8, 8>;

// SM89 multistage FP8 (e4m3 x e4m3, m16n8k32), bf16 output, TN only (FP8
// mma.sync is .row.col). Op: OpMultiplyAdd, CUTLASS's default, stages the
// sums (each mainloop iteration's MMAs into fresh accumulators, then added:
// arch/mma.h, UseStagedAccumulation), OpMultiplyAddFastAccum does not.
template <int TM, int TN, int TK, int WM, int WN, int WK, int Stages, class Op>
using Sm89Fp8Gemm = cutlass::gemm::device::Gemm<
    cutlass::float_e4m3_t, cutlass::layout::RowMajor, cutlass::float_e4m3_t, cutlass::layout::ColumnMajor,
    cutlass::bfloat16_t, cutlass::layout::RowMajor, float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm89,
    cutlass::gemm::GemmShape<TM, TN, TK>, cutlass::gemm::GemmShape<WM, WN, WK>, cutlass::gemm::GemmShape<16, 8, 32>,
    cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, Stages, 16, 16, false, Op>;

}  // namespace cutlass_bench

#define CUTLASS_BENCH_CAT_(a, b) a##b
#define CUTLASS_BENCH_CAT(a, b) CUTLASS_BENCH_CAT_(a, b)

// One SM80 configuration: fp16 and bf16, TN and NN.
#define CUTLASS_BENCH_SM80(TM, TN, TK, WM, WN, WK, S)                                                             \
  namespace {                                                                                                     \
  template <class T, class LB>                                                                                    \
  using G = cutlass_bench::Sm80Gemm<T, LB, TM, TN, TK, WM, WN, WK, S>;                                            \
  const std::string kName = "cutlass.sm80." #TM "x" #TN "x" #TK ".s" #S;                                          \
  using RM = cutlass::layout::RowMajor;                                                                           \
  using CM = cutlass::layout::ColumnMajor;                                                                        \
  cutlass_bench::Register r0({kName, cutlass_bench::Elem::f16, true, &cutlass_bench::make_runner<G<cutlass::half_t, CM>>});      \
  cutlass_bench::Register r1({kName, cutlass_bench::Elem::f16, false, &cutlass_bench::make_runner<G<cutlass::half_t, RM>>});     \
  cutlass_bench::Register r2({kName, cutlass_bench::Elem::bf16, true, &cutlass_bench::make_runner<G<cutlass::bfloat16_t, CM>>}); \
  cutlass_bench::Register r3({kName, cutlass_bench::Elem::bf16, false, &cutlass_bench::make_runner<G<cutlass::bfloat16_t, RM>>});\
  }

// One SM89 FP8 configuration, staged and fast accumulation.
#define CUTLASS_BENCH_SM89(TM, TN, TK, WM, WN, WK, S)                                                             \
  namespace {                                                                                                     \
  const std::string kName = "cutlass.sm89." #TM "x" #TN "x" #TK ".s" #S;                                          \
  cutlass_bench::Register r0({kName, cutlass_bench::Elem::e4m3, true,                                             \
      &cutlass_bench::make_runner<cutlass_bench::Sm89Fp8Gemm<TM, TN, TK, WM, WN, WK, S, cutlass::arch::OpMultiplyAdd>>}); \
  cutlass_bench::Register r1({kName + ".fast", cutlass_bench::Elem::e4m3, true,                                   \
      &cutlass_bench::make_runner<cutlass_bench::Sm89Fp8Gemm<TM, TN, TK, WM, WN, WK, S, cutlass::arch::OpMultiplyAddFastAccum>>}); \
  }
