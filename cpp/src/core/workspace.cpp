#include "core/workspace.h"

#include <cstdint>
#include <mutex>
#include <string>

#include "core/launch_check.h"

namespace tcgemm {

namespace {
std::mutex mu;
cudaMemPool_t pools[64] = {};
}  // namespace

static Status pool_for_current_device(cudaMemPool_t* out) {
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return Status::Error(StatusCode::not_supported, "device index beyond 63");
  std::lock_guard<std::mutex> lock(mu);
  if (!pools[dev]) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool = nullptr;
    TCGEMM_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
    uint64_t keep = UINT64_MAX;
    TCGEMM_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    pools[dev] = pool;
  }
  *out = pools[dev];
  return Status::Ok();
}

Status workspace_alloc(size_t bytes, cudaStream_t stream, void** out) {
  cudaMemPool_t pool = nullptr;
  TCGEMM_TRY(pool_for_current_device(&pool));
  const cudaError_t e = cudaMallocFromPoolAsync(out, bytes, pool, stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return Status::Error(StatusCode::out_of_memory,
                         "workspace of " + std::to_string(bytes) + " bytes: out of device memory");
  }
  return cuda_status(e, "cudaMallocFromPoolAsync(workspace)");
}

Status workspace_free(void* ptr, cudaStream_t stream) {
  return cuda_status(cudaFreeAsync(ptr, stream), "cudaFreeAsync(workspace)");
}

Status LaunchWorkspace::acquire(void* given, size_t given_bytes, size_t bytes, cudaStream_t stream) {
  stream_ = stream;
  if (given) {
    if (given_bytes < bytes)
      return Status::Error(StatusCode::invalid_argument, "workspace of " + std::to_string(given_bytes) +
                                                             " bytes; this launch needs " + std::to_string(bytes));
    ptr_ = given;
    return Status::Ok();
  }
  TCGEMM_TRY(workspace_alloc(bytes, stream, &ptr_));
  pooled_ = true;
  return Status::Ok();
}

Status LaunchWorkspace::release(Status launched) {
  if (!pooled_) return launched;
  pooled_ = false;
  const Status f = workspace_free(ptr_, stream_);
  return launched.ok() ? f : launched;
}

Status workspace_trim() {
  std::lock_guard<std::mutex> lock(mu);
  for (cudaMemPool_t p : pools)
    if (p) TCGEMM_CUDA_TRY(cudaMemPoolTrimTo(p, 0));
  return Status::Ok();
}

Status workspace_stats(size_t* reserved, size_t* used) {
  cudaMemPool_t pool = nullptr;
  TCGEMM_TRY(pool_for_current_device(&pool));
  uint64_t r = 0, u = 0;
  TCGEMM_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r));
  TCGEMM_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u));
  *reserved = r, *used = u;
  return Status::Ok();
}

}  // namespace tcgemm
