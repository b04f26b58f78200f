// The CUDA device as the library sees it, and RAII device buffers.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

struct DeviceInfo {
  int index = -1;
  std::string name;
  int cc = 0;  // compute capability, major*10 + minor
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t smem_optin_bytes = 0;
};

// Number of usable devices (0 with no driver or no GPU; never throws).
int device_count();
// The current device, or no_device.
Status current_device(DeviceInfo* out);

// Row pitch (in elements) the library uses for a matrix of `cols` columns:
// rows padded to 16 bytes, the alignment cp.async 16-byte copies and TMA
// global strides need (PTX ISA: cp.async; CUDA driver API: cuTensorMapEncodeTiled).
inline int64_t pitch_for(int64_t cols) { return round_up(cols < 1 ? 1 : cols, 8); }

// A rows x cols matrix of 2-byte elements in device memory, row-major with a
// library-chosen pitch. The memory comes from tcgemm's stream-ordered pool
// (core/workspace.h): allocate and free are ordered on the buffer's stream,
// so neither synchronises the device. Move-only; frees on destruction.
class DeviceBuffer {
 public:
  // What allocate() writes before returning: nothing (every element will be
  // written, e.g. a kernel's output), the padding columns only (so a later
  // reader of whole 16-byte rows never sees uninitialised bytes), or all.
  enum class Fill { none, padding, all };

  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static Status allocate(int64_t rows, int64_t cols, DType dtype, DeviceBuffer* out, cudaStream_t stream = nullptr,
                         Fill fill = Fill::all);
  // A view of memory someone else owns (a torch/cupy tensor through DLPack):
  // free() calls `release` instead of returning memory to the pool. `pitch` must be >= cols.
  static DeviceBuffer wrap(void* ptr, int64_t rows, int64_t cols, int64_t pitch, DType dtype, int device,
                           std::function<void()> release);

  // The stream the memory is freed on (the one it was allocated on, unless
  // changed): work on other streams that uses the buffer must be ordered
  // before its free (events), as with any stream-ordered allocator.
  cudaStream_t stream() const { return stream_; }
  void set_stream(cudaStream_t s) { stream_ = s; }

  // Host <-> device copies of a rows x cols matrix whose rows are
  // `host_row_bytes` apart. The stream is synchronised before returning.
  Status upload(const void* host, int64_t host_row_bytes, cudaStream_t stream = nullptr);
  Status download(void* host, int64_t host_row_bytes, cudaStream_t stream = nullptr) const;
  // Sets every byte of the allocation (padding included); tests poison with it.
  Status fill_bytes(int value, cudaStream_t stream = nullptr);
  // Device-to-device copy of a rows x cols matrix whose rows are `src_row_bytes` apart.
  Status copy_from_device(const void* src, int64_t src_row_bytes, cudaStream_t stream = nullptr);
  void free();

  void* data() const { return ptr_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t pitch() const { return pitch_; }  // elements
  int64_t bytes() const { return rows_ * pitch_ * 2; }
  DType dtype() const { return dtype_; }
  int device() const { return device_; }
  bool valid() const { return ptr_ != nullptr; }
  bool owns() const { return !release_; }

 private:
  void* ptr_ = nullptr;
  int64_t rows_ = 0, cols_ = 0, pitch_ = 0;
  DType dtype_ = DType::f16;
  int device_ = -1;
  std::function<void()> release_;  // set for wrapped (non-owning) buffers
  cudaStream_t stream_ = nullptr;
};

// Select the current device (bounds-checked).
Status set_device(int index);

// Human-readable build facts: version, CUDA version, SASS targets.
const char* version();
const char* cuda_version();
const char* built_archs();  // "89,90a,100a"
// The commit the build is made from ("" where unknown) and whether its tree
// had changes outside bench/results/ (1), none (0), or unknown (-1).
const char* source_commit();
int source_dirty();

}  // namespace tcgemm
