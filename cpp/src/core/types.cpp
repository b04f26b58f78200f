#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

const char* to_string(DType d) { return d == DType::f16 ? "float16" : "bfloat16"; }
const char* to_string(Layout l) { return l == Layout::NN ? "NN" : "TN"; }
const char* to_string(Accum a) { return a == Accum::f32 ? "f32" : "f16"; }

const char* to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::silu: return "silu";
  }
  return "unknown";
}

const char* to_string(StatusCode c) {
  switch (c) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid_argument";
    case StatusCode::not_supported: return "not_supported";
    case StatusCode::not_runnable: return "not_runnable";
    case StatusCode::no_device: return "no_device";
    case StatusCode::out_of_memory: return "out_of_memory";
    case StatusCode::cuda_error: return "cuda_error";
  }
  return "unknown";
}

}  // namespace tcgemm
