// Device queries and DeviceBuffer.
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "core/launch_check.h"
#include "core/workspace.h"
#include "tcgemm/device.h"
#include "tcgemm/host.h"

namespace tcgemm {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver/no device" error
    return 0;
  }
  return n;
}

Status current_device(DeviceInfo* out) {
  if (device_count() == 0)
    return Status::Error(StatusCode::no_device, "no CUDA device was found (no GPU, or no NVIDIA driver)");
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  // Properties do not change while the process runs: cache them per device.
  static std::mutex mu;
  static std::vector<DeviceInfo> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& d : cache)
    if (d.index == dev) return *out = d, Status::Ok();
  cudaDeviceProp prop{};
  TCGEMM_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  DeviceInfo info;
  info.index = dev;
  info.name = prop.name;
  info.cc = prop.major * 10 + prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.smem_optin_bytes = prop.sharedMemPerBlockOptin;
  cache.push_back(info);
  *out = info;
  return Status::Ok();
}

DeviceBuffer::~DeviceBuffer() { free(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    free();
    ptr_ = o.ptr_, rows_ = o.rows_, cols_ = o.cols_, pitch_ = o.pitch_, dtype_ = o.dtype_, device_ = o.device_;
    stream_ = o.stream_;
    release_ = std::move(o.release_);
    o.ptr_ = nullptr;
    o.release_ = nullptr;
  }
  return *this;
}

void DeviceBuffer::free() {
  if (!ptr_) return;
  if (release_) {
    auto r = std::move(release_);
    release_ = nullptr;
    ptr_ = nullptr;
    r();  // hand the memory back to its owner
    return;
  }
  // Back to the pool of the device it came from, ordered on its stream (the
  // pool and the legacy default stream are per device).
  int cur = -1;
  const bool switch_device = cudaGetDevice(&cur) == cudaSuccess && cur != device_ && device_ >= 0;
  if (switch_device) cudaSetDevice(device_);
  // A destructor cannot report an error: if the ordered free fails (its stream
  // is gone, say), free synchronously rather than leak.
  if (!workspace_free(ptr_, stream_).ok() && cudaFree(ptr_) != cudaSuccess) cudaGetLastError();
  if (switch_device) cudaSetDevice(cur);
  ptr_ = nullptr;
}

DeviceBuffer DeviceBuffer::wrap(void* ptr, int64_t rows, int64_t cols, int64_t pitch, DType dtype, int device,
                                std::function<void()> release) {
  DeviceBuffer b;
  b.ptr_ = ptr, b.rows_ = rows, b.cols_ = cols, b.pitch_ = pitch, b.dtype_ = dtype, b.device_ = device;
  b.release_ = release ? std::move(release) : [] {};
  return b;
}

Status DeviceBuffer::copy_from_device(const void* src, int64_t src_row_bytes, cudaStream_t stream) {
  if (!ptr_) return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: used after free");
  if (rows_ == 0 || cols_ == 0) return Status::Ok();
  TCGEMM_CUDA_TRY(cudaMemcpy2DAsync(ptr_, pitch_ * 2, src, src_row_bytes, cols_ * 2, rows_,
                                    cudaMemcpyDeviceToDevice, stream));
  return Status::Ok();
}

Status set_device(int index) {
  const int n = device_count();
  if (index < 0 || index >= n)
    return Status::Error(StatusCode::invalid_argument,
                         "device " + std::to_string(index) + " does not exist (" + std::to_string(n) + " CUDA device(s))");
  TCGEMM_CUDA_TRY(cudaSetDevice(index));
  return Status::Ok();
}

Status DeviceBuffer::allocate(int64_t rows, int64_t cols, DType dtype, DeviceBuffer* out, cudaStream_t stream,
                              Fill fill) {
  if (rows < 0 || cols < 0)
    return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: negative shape");
  DeviceInfo dev;
  TCGEMM_TRY(current_device(&dev));
  DeviceBuffer b;
  b.rows_ = rows, b.cols_ = cols, b.pitch_ = pitch_for(cols), b.dtype_ = dtype, b.device_ = dev.index;
  b.stream_ = stream;
  // At least one row, so that every buffer has a valid address even when empty.
  const size_t bytes = static_cast<size_t>(rows < 1 ? 1 : rows) * static_cast<size_t>(b.pitch_) * 2;
  void* p = nullptr;
  const Status s = workspace_alloc(bytes, stream, &p);
  if (!s.ok()) {
    return Status::Error(s.code, "DeviceBuffer: cudaMallocFromPoolAsync of " + std::to_string(bytes) + " bytes (" +
                                     std::to_string(rows) + " x " + std::to_string(cols) + " " + to_string(dtype) +
                                     ") failed: " + s.message);
  }
  b.ptr_ = p;
  if (fill == Fill::all || (fill == Fill::padding && rows < 1)) {
    TCGEMM_CUDA_TRY(cudaMemsetAsync(b.ptr_, 0, bytes, stream));
  } else if (fill == Fill::padding && b.pitch_ > cols) {
    TCGEMM_CUDA_TRY(cudaMemset2DAsync(static_cast<char*>(b.ptr_) + cols * 2, b.pitch_ * 2, 0, (b.pitch_ - cols) * 2,
                                      rows, stream));
  }
  *out = std::move(b);
  return Status::Ok();
}

// Pageable host memory goes through the staging ring, pinned memory
// straight to the copy engines (tcgemm/host.h).
Status DeviceBuffer::upload(const void* host, int64_t host_row_bytes, cudaStream_t stream) {
  if (!ptr_) return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: used after free");
  if (rows_ == 0 || cols_ == 0) return Status::Ok();
  return copy_to_device_2d(ptr_, pitch_ * 2, host, host_row_bytes, cols_ * 2, rows_, stream);
}

Status DeviceBuffer::download(void* host, int64_t host_row_bytes, cudaStream_t stream) const {
  if (!ptr_) return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: used after free");
  if (rows_ == 0 || cols_ == 0) return Status::Ok();
  return copy_to_host_2d(host, host_row_bytes, ptr_, pitch_ * 2, cols_ * 2, rows_, stream);
}

Status DeviceBuffer::fill_bytes(int value, cudaStream_t stream) {
  if (!ptr_) return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: used after free");
  if (release_) return Status::Error(StatusCode::invalid_argument, "DeviceBuffer: fill_bytes on a borrowed buffer");
  const size_t bytes = static_cast<size_t>(rows_ < 1 ? 1 : rows_) * static_cast<size_t>(pitch_) * 2;
  TCGEMM_CUDA_TRY(cudaMemsetAsync(ptr_, value, bytes, stream));
  TCGEMM_CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::Ok();
}

Status opt_in_smem(const void* kernel, int bytes) {
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  struct Done { const void* fn; int dev; int bytes; };
  static std::mutex mu;
  static std::vector<Done> done;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const Done& d : done)
      if (d.fn == kernel && d.dev == dev && d.bytes >= bytes) return Status::Ok();
  }
  TCGEMM_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  std::lock_guard<std::mutex> lock(mu);
  done.push_back({kernel, dev, bytes});
  return Status::Ok();
}

const char* version() { return TCGEMM_VERSION; }
const char* cuda_version() { return TCGEMM_CUDA_VERSION; }
const char* built_archs() { return TCGEMM_BUILT_ARCHS; }

}  // namespace tcgemm
