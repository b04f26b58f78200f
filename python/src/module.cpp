// tcgemm._core: thin pybind11 bindings of the C++ API. NumPy-level policy
// (dtype names, contiguity, layouts from strides, empty shapes) lives in
// python/tcgemm/_api.py; everything else is the C++ library's.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

#include "core/launch_check.h"
#include "dlpack.h"
#include "tcgemm/tcgemm.h"

namespace py = pybind11;
using namespace tcgemm;

namespace {

// Status -> the Python exception a NumPy user expects.
void check(const Status& s) {
  switch (s.code) {
    case StatusCode::ok: return;
    case StatusCode::invalid_argument:
    case StatusCode::not_supported: throw py::value_error(s.message);
    case StatusCode::out_of_memory: PyErr_SetString(PyExc_MemoryError, s.message.c_str()); throw py::error_already_set();
    default: throw std::runtime_error(s.message);  // pybind11 raises RuntimeError
  }
}

// A 2-D C-contiguous array of 2-byte elements matching the buffer's shape.
void check_host(const py::array& a, const DeviceBuffer& b, bool writable) {
  if (a.ndim() != 2 || a.itemsize() != 2)
    throw py::value_error("expected a 2-D array of 2-byte elements");
  if (a.shape(0) != b.rows() || a.shape(1) != b.cols())
    throw py::value_error("host array shape (" + std::to_string(a.shape(0)) + ", " + std::to_string(a.shape(1)) +
                          ") does not match the device buffer (" + std::to_string(b.rows()) + ", " +
                          std::to_string(b.cols()) + ")");
  if (!(a.flags() & py::array::c_style)) throw py::value_error("host array must be C-contiguous");
  if (writable && !a.writeable()) throw py::value_error("host array is read-only");
}

cudaStream_t as_stream(uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

// The optional GemmArgs fields, by keyword (batch, batch strides, epilogue,
// split_k); an unknown keyword is a TypeError, not silently ignored.
void apply_options(GemmArgs& g, const py::kwargs& kw) {
  for (const auto& item : kw) {
    const std::string k = py::cast<std::string>(item.first);
    const py::handle v = item.second;
    if (k == "batch") g.batch = py::cast<int64_t>(v);
    else if (k == "stride_a") g.batch_stride_a = py::cast<int64_t>(v);
    else if (k == "stride_b") g.batch_stride_b = py::cast<int64_t>(v);
    else if (k == "stride_c") g.batch_stride_c = py::cast<int64_t>(v);
    else if (k == "alpha") g.epilogue.alpha = py::cast<float>(v);
    else if (k == "beta") g.epilogue.beta = py::cast<float>(v);
    else if (k == "source") g.epilogue.source = reinterpret_cast<const void*>(py::cast<uintptr_t>(v));
    else if (k == "ld_source") g.epilogue.ld_source = py::cast<int64_t>(v);
    else if (k == "stride_source") g.epilogue.batch_stride_source = py::cast<int64_t>(v);
    else if (k == "bias") g.epilogue.bias = reinterpret_cast<const void*>(py::cast<uintptr_t>(v));
    else if (k == "bias_type") g.epilogue.bias_type = py::cast<BiasType>(v);
    else if (k == "activation") g.epilogue.act = py::cast<Activation>(v);
    else if (k == "split_k") g.split_k = py::cast<int>(v);
    else throw py::type_error("tcgemm._core: unknown gemm option '" + k + "'");
  }
}

// ---- DLPack export: a view of a DeviceBuffer that keeps its Python owner alive.
struct ExportCtx {
  int64_t shape[2], strides[2];
  PyObject* owner;
};

void export_deleter(DLManagedTensor* t) {
  py::gil_scoped_acquire gil;  // consumers may call this from any thread
  auto* ctx = static_cast<ExportCtx*>(t->manager_ctx);
  Py_XDECREF(ctx->owner);
  delete ctx;
  delete t;
}

void capsule_destructor(PyObject* cap) {
  // Only an unconsumed capsule still owns its tensor (the consumer renames it).
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (t && t->deleter) t->deleter(t);
  }
}

py::object buffer_to_dlpack(py::object owner, bool transposed) {
  DeviceBuffer& b = owner.cast<DeviceBuffer&>();
  if (!b.valid()) throw py::value_error("tcgemm: DeviceArray used after free()");
  auto* ctx = new ExportCtx{{b.rows(), b.cols()}, {b.pitch(), 1}, owner.ptr()};
  if (transposed) std::swap(ctx->shape[0], ctx->shape[1]), std::swap(ctx->strides[0], ctx->strides[1]);
  Py_INCREF(ctx->owner);
  auto* t = new DLManagedTensor{};
  t->dl_tensor.data = b.data();
  t->dl_tensor.device = {kDLCUDA, b.device()};
  t->dl_tensor.ndim = 2;
  t->dl_tensor.dtype = {b.dtype() == DType::f16 ? uint8_t(kDLFloat) : uint8_t(kDLBfloat), 16, 1};
  t->dl_tensor.shape = ctx->shape;
  t->dl_tensor.strides = ctx->strides;
  t->manager_ctx = ctx;
  t->deleter = export_deleter;
  PyObject* cap = PyCapsule_New(t, "dltensor", capsule_destructor);
  if (!cap) {
    export_deleter(t);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

// ---- DLPack import: (buffer view or nullptr, transposed, reason) for a capsule.
// Zero-copy when one stride is 1 and the other suits the kernels (16-byte
// aligned start, leading dimension a multiple of 8 elements); otherwise the
// caller gets a padded device copy.
py::tuple buffer_from_dlpack(py::object capsule, uintptr_t stream) {
  PyObject* cap = capsule.ptr();
  if (!PyCapsule_IsValid(cap, "dltensor")) throw py::type_error("tcgemm: expected an unconsumed DLPack 'dltensor' capsule");
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  const DLTensor& d = t->dl_tensor;
  auto fail = [&](const std::string& m) -> py::tuple { throw py::value_error("tcgemm: " + m); };
  if (d.device.device_type != kDLCUDA && d.device.device_type != kDLCUDAManaged)
    return fail("the DLPack tensor is not in CUDA device memory (device type " + std::to_string(d.device.device_type) + ")");
  if (d.ndim != 2) return fail("expected a 2-D tensor, got " + std::to_string(d.ndim) + "-D");
  if (d.dtype.bits != 16 || d.dtype.lanes != 1 || (d.dtype.code != kDLFloat && d.dtype.code != kDLBfloat))
    throw py::type_error("tcgemm: the tensor's dtype is not float16 or bfloat16 (DLPack code " +
                         std::to_string(d.dtype.code) + ", " + std::to_string(d.dtype.bits) + " bits)");
  const DType dt = d.dtype.code == kDLFloat ? DType::f16 : DType::bf16;
  const int64_t rows = d.shape[0], cols = d.shape[1];
  int64_t s0 = d.strides ? d.strides[0] : cols, s1 = d.strides ? d.strides[1] : 1;
  if (rows <= 1) s0 = pitch_for(cols);  // a stride along a size-1 axis means nothing
  if (cols <= 1) s1 = 1;
  bool transposed;
  int64_t srows, scols, pitch;
  if (s1 == 1 && s0 >= cols) transposed = false, srows = rows, scols = cols, pitch = s0;
  else if (s0 == 1 && s1 >= rows) transposed = true, srows = cols, scols = rows, pitch = s1;
  else return fail("the tensor needs unit stride along one axis (strides " + std::to_string(s0) + ", " + std::to_string(s1) + ")");
  char* data = static_cast<char*>(d.data) + d.byte_offset;
  // Mark consumed, and own the managed tensor from here on.
  PyCapsule_SetName(cap, "used_dltensor");
  auto release = [t] {
    py::gil_scoped_acquire gil;
    if (t->deleter) t->deleter(t);
  };
  const bool fits = reinterpret_cast<uintptr_t>(data) % 16 == 0 && pitch % 8 == 0;
  if (fits) {
    auto b = std::make_unique<DeviceBuffer>(DeviceBuffer::wrap(data, srows, scols, pitch, dt, d.device.device_id, release));
    return py::make_tuple(py::cast(b.release(), py::return_value_policy::take_ownership), transposed, false);
  }
  // Padded copy in our own layout; the source is handed back right after.
  auto b = std::make_unique<DeviceBuffer>();
  Status s = DeviceBuffer::allocate(srows, scols, dt, b.get());
  if (s.ok()) s = b->copy_from_device(data, pitch * 2, as_stream(stream));
  if (s.ok()) s = cuda_status(cudaStreamSynchronize(as_stream(stream)), "copy of a DLPack tensor");
  release();
  check(s);
  return py::make_tuple(py::cast(b.release(), py::return_value_policy::take_ownership), transposed, true);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tcgemm C++ core (use the tcgemm package, not this module directly)";

  py::enum_<DType>(m, "DType").value("float16", DType::f16).value("bfloat16", DType::bf16);
  py::enum_<Layout>(m, "Layout").value("NN", Layout::NN).value("TN", Layout::TN);
  py::enum_<Accum>(m, "Accum").value("f32", Accum::f32).value("f16", Accum::f16);
  py::enum_<Activation>(m, "Activation")
      .value("none", Activation::none)
      .value("relu", Activation::relu)
      .value("gelu", Activation::gelu)
      .value("silu", Activation::silu);
  py::enum_<BiasType>(m, "BiasType").value("float16", BiasType::f16).value("bfloat16", BiasType::bf16).value("float32", BiasType::f32);

  py::class_<DeviceBuffer>(m, "DeviceBuffer")
      .def(py::init([](int64_t rows, int64_t cols, DType dtype) {
             auto b = std::make_unique<DeviceBuffer>();
             check(DeviceBuffer::allocate(rows, cols, dtype, b.get()));
             return b;
           }),
           py::arg("rows"), py::arg("cols"), py::arg("dtype"))
      .def_property_readonly("rows", &DeviceBuffer::rows)
      .def_property_readonly("cols", &DeviceBuffer::cols)
      .def_property_readonly("pitch", &DeviceBuffer::pitch, "row pitch in elements")
      .def_property_readonly("dtype", &DeviceBuffer::dtype)
      .def_property_readonly("device", &DeviceBuffer::device)
      .def_property_readonly("valid", &DeviceBuffer::valid)
      .def_property_readonly("owns", &DeviceBuffer::owns, "False for a view of another library's memory")
      .def_property_readonly("ptr", [](const DeviceBuffer& b) { return reinterpret_cast<uintptr_t>(b.data()); })
      .def(
          "upload",
          [](DeviceBuffer& b, const py::array& host, uintptr_t stream) {
            check_host(host, b, false);
            const void* src = host.data();
            // A one-row array may carry any row stride (NumPy ignores it): use the row's width.
            const int64_t row_bytes = b.rows() > 1 ? host.strides(0) : b.cols() * 2;
            py::gil_scoped_release nogil;
            check(b.upload(src, row_bytes, as_stream(stream)));
          },
          py::arg("host"), py::arg("stream") = 0)
      .def(
          "download",
          [](const DeviceBuffer& b, py::array& host, uintptr_t stream) {
            check_host(host, b, true);
            void* dst = host.mutable_data();
            const int64_t row_bytes = b.rows() > 1 ? host.strides(0) : b.cols() * 2;
            py::gil_scoped_release nogil;
            check(b.download(dst, row_bytes, as_stream(stream)));
          },
          py::arg("host"), py::arg("stream") = 0)
      .def(
          "fill_bytes",
          [](DeviceBuffer& b, int value, uintptr_t stream) {
            py::gil_scoped_release nogil;
            check(b.fill_bytes(value, as_stream(stream)));
          },
          py::arg("value"), py::arg("stream") = 0)
      .def("free", &DeviceBuffer::free);

  m.def(
      "gemm",
      [](const std::string& kernel, uintptr_t a, uintptr_t b, uintptr_t c, int64_t M, int64_t N, int64_t K,
         int64_t lda, int64_t ldb, int64_t ldc, DType dtype, Layout layout, Accum accum, bool grid_swizzle,
         uintptr_t stream, bool sync, const py::kwargs& options) {
        GemmArgs args;
        apply_options(args, options);
        args.A = reinterpret_cast<const void*>(a), args.B = reinterpret_cast<const void*>(b);
        args.C = reinterpret_cast<void*>(c);
        args.M = M, args.N = N, args.K = K, args.lda = lda, args.ldb = ldb, args.ldc = ldc;
        args.dtype = dtype, args.layout = layout, args.accum = accum, args.grid_swizzle = grid_swizzle;
        args.stream = as_stream(stream);
        const KernelInfo* chosen = nullptr;
        Status s;
        {
          py::gil_scoped_release nogil;
          s = gemm(args, kernel, &chosen);
          if (s.ok() && sync) s = cuda_status(cudaStreamSynchronize(args.stream), "cudaStreamSynchronize after gemm");
        }
        check(s);
        return std::string(chosen->name);
      },
      py::arg("kernel"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("M"), py::arg("N"), py::arg("K"),
      py::arg("lda"), py::arg("ldb"), py::arg("ldc"), py::arg("dtype"), py::arg("layout"), py::arg("accum"),
      py::arg("grid_swizzle") = true, py::arg("stream") = 0, py::arg("sync") = false,
      "C = A @ B on raw device pointers (leading dimensions in elements). Keyword options: batch, stride_a, "
      "stride_b, stride_c, alpha, beta, source, ld_source, stride_source, bias, bias_type, activation, split_k. "
      "Returns the kernel used.");

  m.def(
      "time_gemm",
      [](const std::string& kernel, const std::vector<std::tuple<uintptr_t, uintptr_t, uintptr_t>>& rotation,
         int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc, DType dtype, Layout layout,
         Accum accum, bool grid_swizzle, int warmup, int iters, uintptr_t stream, const py::kwargs& options) {
        std::vector<GemmArgs> rot;
        for (const auto& [a, b, c] : rotation) {
          GemmArgs g;
          apply_options(g, options);
          g.A = reinterpret_cast<const void*>(a), g.B = reinterpret_cast<const void*>(b);
          g.C = reinterpret_cast<void*>(c);
          g.M = M, g.N = N, g.K = K, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
          g.dtype = dtype, g.layout = layout, g.accum = accum, g.grid_swizzle = grid_swizzle;
          g.stream = as_stream(stream);
          rot.push_back(g);
        }
        std::vector<float> ms;
        Status s;
        {
          py::gil_scoped_release nogil;
          s = time_gemm(rot, kernel, warmup, iters, &ms);
        }
        check(s);
        return ms;
      },
      "Per-launch times (ms) of `iters` launches after `warmup`, cycling through the (a, b, c) pointer sets.");

  m.def(
      "mma_sync_peak",
      [](Accum accum, bool ldmatrix_fed) {
        double t = 0;
        Status s;
        {
          py::gil_scoped_release nogil;
          s = mma_sync_peak(accum, &t, ldmatrix_fed);
        }
        check(s);
        return t;
      },
      py::arg("accum"), py::arg("ldmatrix_fed") = false,
      "TFLOPS (best of 5 launches) of the register-only mma.sync m16n8k16 loop on the current device, or with "
      "ldmatrix_fed of the loop that reads its operands from shared memory.");

  m.def(
      "time_mma_ceiling",
      [](Accum accum, int launches, bool ldmatrix_fed) {
        std::vector<float> ms;
        double flops = 0;
        Status s;
        {
          py::gil_scoped_release nogil;
          s = time_mma_ceiling(accum, launches, &ms, &flops, ldmatrix_fed);
        }
        check(s);
        return py::make_tuple(ms, flops);
      },
      py::arg("accum"), py::arg("launches"), py::arg("ldmatrix_fed") = false,
      "(ms per launch, FLOPs per launch) of `launches` back-to-back launches of the register-only mma.sync loop, "
      "or with ldmatrix_fed of the loop that reads its operands from shared memory as the GEMMs do.");

  m.def(
      "check_args",
      [](int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc, DType dtype, Layout layout,
         Accum accum, uintptr_t a, uintptr_t b, uintptr_t c, const py::kwargs& options) {
        GemmArgs args;
        apply_options(args, options);
        args.A = reinterpret_cast<const void*>(a), args.B = reinterpret_cast<const void*>(b);
        args.C = reinterpret_cast<void*>(c);
        args.M = M, args.N = N, args.K = K, args.lda = lda, args.ldb = ldb, args.ldc = ldc;
        args.dtype = dtype, args.layout = layout, args.accum = accum;
        check(check_args(args));
      },
      py::arg("M"), py::arg("N"), py::arg("K"), py::arg("lda"), py::arg("ldb"), py::arg("ldc"), py::arg("dtype"),
      py::arg("layout"), py::arg("accum"), py::arg("a"), py::arg("b"), py::arg("c"),
      "The C++ argument checks alone (no device needed); raises ValueError naming the problem.");

  m.def("kernels", [] {
    py::list out;
    for (const auto& k : kernels()) {
      Status r = check_runnable(k);
      py::dict d;
      d["name"] = k.name;
      d["family"] = k.family;
      d["arch"] = "sm_" + std::to_string(k.arch) + (k.arch >= 90 ? "a" : "");
      d["description"] = k.description;
      py::list dt, lay, acc;
      for (DType t : {DType::f16, DType::bf16})
        if (k.dtypes & bit(t)) dt.append(to_string(t));
      for (Layout l : {Layout::NN, Layout::TN})
        if (k.layouts & bit(l)) lay.append(to_string(l));
      for (Accum a : {Accum::f32, Accum::f16})
        if (k.accums & bit(a)) acc.append(to_string(a));
      d["dtypes"] = dt, d["layouts"] = lay, d["accumulators"] = acc;
      d["tile"] = py::make_tuple(k.tile_m, k.tile_n, k.tile_k);
      d["stages"] = k.stages;
      py::list feats;
      if (k.features & kEpilogue) feats.append("epilogue");
      if (k.features & kBatched) feats.append("batched");
      if (k.features & kSplitK) feats.append("split_k");
      d["features"] = feats;
      d["built"] = k.launch != nullptr;
      d["runnable"] = r.ok();
      d["why_not"] = r.ok() ? std::string() : r.message;
      out.append(d);
    }
    return out;
  });

  m.def("device_info", []() -> py::object {
    DeviceInfo d;
    if (!current_device(&d).ok()) return py::none();
    py::dict o;
    o["index"] = d.index, o["name"] = d.name, o["cc"] = d.cc, o["sm_count"] = d.sm_count;
    o["l2_bytes"] = d.l2_bytes, o["smem_optin_bytes"] = d.smem_optin_bytes;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) o["mem_free"] = free_b, o["mem_total"] = total_b;
    else cudaGetLastError();
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess) o["driver_cuda_version"] = driver;
    return o;
  });

  m.def("buffer_to_dlpack", &buffer_to_dlpack, py::arg("buffer"), py::arg("transposed"));
  m.def("buffer_from_dlpack", &buffer_from_dlpack, py::arg("capsule"), py::arg("stream") = 0,
        "-> (DeviceBuffer, transposed, copied)");
  m.def("set_device", [](int i) { check(set_device(i)); });
  m.def("get_device", [] {
    int d = -1;
    check(cuda_status(cudaGetDevice(&d), "cudaGetDevice"));
    return d;
  });
  m.def("stream_synchronize", [](uintptr_t s) {
    Status st;
    {
      py::gil_scoped_release nogil;
      st = cuda_status(cudaStreamSynchronize(as_stream(s)), "cudaStreamSynchronize");
    }
    check(st);
  });
  m.def("device_count", &device_count);
  m.def("pitch_for", &pitch_for);
  m.def("build_info", [] {
    py::dict o;
    o["version"] = version();
    o["cuda_version"] = cuda_version();
    py::list archs;
    std::string s = built_archs(), t;
    for (char ch : s + ",")
      if (ch == ',') { if (!t.empty()) archs.append(t); t.clear(); } else t += ch;
    o["archs"] = archs;
    return o;
  });
}
