// Turning CUDA runtime errors into Status values (every call is checked).
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "tcgemm/status.h"

namespace tcgemm {

inline Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  // A failed call also records its error as the thread's "last error"; clear
  // it, or the next launch's check would report this stale error as its own.
  cudaGetLastError();
  const StatusCode code = e == cudaErrorMemoryAllocation ? StatusCode::out_of_memory
                          : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                              ? StatusCode::no_device
                              : StatusCode::cuda_error;
  return Status::Error(code, std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// After a <<<>>> launch: a bad configuration shows up here, not at the launch.
inline Status check_launch(const char* kernel) {
  return cuda_status(cudaGetLastError(), (std::string("launch of ") + kernel).c_str());
}

// Raises `kernel`'s dynamic shared-memory limit to `bytes` (needed above
// 48 KB) once per kernel and device: the attribute belongs to the function in
// the device's context, so setting it on every launch only costs host time.
Status opt_in_smem(const void* kernel, int bytes);

template <class Kernel>
Status opt_in_smem(Kernel* kernel, int bytes) {
  return opt_in_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace tcgemm

#define TCGEMM_CUDA_TRY(call)                                              \
  do {                                                                     \
    ::tcgemm::Status tcgemm_s_ = ::tcgemm::cuda_status((call), #call);     \
    if (!tcgemm_s_.ok()) return tcgemm_s_;                                 \
  } while (0)

#define TCGEMM_TRY(expr)                          \
  do {                                            \
    ::tcgemm::Status tcgemm_s_ = (expr);          \
    if (!tcgemm_s_.ok()) return tcgemm_s_;        \
  } while (0)

namespace tcgemm {

// SMs of the current device (persistent grids' size, tile-shape rules).
inline Status sm_count(int* out) {
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  TCGEMM_CUDA_TRY(cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, dev));
  return Status::Ok();
}

}  // namespace tcgemm
