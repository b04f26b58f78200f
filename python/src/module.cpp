// tcgemm._core: thin pybind11 bindings of the C++ API. NumPy-level policy
// (dtype names, contiguity, layouts from strides, empty shapes) lives in
// python/tcgemm/_api.py; everything else is the C++ library's.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <structmember.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <tuple>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/launch_check.h"
#include "core/workspace.h"
#include "tma/tensor_map.h"
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
// split_k, B's and C's dtypes, scales); an unknown keyword is a TypeError, not
// silently ignored.
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
    else if (k == "dtype_b") g.dtype_b = py::cast<DType>(v);
    else if (k == "dtype_c") g.dtype_c = py::cast<DType>(v);
    else if (k == "scale_mode") g.scales.mode = py::cast<ScaleMode>(v);
    else if (k == "scale_a") g.scales.a = reinterpret_cast<const float*>(py::cast<uintptr_t>(v));
    else if (k == "scale_b") g.scales.b = reinterpret_cast<const float*>(py::cast<uintptr_t>(v));
    else if (k == "scale_a_strides") std::tie(g.scales.a_stride, g.scales.a_stride_k) = py::cast<std::pair<int64_t, int64_t>>(v);
    else if (k == "scale_b_strides") std::tie(g.scales.b_stride, g.scales.b_stride_k) = py::cast<std::pair<int64_t, int64_t>>(v);
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
  // Allocated, padded and filled on the caller's stream, in that order.
  Status s = DeviceBuffer::allocate(srows, scols, dt, b.get(), as_stream(stream), DeviceBuffer::Fill::padding);
  if (s.ok()) s = b->copy_from_device(data, pitch * 2, as_stream(stream));
  if (s.ok()) s = cuda_status(cudaStreamSynchronize(as_stream(stream)), "copy of a DLPack tensor");
  release();
  check(s);
  return py::make_tuple(py::cast(b.release(), py::return_value_policy::take_ownership), transposed, true);
}

// Plan handles given to Python: run() takes only these (a bad integer is a
// ValueError, not a wild pointer). Plans are never freed, so neither is this.
struct PlanSet {
  std::mutex mu;
  std::unordered_set<const Plan*> set;
  void insert(const Plan* p) {
    std::lock_guard<std::mutex> lock(mu);
    set.insert(p);
  }
  bool contains(const Plan* p) {
    std::lock_guard<std::mutex> lock(mu);
    return set.count(p) != 0;
  }
};
PlanSet& issued_plans() {
  static PlanSet* s = new PlanSet;
  return *s;
}

// The plan behind a handle from plan() (a bad integer is a ValueError).
const Plan* planned(uintptr_t handle) {
  const Plan* p = reinterpret_cast<const Plan*>(handle);
  if (!issued_plans().contains(p)) throw py::value_error("tcgemm._core.run: not a plan handle");
  return p;
}

// One planned launch, as the Python call path builds it per call: the plan
// handle and what the plan does not fix (addresses, leading dimensions, the
// stream, the workspace, the epilogue's operands, the batch strides).
// Fields of the C types the Python members below read and write directly.
struct RunArgs {
  // Addresses and handles as signed 64-bit integers: user-space addresses fit,
  // and Python's integer parsing then takes any integer type (__index__).
  long long plan = 0;
  long long a = 0, b = 0, c = 0;  // c: the output (GemmArgs::C)
  long long lda = 0, ldb = 0, ldc = 0;
  long long stream = 0;
  long long workspace = 0;  // 0: the kernel takes its own from tcgemm's pool
  long long workspace_bytes = 0;
  char grid_swizzle = 1;  // a bool (T_BOOL)
  // The epilogue: D = act(alpha * A B + beta * source + bias); the plain one by default.
  float alpha = 1.0f, beta = 0.0f;
  long long source = 0;
  long long ld_source = 0, stride_source = 0;
  long long bias = 0;
  int bias_type = static_cast<int>(BiasType::f32);
  int activation = static_cast<int>(Activation::none);
  // Batches: matrices and elements between consecutive ones (0: one matrix for all).
  long long batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  // FP8 scales (the plan fixes the mode): fp32 device pointers and element strides (GemmArgs::scales).
  long long scale_a = 0, scale_b = 0;
  long long scale_a_stride = 1, scale_a_stride_k = 0, scale_b_stride = 1, scale_b_stride_k = 0;
  // Staging (set_staging): copies into padded buffers before the kernel, and of a padded result
  // out after it, one copy_matrices launch each.
  MatrixCopy stage_in[kMaxMatrixCopies];
  MatrixCopy stage_out[1];
  int n_stage_in = 0, n_stage_out = 0;
};
static_assert(sizeof(long long) == sizeof(uintptr_t), "addresses are 64-bit");

template <class T>
T* address(long long v) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(v));
}

// What the C types let through that no call may carry (run_plan checks the rest).
void check_fields(const RunArgs& r) {
  if (r.a < 0 || r.b < 0 || r.c < 0 || r.stream < 0 || r.workspace < 0 || r.workspace_bytes < 0 || r.source < 0 ||
      r.bias < 0 || r.scale_a < 0 || r.scale_b < 0)
    throw py::value_error("tcgemm._core.run: an address, stream or byte count is negative");
  if (r.bias_type < 0 || r.bias_type > 2) throw py::value_error("tcgemm._core.run: bias_type must be 0, 1 or 2");
  if (r.activation < 0 || r.activation > 3) throw py::value_error("tcgemm._core.run: activation must be 0 .. 3");
}

GemmArgs planned_args(const Plan& p, const RunArgs& r) {
  GemmArgs g;
  g.A = address<const void>(r.a), g.B = address<const void>(r.b), g.C = address<void>(r.c);
  g.M = p.M, g.N = p.N, g.K = p.K, g.lda = r.lda, g.ldb = r.ldb, g.ldc = r.ldc;
  g.dtype = p.dtype, g.layout = p.layout, g.accum = p.accum, g.grid_swizzle = r.grid_swizzle != 0;
  g.stream = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(r.stream));
  g.workspace = address<void>(r.workspace), g.workspace_bytes = static_cast<size_t>(r.workspace_bytes);
  g.split_k = p.split_k;
  Epilogue& e = g.epilogue;
  e.alpha = r.alpha, e.beta = r.beta;
  e.source = address<const void>(r.source), e.ld_source = r.ld_source, e.batch_stride_source = r.stride_source;
  e.bias = address<const void>(r.bias);
  e.bias_type = static_cast<BiasType>(r.bias_type), e.act = static_cast<Activation>(r.activation);
  g.batch = r.batch, g.batch_stride_a = r.stride_a, g.batch_stride_b = r.stride_b, g.batch_stride_c = r.stride_c;
  g.dtype_b = p.dtype_b, g.dtype_c = p.dtype_c;
  Scales& sc = g.scales;
  sc.mode = p.scale_mode, sc.a = address<const float>(r.scale_a), sc.b = address<const float>(r.scale_b);
  sc.a_stride = r.scale_a_stride, sc.a_stride_k = r.scale_a_stride_k;
  sc.b_stride = r.scale_b_stride, sc.b_stride_k = r.scale_b_stride_k;
  return g;
}

// _core.RunArgs: the struct as a Python object whose named attributes are
// its fields (PyMemberDef: read and written in place, no conversion layer),
// made with the positional arguments every call sets. A plain CPython type
// rather than a pybind11 class because it is made once per call: this costs
// 0.21 us against 0.42 us for a pybind11 instance, and run() reads the
// fields without converting anything.
struct PyRunArgs {
  PyObject_HEAD
  RunArgs r;
};

PyObject* run_args_new(PyTypeObject* type, PyObject* args, PyObject* kw) {
  static const char* names[] = {"plan",   "a",         "b",               "c",            "lda", "ldb", "ldc",
                                "stream", "workspace", "workspace_bytes", "grid_swizzle", nullptr};
  RunArgs r;
  int swizzle = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "LLLLLLLLLLp:RunArgs", const_cast<char**>(names), &r.plan, &r.a, &r.b,
                                   &r.c, &r.lda, &r.ldb, &r.ldc, &r.stream, &r.workspace, &r.workspace_bytes, &swizzle))
    return nullptr;
  r.grid_swizzle = static_cast<char>(swizzle);
  PyObject* self = type->tp_alloc(type, 0);
  if (self) reinterpret_cast<PyRunArgs*>(self)->r = r;
  return self;
}

PyObject* run_args_set_epilogue(PyObject* self, PyObject* args) {
  RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  RunArgs n = r;
  if (!PyArg_ParseTuple(args, "ffLLLLii:set_epilogue", &n.alpha, &n.beta, &n.source, &n.ld_source, &n.stride_source,
                        &n.bias, &n.bias_type, &n.activation))
    return nullptr;
  r = n;
  Py_RETURN_NONE;
}

PyObject* run_args_set_batch(PyObject* self, PyObject* args) {
  RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  RunArgs n = r;
  if (!PyArg_ParseTuple(args, "LLLL:set_batch", &n.batch, &n.stride_a, &n.stride_b, &n.stride_c)) return nullptr;
  r = n;
  Py_RETURN_NONE;
}

PyObject* run_args_set_scales(PyObject* self, PyObject* args) {
  RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  RunArgs n = r;
  if (!PyArg_ParseTuple(args, "LLLLLL:set_scales", &n.scale_a, &n.scale_b, &n.scale_a_stride, &n.scale_a_stride_k,
                        &n.scale_b_stride, &n.scale_b_stride_k))
    return nullptr;
  r = n;
  Py_RETURN_NONE;
}

// A sequence of (src, dst, rows, cols, batch, src_row, src_col, src_batch, dst_row, dst_col,
// dst_batch) tuples into `out` (at most `most`) -> how many, or -1 with a Python error set.
int parse_copies(PyObject* seq, MatrixCopy* out, int most, const char* what) {
  PyObject* fast = PySequence_Fast(seq, what);
  if (!fast) return -1;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  if (n > most) {
    Py_DECREF(fast);
    PyErr_Format(PyExc_ValueError, "tcgemm._core.RunArgs.set_staging: %s takes at most %d copies, got %zd", what,
                 most, n);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    long long src, dst;
    MatrixCopy m;
    static_assert(sizeof(long long) == sizeof(int64_t), "strides are 64-bit");
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "LLLLLLLLLLL:set_staging", &src, &dst, &m.rows, &m.cols,
                          &m.batch, &m.src_row, &m.src_col, &m.src_batch, &m.dst_row, &m.dst_col, &m.dst_batch)) {
      Py_DECREF(fast);
      return -1;
    }
    if (src < 0 || dst < 0) {
      Py_DECREF(fast);
      PyErr_SetString(PyExc_ValueError, "tcgemm._core.RunArgs.set_staging: a negative address");
      return -1;
    }
    m.src = address<const void>(src), m.dst = address<void>(dst);
    out[i] = m;
  }
  Py_DECREF(fast);
  return static_cast<int>(n);
}

PyObject* run_args_set_staging(PyObject* self, PyObject* args) {
  RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  PyObject *ins, *outs;
  if (!PyArg_ParseTuple(args, "OO:set_staging", &ins, &outs)) return nullptr;
  RunArgs n = r;
  if ((n.n_stage_in = parse_copies(ins, n.stage_in, kMaxMatrixCopies, "copies_in")) < 0) return nullptr;
  if ((n.n_stage_out = parse_copies(outs, n.stage_out, 1, "copies_out")) < 0) return nullptr;
  r = n;
  Py_RETURN_NONE;
}

// (copies_in, copies_out) as set_staging took them: for tests and repr.
PyObject* copies_tuple(const MatrixCopy* c, int n) {
  PyObject* t = PyTuple_New(n);
  for (int i = 0; t && i < n; ++i) {
    const MatrixCopy& m = c[i];
    PyObject* e = Py_BuildValue("(LLLLLLLLLLL)", static_cast<long long>(reinterpret_cast<uintptr_t>(m.src)),
                                static_cast<long long>(reinterpret_cast<uintptr_t>(m.dst)), m.rows, m.cols, m.batch,
                                m.src_row, m.src_col, m.src_batch, m.dst_row, m.dst_col, m.dst_batch);
    if (!e) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, i, e);
  }
  return t;
}

PyObject* run_args_staging(PyObject* self, PyObject*) {
  const RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  PyObject* ins = copies_tuple(r.stage_in, r.n_stage_in);
  PyObject* outs = ins ? copies_tuple(r.stage_out, r.n_stage_out) : nullptr;
  if (!outs) {
    Py_XDECREF(ins);
    return nullptr;
  }
  return Py_BuildValue("(NN)", ins, outs);
}

PyObject* run_args_repr(PyObject* self) {
  const RunArgs& r = reinterpret_cast<PyRunArgs*>(self)->r;
  const std::string s = "RunArgs(plan=" + std::to_string(r.plan) + ", a=" + std::to_string(r.a) +
                        ", b=" + std::to_string(r.b) + ", c=" + std::to_string(r.c) + ", lda=" + std::to_string(r.lda) +
                        ", ldb=" + std::to_string(r.ldb) + ", ldc=" + std::to_string(r.ldc) +
                        ", stream=" + std::to_string(r.stream) + ", workspace_bytes=" + std::to_string(r.workspace_bytes) +
                        ", batch=" + std::to_string(r.batch) + ")";
  return PyUnicode_FromString(s.c_str());
}

#define TCGEMM_MEMBER(name, type) \
  PyMemberDef { const_cast<char*>(#name), type, static_cast<Py_ssize_t>(offsetof(PyRunArgs, r) + offsetof(RunArgs, name)), 0, nullptr }

PyTypeObject* run_args_type() {
  static PyMemberDef members[] = {
      TCGEMM_MEMBER(plan, T_LONGLONG),       TCGEMM_MEMBER(a, T_LONGLONG),
      TCGEMM_MEMBER(b, T_LONGLONG),          TCGEMM_MEMBER(c, T_LONGLONG),
      TCGEMM_MEMBER(lda, T_LONGLONG),         TCGEMM_MEMBER(ldb, T_LONGLONG),
      TCGEMM_MEMBER(ldc, T_LONGLONG),         TCGEMM_MEMBER(stream, T_LONGLONG),
      TCGEMM_MEMBER(workspace, T_LONGLONG),  TCGEMM_MEMBER(workspace_bytes, T_LONGLONG),
      TCGEMM_MEMBER(grid_swizzle, T_BOOL),    TCGEMM_MEMBER(alpha, T_FLOAT),
      TCGEMM_MEMBER(beta, T_FLOAT),           TCGEMM_MEMBER(source, T_LONGLONG),
      TCGEMM_MEMBER(ld_source, T_LONGLONG),   TCGEMM_MEMBER(stride_source, T_LONGLONG),
      TCGEMM_MEMBER(bias, T_LONGLONG),       TCGEMM_MEMBER(bias_type, T_INT),
      TCGEMM_MEMBER(activation, T_INT),       TCGEMM_MEMBER(batch, T_LONGLONG),
      TCGEMM_MEMBER(stride_a, T_LONGLONG),    TCGEMM_MEMBER(stride_b, T_LONGLONG),
      TCGEMM_MEMBER(stride_c, T_LONGLONG),    TCGEMM_MEMBER(scale_a, T_LONGLONG),
      TCGEMM_MEMBER(scale_b, T_LONGLONG),     TCGEMM_MEMBER(scale_a_stride, T_LONGLONG),
      TCGEMM_MEMBER(scale_a_stride_k, T_LONGLONG), TCGEMM_MEMBER(scale_b_stride, T_LONGLONG),
      TCGEMM_MEMBER(scale_b_stride_k, T_LONGLONG), PyMemberDef{nullptr, 0, 0, 0, nullptr}};
  static PyMethodDef methods[] = {
      {"set_epilogue", run_args_set_epilogue, METH_VARARGS,
       "set_epilogue(alpha, beta, source, ld_source, stride_source, bias, bias_type, activation)"},
      {"set_batch", run_args_set_batch, METH_VARARGS, "set_batch(batch, stride_a, stride_b, stride_c)"},
      {"set_scales", run_args_set_scales, METH_VARARGS,
       "set_scales(scale_a, scale_b, scale_a_stride, scale_a_stride_k, scale_b_stride, scale_b_stride_k)"},
      {"set_staging", run_args_set_staging, METH_VARARGS,
       "set_staging(copies_in, copies_out): copies (src, dst, rows, cols, batch, src_row, src_col, src_batch, "
       "dst_row, dst_col, dst_batch) of 2-byte elements, element strides, made in one launch before the kernel "
       "(at most 4) and one after it (at most 1)"},
      {"staging", run_args_staging, METH_NOARGS, "staging() -> (copies_in, copies_out) as set_staging took them"},
      {nullptr, nullptr, 0, nullptr}};
  static PyTypeObject type = [] {
    PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
    t.tp_name = "tcgemm._core.RunArgs";
    t.tp_basicsize = sizeof(PyRunArgs);
    t.tp_flags = Py_TPFLAGS_DEFAULT;
    t.tp_doc = "RunArgs(plan, a, b, c, lda, ldb, ldc, stream, workspace, workspace_bytes, grid_swizzle): one planned "
               "launch, the argument of run(); the epilogue and batch fields default to the plain, single-matrix call.";
    t.tp_new = run_args_new;
    t.tp_repr = run_args_repr;
    t.tp_members = members;
    t.tp_methods = methods;
    return t;
  }();
  return &type;
}

#undef TCGEMM_MEMBER

struct DeviceGuard;
void launch_planned(const Plan& p, const GemmArgs& g);

// Makes `device` current for a scope (-1: leave it), as torch's device guard.
struct DeviceGuard {
  int prev = -1;
  Status status;
  explicit DeviceGuard(int device) {
    if (device < 0) return;
    int cur = -1;
    status = cuda_status(cudaGetDevice(&cur), "cudaGetDevice");
    if (status.ok() && cur != device) {
      status = set_device(device);
      if (status.ok()) prev = cur;
    }
  }
  ~DeviceGuard() {
    if (prev >= 0) cudaSetDevice(prev);
  }
};

// run_plan on the plan's device (whatever is current), without the GIL.
void launch_planned(const Plan& p, const GemmArgs& g) {
  const DeviceGuard on(p.device);
  check(on.status);
  Status s;
  {
    py::gil_scoped_release nogil;
    s = run_plan(p, g);
  }
  check(s);
}

// The same with the staging copies around the kernel, all on its stream.
void launch_planned(const Plan& p, const GemmArgs& g, const RunArgs& r) {
  const DeviceGuard on(p.device);
  check(on.status);
  Status s;
  {
    py::gil_scoped_release nogil;
    s = copy_matrices(r.stage_in, r.n_stage_in, g.stream);
    if (s) s = run_plan(p, g);
    if (s) s = copy_matrices(r.stage_out, r.n_stage_out, g.stream);
  }
  check(s);
}

// Page-locked host memory exposed through the buffer protocol (np.frombuffer
// keeps it alive); freed when the last view goes.
struct PinnedBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { pinned_free(ptr); }
};

// _core.HostGemmArgs: one NumPy-to-NumPy call of the host pipeline, the
// argument of host_gemm(). Named fields, as RunArgs, but a pybind11 class:
// five of its fields are NumPy arrays the object must keep alive (a plain
// CPython type would need its own reference counting and deallocation for
// them), and a host call takes milliseconds, so the 3 us that building one
// by keyword costs (every field through its checking setter) does not show.
// Each field's setter checks the type and names the field in its TypeError;
// host_gemm() checks the values (shapes, dtypes, enum ranges) when it runs,
// as run() does for RunArgs.
struct HostGemmArgs {
  std::string kernel = "auto";
  // 2-D arrays of 2-byte elements (d: the M x N output), and the epilogue's c
  // (M x N) and bias (N values); None until set. (Made with the GIL held:
  // only ever by the Python constructor.)
  py::object a = py::none(), b = py::none(), d = py::none(), source = py::none(), bias = py::none();
  int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::f16;
  Layout layout = Layout::NN;
  Accum accum = Accum::f32;
  bool grid_swizzle = true;
  int split_k = 0;
  float alpha = 1.0f, beta = 0.0f;
  int bias_type = static_cast<int>(BiasType::f32);
  int activation = static_cast<int>(Activation::none);
  uintptr_t stream = 0;
  int64_t panel_rows = 0;  // 0: chosen from the staging slot size
};

// One field of HostGemmArgs: its name, and how it is read and written from Python.
struct HostField {
  const char* name;
  py::object (*get)(const HostGemmArgs&);
  void (*set)(HostGemmArgs&, py::handle);
};

[[noreturn]] void wrong_field(const char* name, const char* want, py::handle v) {
  throw py::type_error(std::string("tcgemm._core.HostGemmArgs: ") + name + " must be " + want + ", got " +
                       Py_TYPE(v.ptr())->tp_name);
}

// A scalar field through pybind11's own conversion (an int for an integer, a
// float or int for a float, a DType for dtype, ...); a failed conversion is a
// TypeError that names the field, not pybind11's RuntimeError.
template <class T>
void set_scalar(T& field, py::handle v, const char* name, const char* want) {
  // pybind11 converts None to false, and to a null reference for an enum;
  // neither is a value of any field.
  if (v.is_none()) wrong_field(name, want, v);
  // An integer field takes what has __index__ (Python and NumPy integers), no float.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (!PyIndex_Check(v.ptr())) wrong_field(name, want, v);
  try {
    field = py::cast<T>(v);
  } catch (const py::cast_error&) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)  // an integer, but not one the field holds
      throw py::value_error(std::string("tcgemm._core.HostGemmArgs: ") + name + " = " + py::str(v).cast<std::string>() +
                            " is out of range (" + want + ")");
    wrong_field(name, want, v);
  }
}

void set_array(py::object& field, py::handle v, const char* name, bool optional) {
  if (optional && v.is_none()) field = py::none();
  else if (py::isinstance<py::array>(v)) field = py::reinterpret_borrow<py::object>(v);
  else wrong_field(name, optional ? "a NumPy array or None" : "a NumPy array", v);
}

#define TCGEMM_SCALAR(name, want)                                                                           \
  HostField {                                                                                               \
    #name, [](const HostGemmArgs& h) -> py::object { return py::cast(h.name); },                            \
        [](HostGemmArgs& h, py::handle v) { set_scalar(h.name, v, #name, want); }                           \
  }
#define TCGEMM_ARRAY(name, optional)                                                                        \
  HostField {                                                                                               \
    #name, [](const HostGemmArgs& h) -> py::object { return h.name; },                                      \
        [](HostGemmArgs& h, py::handle v) { set_array(h.name, v, #name, optional); }                        \
  }

const std::vector<HostField>& host_fields() {
  static const std::vector<HostField> fields = {
      TCGEMM_SCALAR(kernel, "a str"),
      TCGEMM_ARRAY(a, false),
      TCGEMM_ARRAY(b, false),
      TCGEMM_ARRAY(d, false),
      TCGEMM_ARRAY(source, true),
      TCGEMM_ARRAY(bias, true),
      TCGEMM_SCALAR(M, "an integer"),
      TCGEMM_SCALAR(N, "an integer"),
      TCGEMM_SCALAR(K, "an integer"),
      TCGEMM_SCALAR(dtype, "a tcgemm._core.DType"),
      TCGEMM_SCALAR(layout, "a tcgemm._core.Layout"),
      TCGEMM_SCALAR(accum, "a tcgemm._core.Accum"),
      TCGEMM_SCALAR(grid_swizzle, "a bool"),
      TCGEMM_SCALAR(split_k, "an integer"),
      TCGEMM_SCALAR(alpha, "a float"),
      TCGEMM_SCALAR(beta, "a float"),
      TCGEMM_SCALAR(bias_type, "an integer (BiasType's value)"),
      TCGEMM_SCALAR(activation, "an integer (Activation's value)"),
      TCGEMM_SCALAR(stream, "a stream handle, a non-negative integer"),
      TCGEMM_SCALAR(panel_rows, "an integer"),
  };
  return fields;
}

#undef TCGEMM_SCALAR
#undef TCGEMM_ARRAY

// HostGemmArgs -> HostGemm, with the checks the C++ pipeline cannot make (it
// sees pointers and pitches, not arrays), then the pipeline without the GIL.
std::string run_host_gemm(const HostGemmArgs& args) {
  // Owned here for the whole call: another thread may reassign the fields
  // while the pipeline runs without the GIL.
  const py::object a_obj = args.a, b_obj = args.b, d_obj = args.d, source_obj = args.source, bias_obj = args.bias;
  for (const auto& [what, o] : {std::pair<const char*, const py::object&>{"a", a_obj}, {"b", b_obj}, {"d", d_obj}})
    if (o.is_none()) throw py::value_error(std::string("host_gemm: ") + what + " is not set");
  const int64_t N = args.N;
  const int bias_type = args.bias_type, act = args.activation;
  HostGemm h;
  auto matrix = [](const py::array& x, const char* what) {
    if (x.ndim() != 2 || x.itemsize() != 2) throw py::value_error(std::string(what) + ": a 2-D 2-byte array");
    if (x.shape(1) > 1 && x.strides(1) != 2) throw py::value_error(std::string(what) + ": rows must be contiguous");
    HostMatrix m;
    m.data = x.data(), m.rows = x.shape(0), m.cols = x.shape(1);
    m.pitch = x.shape(0) > 1 ? x.strides(0) : x.shape(1) * 2;
    if (m.pitch < m.cols * 2) throw py::value_error(std::string(what) + ": overlapping rows");
    return m;
  };
  h.a = matrix(py::reinterpret_borrow<py::array>(a_obj), "a");
  h.b = matrix(py::reinterpret_borrow<py::array>(b_obj), "b");
  py::array d = py::reinterpret_borrow<py::array>(d_obj);
  const HostMatrix dm = matrix(d, "d");
  if (!d.writeable()) throw py::value_error("d: read-only");
  h.d = d.mutable_data(), h.d_pitch = dm.pitch;
  if (!source_obj.is_none()) h.source = matrix(py::reinterpret_borrow<py::array>(source_obj), "source");
  if (!bias_obj.is_none()) {
    const py::array bias_arr = py::reinterpret_borrow<py::array>(bias_obj);
    const int64_t want = bias_type == 2 ? 4 : 2;
    if (bias_arr.ndim() != 1 || bias_arr.shape(0) != N || bias_arr.itemsize() != want ||
        !(bias_arr.flags() & py::array::c_style))
      throw py::value_error("bias: N contiguous values of its bias type");
    h.bias = bias_arr.data();
  }
  if (dm.rows != args.M || dm.cols != N) throw py::value_error("d: shape is not M x N");
  GemmArgs& g = h.shape;
  g.M = args.M, g.N = N, g.K = args.K, g.dtype = args.dtype, g.layout = args.layout;
  g.accum = args.accum, g.grid_swizzle = args.grid_swizzle, g.split_k = args.split_k;
  if (bias_type < 0 || bias_type > 2) throw py::value_error("host_gemm: bad enum: bias_type must be 0, 1 or 2");
  if (act < 0 || act > 3) throw py::value_error("host_gemm: bad enum: activation must be 0 .. 3");
  g.epilogue.alpha = args.alpha, g.epilogue.beta = args.beta;
  g.epilogue.bias_type = static_cast<BiasType>(bias_type);
  g.epilogue.act = static_cast<Activation>(act);
  // plain() must see the bias too: any pointer stands for it in the plan.
  g.epilogue.bias = h.bias;
  h.kernel = args.kernel, h.stream = as_stream(args.stream), h.panel_rows = args.panel_rows;
  std::string used;
  Status s;
  {
    py::gil_scoped_release nogil;
    s = host_gemm(h, &used);
  }
  check(s);
  return used;
}

std::string host_args_repr(const HostGemmArgs& h) {
  auto shape = [](const py::object& x) -> std::string {
    if (x.is_none()) return "None";
    return py::str(x.attr("shape")).cast<std::string>();
  };
  return "HostGemmArgs(kernel='" + h.kernel + "', a=" + shape(h.a) + ", b=" + shape(h.b) + ", d=" + shape(h.d) +
         ", M=" + std::to_string(h.M) + ", N=" + std::to_string(h.N) + ", K=" + std::to_string(h.K) +
         ", stream=" + std::to_string(h.stream) + ")";
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tcgemm C++ core (use the tcgemm package, not this module directly)";

  py::enum_<DType>(m, "DType")
      .value("float16", DType::f16)
      .value("bfloat16", DType::bf16)
      .value("float8_e4m3fn", DType::e4m3)
      .value("float8_e5m2", DType::e5m2)
      .value("float32", DType::f32);
  py::enum_<ScaleMode>(m, "ScaleMode")
      .value("none", ScaleMode::none)
      .value("tensor", ScaleMode::tensor)
      .value("rowwise", ScaleMode::rowwise)
      .value("block", ScaleMode::block);
  py::enum_<Layout>(m, "Layout").value("NN", Layout::NN).value("TN", Layout::TN);
  py::enum_<Accum>(m, "Accum").value("f32", Accum::f32).value("f16", Accum::f16).value("fast", Accum::fast);
  py::enum_<Activation>(m, "Activation")
      .value("none", Activation::none)
      .value("relu", Activation::relu)
      .value("gelu", Activation::gelu)
      .value("silu", Activation::silu);
  py::enum_<BiasType>(m, "BiasType").value("float16", BiasType::f16).value("bfloat16", BiasType::bf16).value("float32", BiasType::f32);

  py::class_<DeviceBuffer>(m, "DeviceBuffer")
      .def(py::init([](int64_t rows, int64_t cols, DType dtype, uintptr_t stream, const std::string& fill) {
             const DeviceBuffer::Fill f = fill == "none"      ? DeviceBuffer::Fill::none
                                          : fill == "padding" ? DeviceBuffer::Fill::padding
                                                              : DeviceBuffer::Fill::all;
             if (fill != "none" && fill != "padding" && fill != "all")
               throw py::value_error("DeviceBuffer: fill must be 'none', 'padding' or 'all'");
             auto b = std::make_unique<DeviceBuffer>();
             check(DeviceBuffer::allocate(rows, cols, dtype, b.get(), as_stream(stream), f));
             return b;
           }),
           py::arg("rows"), py::arg("cols"), py::arg("dtype"), py::arg("stream") = 0, py::arg("fill") = "all",
           "Memory from tcgemm's stream-ordered pool, allocated (and later freed) on `stream`.")
      .def_property_readonly("rows", &DeviceBuffer::rows)
      .def_property_readonly("cols", &DeviceBuffer::cols)
      .def_property_readonly("pitch", &DeviceBuffer::pitch, "row pitch in elements")
      .def_property_readonly("dtype", &DeviceBuffer::dtype)
      .def_property_readonly("device", &DeviceBuffer::device)
      .def_property_readonly("valid", &DeviceBuffer::valid)
      .def_property_readonly("owns", &DeviceBuffer::owns, "False for a view of another library's memory")
      .def_property_readonly("ptr", [](const DeviceBuffer& b) { return reinterpret_cast<uintptr_t>(b.data()); })
      .def_property(
          "stream", [](const DeviceBuffer& b) { return reinterpret_cast<uintptr_t>(b.stream()); },
          [](DeviceBuffer& b, uintptr_t s) { b.set_stream(as_stream(s)); }, "the stream its free is ordered on")
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
      py::list dt, out_dt, lay, acc;
      for (DType t : {DType::f16, DType::bf16, DType::e4m3, DType::e5m2})
        if (k.dtypes & bit(t)) dt.append(to_string(t));
      for (DType t : {DType::f16, DType::bf16, DType::f32})
        if (k.out_dtypes & bit(t)) out_dt.append(to_string(t));
      for (Layout l : {Layout::NN, Layout::TN})
        if (k.layouts & bit(l)) lay.append(to_string(l));
      for (Accum a : {Accum::f32, Accum::f16, Accum::fast})
        if (k.accums & bit(a)) acc.append(to_string(a));
      d["dtypes"] = dt, d["layouts"] = lay, d["accumulators"] = acc;
      d["out_dtypes"] = k.out_dtypes ? out_dt : dt;
      d["tile"] = py::make_tuple(k.tile_m, k.tile_n, k.tile_k);
      d["stages"] = k.stages;
      py::list feats;
      if (k.features & kEpilogue) feats.append("epilogue");
      if (k.features & kBatched) feats.append("batched");
      if (k.features & kSplitK) feats.append("split_k");
      if (k.features & kScaledTensor) feats.append("scale_tensor");
      if (k.features & kScaledRow) feats.append("scale_rowwise");
      if (k.features & kScaledBlock) feats.append("scale_block");
      if (k.features & kAnyRows) feats.append("any_rows");
      d["features"] = feats;
      d["built"] = k.launch != nullptr;
      d["runnable"] = r.ok();
      d["why_not"] = r.ok() ? std::string() : r.message;
      out.append(d);
    }
    return out;
  });

  // ---- the planned call path: plan once per shape, then run = checks + launch.
  m.def(
      "plan",
      [](const std::string& kernel, int64_t M, int64_t N, int64_t K, DType dtype, Layout layout, Accum accum,
         bool plain, int64_t batch, int split_k, int device, std::optional<DType> dtype_b, std::optional<DType> dtype_c,
         ScaleMode scale_mode, bool b_ragged) {
        const DeviceGuard on(device);
        check(on.status);
        GemmArgs g;
        g.M = M, g.N = N, g.K = K, g.dtype = dtype, g.layout = layout, g.accum = accum, g.batch = batch;
        g.split_k = split_k, g.b_ragged = b_ragged;
        if (dtype_b) g.dtype_b = *dtype_b;
        if (dtype_c) g.dtype_c = *dtype_c;
        g.scales.mode = scale_mode;
        if (!plain) g.epilogue.alpha = 2.0f;  // any non-plain epilogue: only plain() is part of the plan
        const Plan* p = nullptr;
        Status s;
        {
          py::gil_scoped_release nogil;
          s = plan_gemm(g, kernel, &p);
        }
        check(s);
        issued_plans().insert(p);
        return py::make_tuple(reinterpret_cast<uintptr_t>(p), std::string(p->kernel->name), p->workspace_bytes);
      },
      py::arg("kernel"), py::arg("M"), py::arg("N"), py::arg("K"), py::arg("dtype"), py::arg("layout"),
      py::arg("accum"), py::arg("plain"), py::arg("batch"), py::arg("split_k"), py::arg("device") = -1,
      py::kw_only(), py::arg("dtype_b") = py::none(), py::arg("dtype_c") = py::none(),
      py::arg("scale_mode") = ScaleMode::none, py::arg("b_ragged") = false,
      "-> (plan handle, kernel name, workspace bytes) for a shape on the current device (cached). b_ragged: "
      "B's rows are off the 16-byte grid (auto may then pick a kernel that reads rows anywhere).");

  // The per-call path: Python builds one RunArgs per call -- the fields every
  // call sets, then set_epilogue / set_batch where the call has them -- and
  // run() checks it against its plan and launches.
  if (PyType_Ready(run_args_type()) < 0) throw py::error_already_set();
  m.add_object("RunArgs", py::handle(reinterpret_cast<PyObject*>(run_args_type())));
  m.def(
      "run",
      [](py::handle args) {
        if (Py_TYPE(args.ptr()) != run_args_type()) throw py::type_error("tcgemm._core.run takes one RunArgs");
        const RunArgs& r = reinterpret_cast<PyRunArgs*>(args.ptr())->r;
        check_fields(r);
        const Plan* p = planned(static_cast<uintptr_t>(r.plan));  // (a negative handle is no plan's either)
        const GemmArgs g = planned_args(*p, r);
        if (r.n_stage_in | r.n_stage_out)
          launch_planned(*p, g, r);
        else
          launch_planned(*p, g);
      },
      "Checks the RunArgs against its plan's shape and device, then enqueues the kernel on its stream.");

  m.def(
      "time_tensor_map_encode",
      [](int n) {
        // Host cost of one cuTensorMapEncodeTiled (a 4096 x 4096 fp16 operand,
        // 64 x 128 boxes, 128B swizzle): what a launch pays per map.
        tma::TensorMapParams p;
        check(tma::matrix_2d(reinterpret_cast<const void*>(uintptr_t{1} << 20), DType::f16, 4096, 4096, 4096, 128, 64,
                             tma::Swizzle::b128, &p));
        CUtensorMap m;
        check(tma::encode(p, &m));
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) check(tma::encode(p, &m));
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::nano>(t1 - t0).count() / (n > 0 ? n : 1);
      },
      py::arg("n") = 1000, "ns per tensor-map encode on this machine");
  m.def("pool_stats", [] {
    size_t reserved = 0, used = 0;
    check(workspace_stats(&reserved, &used));
    py::dict d;
    d["reserved"] = reserved, d["used"] = used;
    return d;
  }, "bytes the current device's tcgemm pool holds from the driver, and of those in use");
  m.def("copy_bytes", [](uintptr_t dst, uintptr_t src, size_t bytes, uintptr_t stream) {
    Status s;
    {
      py::gil_scoped_release nogil;
      s = cuda_status(cudaMemcpyAsync(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes,
                                      cudaMemcpyDefault, as_stream(stream)), "cudaMemcpyAsync");
      if (s.ok()) s = cuda_status(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize");
    }
    check(s);
  }, "cudaMemcpy (any direction, unified addressing) and wait: the benchmark's bandwidth probe");

  m.def(
      "capture_status",
      [](uintptr_t stream) {
        cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        const cudaError_t e = cudaStreamIsCapturing(as_stream(stream), &st);
        if (e == cudaErrorStreamCaptureImplicit) {
          cudaGetLastError();
          return std::string("implicit");  // the legacy stream while another stream captures
        }
        if (e != cudaSuccess) check(cuda_status(e, "cudaStreamIsCapturing"));
        return std::string(st == cudaStreamCaptureStatusActive        ? "active"
                           : st == cudaStreamCaptureStatusInvalidated ? "invalidated"
                                                                      : "none");
      },
      py::arg("stream"), "'none', 'active', 'invalidated', or 'implicit' (legacy stream during a capture).");

  // ---- host memory: pinned arrays, the staging ring, the host GEMM pipeline.
  py::class_<PinnedBuffer>(m, "PinnedBuffer", py::buffer_protocol())
      .def(py::init([](size_t bytes) {
        auto b = std::make_unique<PinnedBuffer>();
        check(pinned_alloc(bytes, &b->ptr));
        b->bytes = bytes;
        return b;
      }))
      .def_property_readonly("ptr", [](const PinnedBuffer& b) { return reinterpret_cast<uintptr_t>(b.ptr); })
      .def_buffer([](PinnedBuffer& b) {
        return py::buffer_info(b.ptr, 1, py::format_descriptor<uint8_t>::format(), 1, {static_cast<py::ssize_t>(b.bytes)},
                               {static_cast<py::ssize_t>(1)});
      });
  m.def("is_pinned", [](uintptr_t p, size_t bytes) { return is_pinned(reinterpret_cast<const void*>(p), bytes); });
  m.def("set_staging_limit", &set_staging_limit, py::arg("bytes"));
  m.def("staging_limit", &staging_limit);
  m.def("staging_held", &staging_held);
  m.def("release_memory", [] {
    Status s;
    {
      py::gil_scoped_release nogil;
      s = release_host_staging();
      // Frees queued on streams complete first, so that what they return can be trimmed too.
      if (s.ok() && device_count() > 0) s = cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      if (s.ok() && device_count() > 0) s = workspace_trim();
    }
    check(s);
  });
  // The NumPy path: Python builds one HostGemmArgs per call, by keyword, and
  // host_gemm() checks it and runs the panel pipeline.
  py::class_<HostGemmArgs> host_args(m, "HostGemmArgs",
                                     "One NumPy-to-NumPy GEMM through the host pipeline, the argument of host_gemm(): "
                                     "HostGemmArgs(**fields), every field by name; those not given keep their "
                                     "defaults (kernel 'auto', the plain epilogue, stream 0, panel_rows 0).");
  host_args.def(py::init([](const py::kwargs& kw) {
    HostGemmArgs h;
    for (const auto& item : kw) {
      const std::string k = py::cast<std::string>(item.first);
      const auto& fs = host_fields();
      const auto f = std::find_if(fs.begin(), fs.end(), [&](const HostField& x) { return k == x.name; });
      if (f == fs.end()) throw py::type_error("tcgemm._core.HostGemmArgs has no field '" + k + "'");
      f->set(h, item.second);
    }
    return h;
  }));
  for (const HostField& f : host_fields())
    host_args.def_property(
        f.name, [get = f.get](const HostGemmArgs& h) { return get(h); },
        [set = f.set](HostGemmArgs& h, py::handle v) { set(h, v); });
  host_args.def("__repr__", &host_args_repr);
  m.def(
      "host_gemm",
      [](py::handle args) {
        if (!py::isinstance<HostGemmArgs>(args)) throw py::type_error("tcgemm._core.host_gemm takes one HostGemmArgs");
        return run_host_gemm(args.cast<const HostGemmArgs&>());
      },
      "D = epilogue(A B) on host arrays through the panel pipeline (tcgemm/host.h); returns the kernel used.");

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
    const std::string commit = source_commit();
    o["commit"] = commit.empty() ? py::object(py::none()) : py::object(py::str(commit));
    const int dirty = source_dirty();
    o["commit_dirty"] = dirty < 0 ? py::object(py::none()) : py::object(py::bool_(dirty != 0));
    return o;
  });
}
