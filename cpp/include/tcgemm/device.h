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
// library-chosen pitch. The allocation is zero-filled (padding included) so
// nothing reads uninitialised memory. Move-only; frees on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static Status allocate(int64_t rows, int64_t cols, DType dtype, DeviceBuffer* out);
  // A view of memory someone else owns (a torch/cupy tensor through DLPack):
  // free() calls `release` instead of cudaFree. `pitch` must be >= cols.
  static DeviceBuffer wrap(void* ptr, int64_t rows, int64_t cols, int64_t pitch, DType dtype, int device,
                           std::function<void()> release);

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
};

// Select the current device (bounds-checked).
Status set_device(int index);

// Human-readable build facts: version, CUDA version, SASS targets.
const char* version();
const char* cuda_version();
const char* built_archs();  // "89,90a,100a"

}  // namespace tcgemm
