// Pinned memory, the staging ring and the host GEMM pipeline (tcgemm/host.h).
//
// Why a ring of our own: a cudaMemcpy from pageable memory is staged by the
// driver through its own small pinned buffers, one CPU thread copying, and
// measured 22 GB/s host-to-device and 17 GB/s back on the H200 machine
// against 55 GB/s each way from pinned memory. Here several threads copy
// rows into 8 MiB pinned slots while the copy engines move the slots filled
// before; slots are kept for the next call (pinning costs more than copying).
#include "tcgemm/host.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/launch_check.h"
#include "tcgemm/device.h"
#include "tcgemm/gemm.h"

namespace tcgemm {

// ---------------------------------------------------------------------------
// Pinned memory.
Status pinned_alloc(size_t bytes, void** out) {
  *out = nullptr;
  const cudaError_t e = cudaHostAlloc(out, bytes ? bytes : 1, cudaHostAllocPortable);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return Status::Error(StatusCode::out_of_memory,
                         "cudaHostAlloc of " + std::to_string(bytes) + " bytes of pinned memory failed");
  }
  return cuda_status(e, "cudaHostAlloc");
}

void pinned_free(void* p) {
  if (p && cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
}

bool is_pinned(const void* p, size_t bytes) {
  auto pinned_at = [](const void* q) {
    cudaPointerAttributes at{};
    if (cudaPointerGetAttributes(&at, q) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return at.type == cudaMemoryTypeHost;
  };
  // One allocation holds both ends (pinned ranges are whole allocations).
  return p && pinned_at(p) && (bytes <= 1 || pinned_at(static_cast<const char*>(p) + bytes - 1));
}

namespace {

// ---------------------------------------------------------------------------
// A few threads for large host copies: one CPU core moves ~10 GB/s, the link
// 55 GB/s. The calling thread takes a share too.
class CopyThreads {
 public:
  static CopyThreads& get() {
    static CopyThreads pool;
    return pool;
  }

  // dst rows <- src rows, `width` bytes each.
  void copy_rows(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width, int64_t rows) {
    const int64_t bytes = width * rows;
    const int parts = bytes < (2 << 20) ? 1 : static_cast<int>(std::min<int64_t>(helpers_ + 1, bytes >> 20));
    auto part = [=](int i) {
      const int64_t r0 = rows * i / parts, r1 = rows * (i + 1) / parts;
      char* d = static_cast<char*>(dst) + r0 * dst_pitch;
      const char* s = static_cast<const char*>(src) + r0 * src_pitch;
      if (dst_pitch == width && src_pitch == width) {
        std::memcpy(d, s, static_cast<size_t>((r1 - r0) * width));
      } else {
        for (int64_t r = r0; r < r1; ++r, d += dst_pitch, s += src_pitch) std::memcpy(d, s, static_cast<size_t>(width));
      }
    };
    if (parts == 1) return part(0);
    run(parts, part);
  }

 private:
  CopyThreads() {
    const unsigned hw = std::thread::hardware_concurrency();
    helpers_ = static_cast<int>(std::min(7u, hw > 1 ? hw - 1 : 1u));
  }
  ~CopyThreads() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void run(int parts, const std::function<void(int)>& part) {
    std::unique_lock<std::mutex> lock(mu_);
    while (static_cast<int>(threads_.size()) < helpers_)
      threads_.emplace_back([this, id = static_cast<int>(threads_.size())] { worker(id); });
    job_ = &part, parts_ = parts, pending_ = parts - 1, ++generation_;
    lock.unlock();
    cv_.notify_all();
    part(0);
    lock.lock();
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

  void worker(int id) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      const int mine = id + 1;  // part 0 is the caller's
      if (mine >= parts_) continue;
      const std::function<void(int)>* job = job_;
      lock.unlock();
      (*job)(mine);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  int helpers_ = 1;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

// ---------------------------------------------------------------------------
// The staging ring. A slot is free, holds an upload the copy engine has not
// finished reading, or holds a download whose rows still have to be copied
// out to the caller's memory once its event has fired. Slots are used in
// FIFO order, so waiting on the oldest is waiting on the next to be free.
constexpr size_t kSlotBytes = 8u << 20;

struct Slot {
  void* host = nullptr;
  cudaEvent_t done = nullptr;
  enum { idle, uploading, downloading } state = idle;
  // Where a download's rows go once `done` has fired.
  void* dst = nullptr;
  int64_t dst_pitch = 0, width = 0, rows = 0;
};

std::atomic<size_t> g_staging_limit{256u << 20};

// One ring per device: a slot's event belongs to the device it was made on.
class Staging {
 public:
  static constexpr int kDevices = 64;
  // The current device's ring (made on first use; never destroyed).
  static Staging& get() {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kDevices) cudaGetLastError(), dev = 0;
    return *rings()[dev];
  }
  static const std::array<Staging*, kDevices>& rings() {
    static const std::array<Staging*, kDevices> all = [] {
      std::array<Staging*, kDevices> a;
      for (auto& r : a) r = new Staging;  // a few bytes each until used
      return a;
    }();
    return all;
  }
  std::mutex& call_mutex() { return call_mu_; }  // one staged transfer (or host GEMM) per device at a time

  size_t limit() const { return std::max(g_staging_limit.load(), 2 * kSlotBytes); }
  size_t held() const { return slots_.size() * kSlotBytes; }

  // The next slot to fill, made free first (callers hold call_mutex).
  Status acquire(Slot** out) {
    if (!slots_.empty() && slots_[cursor_ % slots_.size()].state == Slot::idle) {
      *out = &slots_[cursor_++ % slots_.size()];
      return Status::Ok();
    }
    if (held() + kSlotBytes <= limit() || slots_.size() < 2) {
      Slot s;
      TCGEMM_TRY(pinned_alloc(kSlotBytes, &s.host));
      const cudaError_t e = cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming);
      if (e != cudaSuccess) {
        pinned_free(s.host);
        return cuda_status(e, "cudaEventCreate(staging slot)");
      }
      // Inserted at the cursor: the busy slots after it stay in FIFO order.
      const size_t at = slots_.empty() ? 0 : cursor_ % slots_.size();
      slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(at), s);
      cursor_ = at + 1;
      *out = &slots_[at];
      return Status::Ok();
    }
    Slot& s = slots_[cursor_ % slots_.size()];
    TCGEMM_TRY(retire(s, true));
    ++cursor_;
    *out = &s;
    return Status::Ok();
  }

  // Retires the oldest slots whose copies have finished (no waiting).
  Status poll() {
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[(cursor_ + i) % slots_.size()];
      if (s.state == Slot::idle) continue;
      const cudaError_t q = cudaEventQuery(s.done);
      if (q == cudaErrorNotReady) return Status::Ok();
      if (q != cudaSuccess) return cuda_status(q, "cudaEventQuery(staging slot)");
      TCGEMM_TRY(retire(s, false));
    }
    return Status::Ok();
  }

  // Waits for every slot, copying out finished downloads.
  Status drain() {
    Status first;
    for (size_t i = 0; i < slots_.size(); ++i) {
      Status s = retire(slots_[(cursor_ + i) % slots_.size()], true);
      if (first.ok() && !s.ok()) first = s;
    }
    return first;
  }

  Status release() {
    TCGEMM_TRY(drain());
    for (Slot& s : slots_) {
      cudaEventDestroy(s.done);
      pinned_free(s.host);
    }
    slots_.clear();
    cursor_ = 0;
    return Status::Ok();
  }

 private:
  Status retire(Slot& s, bool wait) {
    if (s.state == Slot::idle) return Status::Ok();
    if (wait) TCGEMM_CUDA_TRY(cudaEventSynchronize(s.done));
    if (s.state == Slot::downloading)
      CopyThreads::get().copy_rows(s.dst, s.dst_pitch, s.host, s.width, s.width, s.rows);
    s.state = Slot::idle;
    return Status::Ok();
  }

  std::mutex call_mu_;
  std::vector<Slot> slots_;
  size_t cursor_ = 0;
};

// A copy of rows x width bytes, slot by slot: fn(slot, first row, rows) for
// chunks of at most one slot (at least one row). Pinned host memory, or a row
// wider than a slot, goes in one cudaMemcpy2DAsync instead (`direct`).
template <class Direct, class Chunk>
Status by_slots(int64_t width, int64_t rows, bool host_pinned, Direct direct, Chunk fn) {
  if (rows == 0 || width == 0) return Status::Ok();
  if (host_pinned || width > static_cast<int64_t>(kSlotBytes)) return direct();
  const int64_t step = std::max<int64_t>(1, static_cast<int64_t>(kSlotBytes) / width);
  for (int64_t r = 0; r < rows; r += step) {
    Slot* s = nullptr;
    TCGEMM_TRY(Staging::get().acquire(&s));
    TCGEMM_TRY(fn(s, r, std::min(step, rows - r)));
  }
  return Status::Ok();
}

// Uploads rows [0, rows) through the ring on `stream` (call_mutex held).
Status staged_upload(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width, int64_t rows,
                     bool src_pinned, cudaStream_t stream) {
  auto direct = [&] {
    return cuda_status(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyHostToDevice, stream),
                       "cudaMemcpy2DAsync(upload)");
  };
  return by_slots(width, rows, src_pinned, direct, [&](Slot* s, int64_t r, int64_t n) -> Status {
    CopyThreads::get().copy_rows(s->host, width, static_cast<const char*>(src) + r * src_pitch, src_pitch, width, n);
    TCGEMM_CUDA_TRY(cudaMemcpy2DAsync(static_cast<char*>(dst) + r * dst_pitch, dst_pitch, s->host, width, width, n,
                                      cudaMemcpyHostToDevice, stream));
    TCGEMM_CUDA_TRY(cudaEventRecord(s->done, stream));
    s->state = Slot::uploading;
    return Status::Ok();
  });
}

// Enqueues the download of rows [0, rows) on `stream`; the rows reach `dst`
// when their slots retire (poll / acquire / drain; call_mutex held).
Status staged_download(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width, int64_t rows,
                       bool dst_pinned, cudaStream_t stream) {
  auto direct = [&] {
    return cuda_status(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyDeviceToHost, stream),
                       "cudaMemcpy2DAsync(download)");
  };
  return by_slots(width, rows, dst_pinned, direct, [&](Slot* s, int64_t r, int64_t n) -> Status {
    TCGEMM_CUDA_TRY(cudaMemcpy2DAsync(s->host, width, static_cast<const char*>(src) + r * src_pitch, src_pitch, width,
                                      n, cudaMemcpyDeviceToHost, stream));
    TCGEMM_CUDA_TRY(cudaEventRecord(s->done, stream));
    s->state = Slot::downloading;
    s->dst = static_cast<char*>(dst) + r * dst_pitch, s->dst_pitch = dst_pitch, s->width = width, s->rows = n;
    return Staging::get().poll();
  });
}

// Small copies: the driver's own path is quicker than waking the ring.
constexpr int64_t kDirectBytes = 1 << 20;

// Three streams per device for the pipeline (made once, never destroyed:
// they live as long as the process's CUDA context).
struct PipeStreams {
  cudaStream_t in = nullptr, comp = nullptr, out = nullptr;
};

Status pipe_streams(PipeStreams* out) {
  static std::mutex mu;
  static PipeStreams per[64];
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return Status::Error(StatusCode::not_supported, "device index beyond 63");
  std::lock_guard<std::mutex> lock(mu);
  PipeStreams& p = per[dev];
  if (!p.in) {
    PipeStreams q;
    TCGEMM_CUDA_TRY(cudaStreamCreateWithFlags(&q.in, cudaStreamNonBlocking));
    TCGEMM_CUDA_TRY(cudaStreamCreateWithFlags(&q.comp, cudaStreamNonBlocking));
    TCGEMM_CUDA_TRY(cudaStreamCreateWithFlags(&q.out, cudaStreamNonBlocking));
    p = q;
  }
  *out = p;
  return Status::Ok();
}

// Events of one call, destroyed with it.
class Events {
 public:
  ~Events() {
    for (cudaEvent_t e : all_) cudaEventDestroy(e);
  }
  Status make(cudaEvent_t* e) {
    TCGEMM_CUDA_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    all_.push_back(*e);
    return Status::Ok();
  }
  // `waiter` waits for the work enqueued on `on` so far.
  Status order(cudaStream_t waiter, cudaStream_t on) {
    cudaEvent_t e = nullptr;
    TCGEMM_TRY(make(&e));
    TCGEMM_CUDA_TRY(cudaEventRecord(e, on));
    TCGEMM_CUDA_TRY(cudaStreamWaitEvent(waiter, e, 0));
    return Status::Ok();
  }

 private:
  std::vector<cudaEvent_t> all_;
};

}  // namespace

void set_staging_limit(size_t bytes) { g_staging_limit = bytes; }  // rings shrink at their next release
size_t staging_limit() { return std::max(g_staging_limit.load(), 2 * kSlotBytes); }

size_t staging_held() {
  size_t held = 0;
  for (auto& r : Staging::rings()) {
    std::lock_guard<std::mutex> lock(r->call_mutex());
    held += r->held();
  }
  return held;
}

Status release_host_staging() {
  Status first;
  for (auto& r : Staging::rings()) {
    std::lock_guard<std::mutex> lock(r->call_mutex());
    const Status s = r->release();
    if (first.ok()) first = s;
  }
  return first;
}

Status copy_to_device_2d(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width, int64_t rows,
                         cudaStream_t stream) {
  if (rows == 0 || width == 0) return Status::Ok();
  if (width * rows <= kDirectBytes || is_pinned(src, static_cast<size_t>((rows - 1) * src_pitch + width))) {
    TCGEMM_CUDA_TRY(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyHostToDevice, stream));
    return cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize after an upload");
  }
  std::lock_guard<std::mutex> lock(Staging::get().call_mutex());
  Status s = staged_upload(dst, dst_pitch, src, src_pitch, width, rows, false, stream);
  const Status d = Staging::get().drain();
  return s.ok() ? d : s;
}

Status copy_to_host_2d(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width, int64_t rows,
                       cudaStream_t stream) {
  if (rows == 0 || width == 0) return Status::Ok();
  if (width * rows <= kDirectBytes || is_pinned(dst, static_cast<size_t>((rows - 1) * dst_pitch + width))) {
    TCGEMM_CUDA_TRY(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows, cudaMemcpyDeviceToHost, stream));
    return cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize after a download");
  }
  std::lock_guard<std::mutex> lock(Staging::get().call_mutex());
  Status s = staged_download(dst, dst_pitch, src, src_pitch, width, rows, false, stream);
  const Status d = Staging::get().drain();
  return s.ok() ? d : s;
}

// ---------------------------------------------------------------------------
// The pipeline.
Status host_gemm(const HostGemm& h, std::string* kernel_used) {
  const GemmArgs& g = h.shape;
  const int64_t M = g.M, N = g.N, K = g.K;
  if (M < 1 || N < 1 || K < 1) return Status::Error(StatusCode::invalid_argument, "host_gemm: empty shape");
  const bool tn = g.layout == Layout::TN;
  const int64_t b_rows = tn ? N : K, b_cols = tn ? K : N;
  auto bad = [](const std::string& m) { return Status::Error(StatusCode::invalid_argument, "host_gemm: " + m); };
  if (h.a.rows != M || h.a.cols != K || h.b.rows != b_rows || h.b.cols != b_cols) return bad("operand shapes");
  if (!h.a.data || !h.b.data || !h.d) return bad("null host pointer");
  if (h.a.pitch < K * 2 || h.b.pitch < b_cols * 2 || h.d_pitch < N * 2) return bad("row pitch below the row");
  const bool with_source = g.epilogue.beta != 0.0f;
  if (with_source && (!h.source.data || h.source.rows != M || h.source.cols != N || h.source.pitch < N * 2))
    return bad("the epilogue's source must be M x N");

  PipeStreams ps;
  TCGEMM_TRY(pipe_streams(&ps));
  std::lock_guard<std::mutex> lock(Staging::get().call_mutex());
  Staging& ring = Staging::get();

  // Device operands from the pool, ordered on the caller's stream; the three
  // pipeline streams start after it (and after the caller's earlier work).
  const cudaStream_t s0 = h.stream;
  using Fill = DeviceBuffer::Fill;
  DeviceBuffer da, db, dd, dsrc, dbias;
  TCGEMM_TRY(DeviceBuffer::allocate(M, K, g.dtype, &da, s0, Fill::padding));
  TCGEMM_TRY(DeviceBuffer::allocate(b_rows, b_cols, g.dtype, &db, s0, Fill::padding));
  TCGEMM_TRY(DeviceBuffer::allocate(M, N, g.dtype, &dd, s0, Fill::none));
  if (with_source) TCGEMM_TRY(DeviceBuffer::allocate(M, N, g.dtype, &dsrc, s0, Fill::none));
  const int bias_elem_bytes = g.epilogue.bias_type == BiasType::f32 ? 4 : 2;
  if (h.bias) TCGEMM_TRY(DeviceBuffer::allocate(1, N * bias_elem_bytes / 2, DType::f16, &dbias, s0, Fill::none));
  Events ev;
  for (cudaStream_t s : {ps.in, ps.comp, ps.out}) TCGEMM_TRY(ev.order(s, s0));

  const bool a_pinned = is_pinned(h.a.data, static_cast<size_t>((M - 1) * h.a.pitch + K * 2));
  const bool d_pinned = is_pinned(h.d, static_cast<size_t>((M - 1) * h.d_pitch + N * 2));

  Status st = [&]() -> Status {
    // B (every panel needs all of it), then the epilogue's operands.
    TCGEMM_TRY(staged_upload(db.data(), db.pitch() * 2, h.b.data, h.b.pitch, b_cols * 2, b_rows,
                             is_pinned(h.b.data, static_cast<size_t>((b_rows - 1) * h.b.pitch + b_cols * 2)), ps.in));
    if (with_source)
      TCGEMM_TRY(staged_upload(dsrc.data(), dsrc.pitch() * 2, h.source.data, h.source.pitch, N * 2, M,
                               is_pinned(h.source.data, static_cast<size_t>((M - 1) * h.source.pitch + N * 2)), ps.in));
    if (h.bias)
      TCGEMM_TRY(staged_upload(dbias.data(), N * bias_elem_bytes, h.bias, N * bias_elem_bytes, N * bias_elem_bytes, 1,
                               false, ps.in));
    // Panels of A: about one staging slot each, whole 128-row tiles.
    int64_t rows = h.panel_rows;
    if (rows <= 0) rows = std::max<int64_t>(128, static_cast<int64_t>(kSlotBytes) / (da.pitch() * 2) / 128 * 128);
    rows = std::min(rows, M);
    for (int64_t m0 = 0; m0 < M; m0 += rows) {
      const int64_t mp = std::min(rows, M - m0);
      TCGEMM_TRY(staged_upload(static_cast<char*>(da.data()) + m0 * da.pitch() * 2, da.pitch() * 2,
                               static_cast<const char*>(h.a.data) + m0 * h.a.pitch, h.a.pitch, K * 2, mp, a_pinned,
                               ps.in));
      TCGEMM_TRY(ev.order(ps.comp, ps.in));
      GemmArgs p = g;
      p.A = static_cast<const char*>(da.data()) + m0 * da.pitch() * 2;
      p.B = db.data();
      p.C = static_cast<char*>(dd.data()) + m0 * dd.pitch() * 2;
      p.M = mp, p.lda = da.pitch(), p.ldb = db.pitch(), p.ldc = dd.pitch();
      p.batch = 1, p.batch_stride_a = p.batch_stride_b = p.batch_stride_c = 0;
      p.stream = ps.comp;
      p.workspace = nullptr, p.workspace_bytes = 0;  // split-K partials: the pool, on ps.comp
      if (with_source) {
        p.epilogue.source = static_cast<const char*>(dsrc.data()) + m0 * dsrc.pitch() * 2;
        p.epilogue.ld_source = dsrc.pitch();
        p.epilogue.batch_stride_source = 0;
      }
      p.epilogue.bias = h.bias ? dbias.data() : nullptr;
      const Plan* plan = nullptr;
      TCGEMM_TRY(plan_gemm(p, h.kernel, &plan));
      if (kernel_used) *kernel_used = plan->kernel->name;
      TCGEMM_TRY(run_plan(*plan, p));
      TCGEMM_TRY(ev.order(ps.out, ps.comp));
      TCGEMM_TRY(staged_download(static_cast<char*>(h.d) + m0 * h.d_pitch, h.d_pitch,
                                 static_cast<const char*>(dd.data()) + m0 * dd.pitch() * 2, dd.pitch() * 2, N * 2, mp,
                                 d_pinned, ps.out));
      TCGEMM_TRY(ring.poll());
    }
    return Status::Ok();
  }();
  // Whatever happened, nothing may still be reading or writing the buffers
  // (or the caller's arrays) when they go back: the caller's stream waits for
  // the three, frees on it, and the call returns once it is done.
  for (cudaStream_t s : {ps.in, ps.comp, ps.out}) {
    const Status o = ev.order(s0, s);
    if (st.ok()) st = o;
  }
  const Status dr = ring.drain();
  if (st.ok()) st = dr;
  da.free(), db.free(), dd.free(), dsrc.free(), dbias.free();
  const Status sy = cuda_status(cudaStreamSynchronize(s0), "cudaStreamSynchronize after host_gemm");
  return st.ok() ? sy : st;
}

}  // namespace tcgemm
