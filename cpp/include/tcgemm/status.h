// Errors are values: every fallible call returns a Status naming the problem.
#pragma once
#include <string>
#include <utility>

namespace tcgemm {

enum class StatusCode : int {
  ok = 0,
  invalid_argument,  // a bad shape, pointer, dtype, layout or kernel name
  not_supported,     // the kernel exists but cannot take these arguments
  not_runnable,      // the kernel was not built for, or cannot run on, this device
  no_device,         // no CUDA device (or no driver) is present
  out_of_memory,     // a device allocation failed
  cuda_error,        // any other CUDA runtime or driver failure
};

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;

  static Status Ok() { return {}; }
  static Status Error(StatusCode c, std::string msg) { return {c, std::move(msg)}; }
  bool ok() const { return code == StatusCode::ok; }
  explicit operator bool() const { return ok(); }
};

const char* to_string(StatusCode c);

}  // namespace tcgemm
