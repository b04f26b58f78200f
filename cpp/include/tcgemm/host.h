// Host memory and the host <-> device path: page-locked (pinned) arrays, the
// bounded staging ring that pageable copies go through, and the panel
// pipeline that runs a GEMM on host matrices with the copies in both
// directions overlapping the kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

// Page-locked host memory (cudaHostAlloc): the copy engines read and write it
// directly at full PCIe speed, with no staging copy. Pinning is slow (it maps
// and locks every page), so allocate once and reuse.
Status pinned_alloc(size_t bytes, void** out);
void pinned_free(void* p);
// True when [p, p + bytes) is page-locked memory the CUDA driver knows.
bool is_pinned(const void* p, size_t bytes);

// The staging ring: page-locked buffers that copies of pageable host memory
// go through (the CPU copies rows into a slot, a copy engine moves the slot,
// the next slot fills meanwhile). Slots are made on first use up to `limit`
// bytes and reused by every later call; release_host_staging frees them.
void set_staging_limit(size_t bytes);  // default 256 MiB; at least 2 slots of 8 MiB
size_t staging_limit();
size_t staging_held();  // bytes of pinned staging memory held now
Status release_host_staging();

// rows x width_bytes between host and device memory, rows `*_pitch` bytes
// apart. Pageable host memory goes through the staging ring, pinned memory
// is copied directly. Ordered after earlier work on `stream`; returns when
// the copy is done.
Status copy_to_device_2d(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width_bytes,
                         int64_t rows, cudaStream_t stream);
Status copy_to_host_2d(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width_bytes,
                       int64_t rows, cudaStream_t stream);

// A matrix of 2-byte elements in host memory: rows of `cols` elements, `pitch`
// bytes apart.
struct HostMatrix {
  const void* data = nullptr;
  int64_t rows = 0, cols = 0, pitch = 0;
};

// D = epilogue(A B) with A, B, D (and the epilogue's source) in host memory.
// `shape` holds M, N, K, dtype, layout, accumulator, grid_swizzle, split_k
// and the epilogue's alpha, beta, bias type and activation; its pointers are
// ignored. A is split into row panels: the upload of panel i+1, the GEMM of
// panel i and the download of panel i-1 overlap (three streams, events);
// device memory comes from tcgemm's stream-ordered pool. Ordered after
// earlier work on `stream`; returns when D is written.
struct HostGemm {
  HostMatrix a;         // M x K
  HostMatrix b;         // K x N (NN) or its N x K transpose (TN)
  void* d = nullptr;    // M x N output
  int64_t d_pitch = 0;  // bytes
  HostMatrix source;    // epilogue's c when shape.epilogue.beta != 0: M x N
  const void* bias = nullptr;  // N values of shape.epilogue.bias_type, or null
  GemmArgs shape;
  std::string kernel = "auto";
  cudaStream_t stream = nullptr;
  int64_t panel_rows = 0;  // 0: chosen from the staging slot size
};
Status host_gemm(const HostGemm& h, std::string* kernel_used = nullptr);

}  // namespace tcgemm
