// Scratch device memory for kernels that need it (split-K's fp32 partials):
// stream-ordered allocations from a memory pool the library owns, one per
// device. Stream order makes reuse safe without synchronising: memory freed
// on a stream is handed out again only to work ordered after the free (CUDA
// runtime API: "Stream Ordered Memory Allocator"). The pool keeps what it
// has reserved (release threshold: unlimited), so after the first call of a
// size an allocation costs no driver call; a pool of its own (not the
// device's default pool) leaves the caller's pool settings alone. What it
// holds is at most the largest workspace asked for, until the process ends.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "tcgemm/status.h"

namespace tcgemm {

Status workspace_alloc(size_t bytes, cudaStream_t stream, void** out);
Status workspace_free(void* ptr, cudaStream_t stream);
// One launch's workspace: the caller's when given (the memory of its
// allocator: torch's, cupy's), checked for size, else stream-ordered scratch
// from the pool above, which `release` frees on the same stream once the
// launch's kernels are queued. Neither synchronises; both can be captured.
class LaunchWorkspace {
 public:
  LaunchWorkspace() = default;
  LaunchWorkspace(const LaunchWorkspace&) = delete;  // one owner frees pool scratch, once
  LaunchWorkspace& operator=(const LaunchWorkspace&) = delete;
  // `given` / `given_bytes`: the caller's workspace (GemmArgs), or null.
  Status acquire(void* given, size_t given_bytes, size_t bytes, cudaStream_t stream);
  void* ptr() const { return ptr_; }
  // Frees pool scratch (nothing of the caller's); the launch's status wins
  // over the free's.
  [[nodiscard]] Status release(Status launched);

 private:
  void* ptr_ = nullptr;
  bool pooled_ = false;
  cudaStream_t stream_ = nullptr;
};

// Hands the memory the pools hold but nobody uses back to the driver
// (cudaMemPoolTrimTo), on every device a pool was made for.
Status workspace_trim();
// Bytes the current device's pool holds from the driver, and of those in use.
Status workspace_stats(size_t* reserved, size_t* used);

}  // namespace tcgemm
