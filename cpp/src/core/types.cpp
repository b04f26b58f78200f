#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

// NumPy's / torch's names (ml_dtypes' for the FP8 formats).
const char* to_string(DType d) {
  switch (d) {
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::e4m3: return "float8_e4m3fn";
    case DType::e5m2: return "float8_e5m2";
    case DType::f32: return "float32";
  }
  return "unknown";
}

const char* to_string(ScaleMode m) {
  switch (m) {
    case ScaleMode::none: return "none";
    case ScaleMode::tensor: return "tensor";
    case ScaleMode::rowwise: return "rowwise";
    case ScaleMode::block: return "block";
  }
  return "unknown";
}
const char* to_string(Layout l) { return l == Layout::NN ? "NN" : "TN"; }
const char* to_string(Accum a) { return a == Accum::f32 ? "f32" : a == Accum::f16 ? "f16" : "fast"; }

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
