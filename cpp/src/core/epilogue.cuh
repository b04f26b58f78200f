// The fused epilogue every family applies to its fp32 accumulators before
// rounding them to the output type (types.h, Epilogue):
//   D = act(alpha * acc + beta * S + bias)
// One function per output pair, because every kernel's accumulator fragment
// hands a thread two adjacent columns of one row (mma.sync / wgmma lanes hold
// column pairs 2t, 2t+1; tcgen05.ld 32x32b gives a thread a whole row). The
// kernels call it at the store, where the plain path packs the pair
// (Element::pack), so the epilogue adds no pass over D. S is read only when beta != 0 (BLAS: with beta = 0, S may
// hold NaN or be unset); reads are clipped to M x N, so edge tiles may call it
// for pairs they will not store.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "core/element.cuh"
#include "tcgemm/types.h"

namespace tcgemm {

// One select-based formula for all four, so a kernel's epilogue code stays
// small (it is unrolled over every accumulator pair; a switch per element
// made the Hopper epilogue ~15k instructions and instruction-fetch bound):
// GELU (tanh form) 0.5 x (1 + tanh(u)) = x (0.5 + 0.5 tanh(u)), u =
// sqrt(2/pi) (x + 0.044715 x^3); SiLU x / (1 + e^-x) = x (0.5 + 0.5 tanh(x/2)).
// tanh is MUFU.TANH (PTX tanh.approx.f32, max relative error 2^-10.99: below
// the 16-bit output's rounding).
__device__ __forceinline__ float tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The tanh argument of GELU: sqrt(2/pi) (x + 0.044715 x^3), as
// x (c0 + c1 x^2): three instructions (FMUL, FFMA, FMUL).
__device__ __forceinline__ float gelu_arg(float x) {
  constexpr float c0 = 0.7978845608028654f, c1 = 0.7978845608028654f * 0.044715f;
  return x * fmaf(c1, x * x, c0);
}

__device__ __forceinline__ float activate(Activation act, float x) {
  const float u = act == Activation::gelu ? gelu_arg(x) : 0.5f * x;
  const float smooth = x * fmaf(0.5f, tanh_approx(u), 0.5f);  // GELU or SiLU
  const float relu = x < 0.f ? 0.f : x;                        // keeps NaN (fmaxf(NaN, 0) would return 0)
  return act == Activation::none ? x : act == Activation::relu ? relu : smooth;  // selects, no branches
}

// The same with the activation known at compile time, for the two forms
// that get their own store loop (EpiBiasAct below): no selects, and GELU
// costs five FP32 instructions and one MUFU.TANH per element.
template <Activation A>
__device__ __forceinline__ float activate(float x) {
  static_assert(A == Activation::none || A == Activation::gelu, "see EpiBiasAct");
  if constexpr (A == Activation::none) return x;
  else return x * fmaf(0.5f, tanh_approx(gelu_arg(x)), 0.5f);
}

__device__ __forceinline__ float load_bias(const Epilogue& e, int col) {
  if (e.bias_type == BiasType::f32) return static_cast<const float*>(e.bias)[col];
  const uint16_t bits = static_cast<const uint16_t*>(e.bias)[col];
  return e.bias_type == BiasType::bf16 ? __uint_as_float(static_cast<uint32_t>(bits) << 16)
                                       : __half2float(__ushort_as_half(bits));
}

// The bias of column col as fp32; 0 without a bias or outside the N columns.
__device__ __forceinline__ float bias_or_zero(const Epilogue& e, int64_t col, int64_t N) {
  return e.bias && col < N ? load_bias(e, static_cast<int>(col)) : 0.f;
}

// What an output pair (row, col), (row, col + 1) reads besides its
// accumulators: bias and beta * S, zero where absent or outside M x N (S is
// read only when beta != 0). Split from the arithmetic so that a store loop
// can issue all of a row-block's loads before it uses any: one memory
// latency per block instead of one per element.
struct PairInputs {
  float add0 = 0.f, add1 = 0.f;  // bias + beta * S
};

template <DType DT>
__device__ __forceinline__ PairInputs epilogue_inputs(const Epilogue& e, int row, int col, int M, int N, int64_t b) {
  using T = typename Element<DT>::T;
  PairInputs in;
  const bool ok0 = row < M && col < N, ok1 = row < M && col + 1 < N;
  if (e.bias) {
    if (ok0) in.add0 = load_bias(e, col);
    if (ok1) in.add1 = load_bias(e, col + 1);
  }
  if (e.beta != 0.f) {
    const T* s = static_cast<const T*>(e.source) + b * e.batch_stride_source + static_cast<int64_t>(row) * e.ld_source;
    if (ok0) in.add0 = fmaf(e.beta, static_cast<float>(s[col]), in.add0);
    if (ok1) in.add1 = fmaf(e.beta, static_cast<float>(s[col + 1]), in.add1);
  }
  return in;
}

template <DType DT>
__device__ __forceinline__ uint32_t epilogue_finish(const Epilogue& e, float v0, float v1, const PairInputs& in) {
  return Element<DT>::pack(activate(e.act, fmaf(e.alpha, v0, in.add0)), activate(e.act, fmaf(e.alpha, v1, in.add1)));
}

// The packed output pair (row, col), (row, col + 1) in one step. kPlain (the
// caller tested e.plain() once, outside its unrolled loop: with_epilogue
// below) only rounds. Values outside M x N are computed but never stored.
template <DType DT, bool kPlain>
__device__ __forceinline__ uint32_t epilogue_apply(const Epilogue& e, float v0, float v1, int row, int col, int M,
                                                   int N, int64_t b) {
  if constexpr (kPlain) return Element<DT>::pack(v0, v1);
  else return epilogue_finish<DT>(e, v0, v1, epilogue_inputs<DT>(e, row, col, M, N, b));
}

// An fp32 output pair (FP8 GEMMs' float32 output): the same arithmetic, not rounded.
template <bool kPlain>
__device__ __forceinline__ float2 epilogue_apply_f32(const Epilogue& e, float v0, float v1, int row, int col, int M,
                                                     int N, int64_t b) {
  if constexpr (kPlain) return make_float2(v0, v1);
  const PairInputs in = epilogue_inputs<DType::f32>(e, row, col, M, N, b);
  return make_float2(activate(e.act, fmaf(e.alpha, v0, in.add0)), activate(e.act, fmaf(e.alpha, v1, in.add1)));
}

// The same with the plain test made here (code outside hot unrolled loops).
template <DType DT>
__device__ __forceinline__ uint32_t epilogue_pair(const Epilogue& e, float v0, float v1, int row, int col, int M,
                                                  int N, int64_t b) {
  return e.plain() ? epilogue_apply<DT, true>(e, v0, v1, row, col, M, N, b)
                   : epilogue_apply<DT, false>(e, v0, v1, row, col, M, N, b);
}

// Runs f(std::true_type) when the epilogue only rounds, else
// f(std::false_type): a kernel writes its store loop once, with
// epilogue_apply<DT, decltype(plain)::value>, and gets a compact plain copy
// (what it compiled to before epilogues existed) beside the general one.
template <class F>
__device__ __forceinline__ void with_epilogue(const Epilogue& e, F&& f) {
  if (e.plain()) f(std::true_type{});
  else f(std::false_type{});
}

// The forms a store loop unrolled over its accumulators can be compiled for,
// chosen once per launch (with_epilogue_kind):
//   EpiPlain          D = acc, rounded
//   EpiBiasAct<A>     D = A(alpha acc + bias[col]) with beta == 0 and A none
//                     or GELU (a transformer's linear layers): nothing but the
//                     bias is read, so the kernel can stage a tile's bias in
//                     shared memory once (fp32, 0 outside N) instead of
//                     loading, converting and bounds-checking it per element
//   EpiGeneral        everything else, per element (epilogue_inputs/finish)
// Only two activations get their own loop: each is ~1k unrolled instructions,
// and with a third the Hopper ping-pong and one-consumer split-K kernels
// spill (ptxas -warn-spills, CUDA 13.0).
struct EpiPlain {};
template <Activation A>
struct EpiBiasAct {
  static constexpr Activation act = A;
};
struct EpiGeneral {};
template <class K>
inline constexpr bool is_bias_act = false;
template <Activation A>
inline constexpr bool is_bias_act<EpiBiasAct<A>> = true;

__device__ __forceinline__ bool is_bias_act_form(const Epilogue& e) {
  return !e.plain() && e.beta == 0.f && (e.act == Activation::none || e.act == Activation::gelu);
}

template <class F>
__device__ __forceinline__ void with_epilogue_kind(const Epilogue& e, F&& f) {
  if (e.plain()) f(EpiPlain{});
  else if (is_bias_act_form(e) && e.act == Activation::none) f(EpiBiasAct<Activation::none>{});
  else if (is_bias_act_form(e)) f(EpiBiasAct<Activation::gelu>{});
  else f(EpiGeneral{});
}

}  // namespace tcgemm
