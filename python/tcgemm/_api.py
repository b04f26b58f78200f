"""The NumPy-facing API: matmul, DeviceArray, to_device, kernels.

NumPy-level policy lives here (dtypes, contiguity, which layout a stride
pattern means, empty shapes); shapes, pointers and kernels are checked again,
and run, by the C++ library behind ``tcgemm._core``.
"""
from __future__ import annotations

import numpy as np
import ml_dtypes

from . import _core

__all__ = ["matmul", "DeviceArray", "to_device", "from_dlpack", "kernels", "build_info", "device_info"]

float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
_DTYPES = {float16: _core.DType.float16, bfloat16: _core.DType.bfloat16}
_ACCUM = {"f32": _core.Accum.f32, "f16": _core.Accum.f16}


def _stream_handle(stream) -> int:
    """A CUDA stream as the integer handle the C++ core takes: None or 0 is the
    default stream; an int is a cudaStream_t; an object with .cuda_stream
    (torch) or .ptr (cupy) is asked for it."""
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            stream = getattr(stream, attr)
            break
    if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)) or stream < 0:
        raise TypeError(f"tcgemm: stream must be an int handle or an object with .cuda_stream/.ptr, got {stream!r}")
    return int(stream)


class _on_device:
    """Make `index` the current CUDA device inside a with-block (None: leave it)."""

    def __init__(self, index):
        if index is not None and (isinstance(index, bool) or not isinstance(index, (int, np.integer))):
            raise TypeError(f"tcgemm: device must be an int index, got {index!r}")
        self.index, self.prev = index, None

    def __enter__(self):
        if self.index is not None:
            self.prev = _core.get_device()
            _core.set_device(int(self.index))  # ValueError for a device that does not exist
        return self

    def __exit__(self, *exc):
        if self.prev is not None:
            _core.set_device(self.prev)


def _check_dtype(dt: np.dtype, what: str) -> np.dtype:
    dt = np.dtype(dt)
    if dt not in _DTYPES:
        raise TypeError(
            f"tcgemm: {what} has dtype {dt}; tcgemm takes float16 or bfloat16 "
            f"(ml_dtypes.bfloat16) -- convert with .astype(np.float16)"
        )
    return dt


def _check_2d(shape, what: str) -> None:
    if len(shape) != 2:
        raise ValueError(f"tcgemm: {what} must be 2-D, got {len(shape)}-D with shape {tuple(shape)}")


class DeviceArray:
    """A 2-D float16/bfloat16 matrix in GPU memory, owned by tcgemm.

    Made by :func:`to_device` (or :meth:`DeviceArray.empty`); returned by
    :func:`matmul` when an input is a DeviceArray. Rows are stored with a
    library-chosen pitch (16-byte aligned). ``a.T`` is a transposed view of
    the same memory: passing ``w.T`` as ``b`` runs the TN (K-major) kernel
    without a copy. Free explicitly with :meth:`free` or a ``with`` block;
    otherwise memory is released when the last view is garbage-collected.
    """

    __slots__ = ("_buf", "_transposed", "__weakref__")

    def __init__(self, _buf, _transposed: bool = False):
        if not isinstance(_buf, _core.DeviceBuffer):
            raise TypeError("use tcgemm.to_device(array) or DeviceArray.empty(shape, dtype)")
        self._buf = _buf
        self._transposed = _transposed

    @classmethod
    def empty(cls, shape, dtype=np.float16, device=None) -> "DeviceArray":
        """A zero-filled device matrix of ``shape`` on ``device`` (default: the current one)."""
        shape = tuple(int(s) for s in shape)
        _check_2d(shape, "shape")
        if min(shape) < 0:
            raise ValueError(f"tcgemm: negative dimension in shape {shape}")
        dt = _check_dtype(dtype, "dtype")
        with _on_device(device):
            return cls(_core.DeviceBuffer(shape[0], shape[1], _DTYPES[dt]))

    # -- the storage ------------------------------------------------------
    def _live(self):
        if not self._buf.valid:
            raise ValueError("tcgemm: DeviceArray used after free()")
        return self._buf

    @property
    def shape(self) -> tuple:
        b = self._buf
        return (b.cols, b.rows) if self._transposed else (b.rows, b.cols)

    @property
    def dtype(self) -> np.dtype:
        return float16 if self._buf.dtype == _core.DType.float16 else bfloat16

    @property
    def ndim(self) -> int:
        return 2

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def device(self) -> int:
        return self._buf.device

    @property
    def pitch(self) -> int:
        """Elements between consecutive stored rows."""
        return self._buf.pitch

    @property
    def ptr(self) -> int:
        return self._live().ptr

    @property
    def is_transposed(self) -> bool:
        """True for a ``.T`` view: the memory holds the transpose row-major."""
        return self._transposed

    @property
    def T(self) -> "DeviceArray":
        return DeviceArray(self._buf, not self._transposed)

    @property
    def freed(self) -> bool:
        return not self._buf.valid

    # -- host transfers ---------------------------------------------------
    def numpy(self, stream=None) -> np.ndarray:
        """Copy to a new NumPy array. The copy is ordered after earlier work on
        `stream` (default: the default stream) and waits for it."""
        buf = self._live()
        host = np.empty((buf.rows, buf.cols), dtype=self.dtype)
        buf.download(host, _stream_handle(stream))
        return host.T if self._transposed else host

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def free(self) -> None:
        """Release the device memory now (all views of it become unusable)."""
        self._buf.free()

    def __enter__(self) -> "DeviceArray":
        return self

    def __exit__(self, *exc) -> None:
        self.free()

    def __repr__(self) -> str:
        state = "freed" if self.freed else f"device={self.device}"
        t = ", transposed view" if self._transposed else ""
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype.name}, {state}{t})"

    @property
    def __cuda_array_interface__(self) -> dict:
        if self.dtype != float16:
            # The interface has no bfloat16 type string that consumers agree on.
            raise AttributeError("__cuda_array_interface__ is only defined for float16 DeviceArrays")
        buf = self._live()
        strides = (buf.pitch * 2, 2)
        shape = (buf.rows, buf.cols)
        if self._transposed:
            shape, strides = shape[::-1], strides[::-1]
        # tcgemm works on the legacy default stream unless told otherwise (1 = that stream)
        return {"shape": shape, "strides": strides, "typestr": "<f2", "data": (buf.ptr, False), "version": 3,
                "stream": 1}

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """Zero-copy export (DLPack): ``torch.from_dlpack(d)``, ``cupy.from_dlpack(d)``.
        The consumer's view keeps this memory alive, even past :meth:`free` of this object."""
        if copy:
            raise BufferError("tcgemm: DeviceArray.__dlpack__ exports views only (copy=True unsupported)")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("tcgemm: cannot export to another device")
        if stream is not None and stream != -1:
            # Order the consumer after tcgemm's pending work on the default stream.
            _core.stream_synchronize(0)
        return _core.buffer_to_dlpack(self._live(), self._transposed)

    def __dlpack_device__(self):
        return (2, self.device)  # (kDLCUDA, device id)


def from_dlpack(x, stream=None) -> DeviceArray:
    """View a CUDA tensor of another library (torch, cupy, jax...) as a DeviceArray.

    No copy when one stride is 1 and the other a multiple of 8 elements with a
    16-byte aligned start (what the kernels need); otherwise a padded device
    copy is made (``result.is_view`` says which). The view keeps the source alive.
    """
    if isinstance(x, DeviceArray):
        return x
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"tcgemm: {type(x).__name__} does not implement __dlpack__")
    try:
        cap = x.__dlpack__(stream=_stream_handle(stream) or None)
    except TypeError:
        cap = x.__dlpack__()
    buf, transposed, _copied = _core.buffer_from_dlpack(cap, _stream_handle(stream))
    return DeviceArray(buf, transposed)


def _foreign_cuda(x) -> bool:
    if isinstance(x, (np.ndarray, DeviceArray)) or not hasattr(x, "__dlpack__"):
        return False
    try:
        return x.__dlpack_device__()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
    except Exception:
        return False


def _current_stream_of(x) -> int:
    """The stream the caller's framework would run on now (0 if unknown)."""
    mod = type(x).__module__.split(".")[0]
    try:
        if mod == "torch":
            import torch
            return int(torch.cuda.current_stream(x.device).cuda_stream)
        if mod == "cupy":
            import cupy
            return int(cupy.cuda.get_current_stream().ptr)
    except Exception:
        pass
    return 0


def _to_framework(d: DeviceArray, like):
    mod = type(like).__module__.split(".")[0]
    if mod == "torch":
        import torch
        return torch.from_dlpack(d)
    if mod == "cupy":
        import cupy
        return cupy.from_dlpack(d)
    return d


def to_device(a, stream=None, device=None) -> DeviceArray:
    """Copy a 2-D float16/bfloat16 array to the GPU.

    A C-contiguous array is stored as is; an F-contiguous one (such as
    ``w.T``) is stored as its C-contiguous transpose and returned as a
    transposed view, so no host copy is made; anything else is made
    C-contiguous first.
    """
    if isinstance(a, DeviceArray):
        return a
    a = np.asarray(a)
    _check_dtype(a.dtype, "the array")
    _check_2d(a.shape, "the array")
    transposed = a.flags.f_contiguous and not a.flags.c_contiguous
    host = a.T if transposed else np.ascontiguousarray(a)
    with _on_device(device):
        buf = _core.DeviceBuffer(host.shape[0], host.shape[1], _DTYPES[host.dtype])
    try:
        buf.upload(host, _stream_handle(stream))
    except BaseException:
        buf.free()
        raise
    return DeviceArray(buf, transposed)


def _operand(x, what: str):
    """-> (DeviceArray or np.ndarray, shape, dtype) after the host-side checks."""
    if isinstance(x, DeviceArray):
        x._live()
        return x, x.shape, x.dtype
    if _foreign_cuda(x):  # torch / cupy / ... CUDA tensor: a zero-copy view
        if getattr(x, "ndim", 2) != 2:
            raise ValueError(f"tcgemm: {what} must be 2-D, got {x.ndim}-D with shape {tuple(x.shape)}")
        d = from_dlpack(x)
        return d, d.shape, d.dtype
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"tcgemm: {what} has dtype object; tcgemm takes float16 or bfloat16 arrays")
    _check_dtype(arr.dtype, what)
    _check_2d(arr.shape, what)
    return arr, arr.shape, arr.dtype


def matmul(a, b, *, kernel: str = "auto", out=None, accumulate: str = "f32", grid_swizzle: bool = True,
           stream=None, device=None):
    """``a @ b`` on the GPU's tensor cores.

    a, b: 2-D float16 or bfloat16 (``ml_dtypes.bfloat16``) NumPy arrays or
        :class:`DeviceArray`, of the same dtype, shapes (M, K) and (K, N).
        A C-contiguous ``b`` is the NN case; an F-contiguous ``b`` (``w.T`` of
        a C-contiguous ``w``) or a transposed DeviceArray view is the TN
        (K-major) case and is used without a transpose copy.
    kernel: a name from :func:`kernels` or ``"auto"``.
    out: optional NumPy array or DeviceArray of shape (M, N) and the same dtype.
    accumulate: ``"f32"`` (default) or ``"f16"`` (float16 inputs only; faster
        on GeForce Ada, larger rounding error growing with K).
    grid_swizzle: grouped tile order for L2 reuse (on by default).
    stream: CUDA stream to run on (int handle, or an object with
        ``.cuda_stream``/``.ptr`` such as a torch or cupy stream); default stream
        if None. With DeviceArray results the call returns once the kernel is
        queued; with NumPy results it waits for it.
    device: CUDA device index to run on (default: the current device, or
        that of the DeviceArray/tensor inputs); inputs on another device are
        a ValueError.

    Returns a NumPy array (same dtype), or a DeviceArray if ``a`` or ``b``
    is a DeviceArray (or ``out`` when given).
    """
    foreign = next((x for x in (a, b) if _foreign_cuda(x)), None)
    sh = _stream_handle(stream) if stream is not None else (_current_stream_of(foreign) if foreign is not None else 0)
    if not isinstance(kernel, str):
        raise TypeError(f"tcgemm: kernel must be a string, got {type(kernel).__name__}")
    if accumulate not in _ACCUM:
        raise ValueError(f"tcgemm: accumulate must be 'f32' or 'f16', got {accumulate!r}")
    a, (M, K), adt = _operand(a, "a")
    b, (Kb, N), bdt = _operand(b, "b")
    if adt != bdt:
        raise TypeError(f"tcgemm: a and b must have the same dtype, got {adt} and {bdt}")
    if K != Kb:
        raise ValueError(f"tcgemm: inner dimensions differ: a is {M}x{K}, b is {Kb}x{N}")
    if accumulate == "f16" and adt == bfloat16:
        raise ValueError("tcgemm: accumulate='f16' needs float16 inputs (bf16 tensor-core MMAs accumulate in f32)")
    if kernel != "auto":
        if kernel not in _kernel_names():
            raise ValueError(f"tcgemm: unknown kernel {kernel!r}; tcgemm.kernels() lists them")
    on_device = isinstance(a, DeviceArray) or isinstance(b, DeviceArray) or isinstance(out, DeviceArray)
    out_like = None
    if out is not None and _foreign_cuda(out):  # a torch/cupy out: written in place, returned as given
        out_like, out = out, from_dlpack(out)
        if out._buf.owns:
            raise ValueError("tcgemm: a foreign out= must have unit column stride, a leading dimension that is a "
                             "multiple of 8 and a 16-byte aligned start (it is written in place)")
        on_device = True
    if out is not None:
        _check_out(out, (M, N), adt)

    if M == 0 or N == 0 or K == 0:  # nothing to multiply: the empty or all-zero product
        if out is None:
            res = np.zeros((M, N), dtype=adt)
            if foreign is not None:
                return _to_framework(to_device(res), foreign)
            return to_device(res) if on_device else res
        if isinstance(out, DeviceArray):
            if M and N:
                if out.is_transposed:
                    out.T._live().upload(np.zeros((N, M), dtype=adt))
                else:
                    out._live().upload(np.zeros((M, N), dtype=adt))
        else:
            out[...] = 0
        return out_like if out_like is not None else out

    if _core.device_count() == 0:
        raise RuntimeError("tcgemm: no CUDA device was found (no GPU, or no NVIDIA driver); "
                           f"this build holds code for {', '.join(build_info()['archs'])}")

    if device is None:  # follow the inputs' device, like torch does
        device = next((x.device for x in (a, b, out) if isinstance(x, DeviceArray)), None)
    with _on_device(device):
        return _matmul_on_current_device(a, b, out, out_like, foreign, on_device, kernel, accumulate, grid_swizzle,
                                         sh, M, N, K, adt)


def _matmul_on_current_device(a, b, out, out_like, foreign, on_device, kernel, accumulate, grid_swizzle, sh,
                              M, N, K, adt):
    cur = _core.get_device()
    for name, x in (("a", a), ("b", b), ("out", out)):
        if isinstance(x, DeviceArray) and x.device != cur:
            raise ValueError(f"tcgemm: {name} lives on device {x.device}, but the call runs on device {cur}")
    temps = []  # device buffers this call made and must free
    try:
        if isinstance(a, DeviceArray):
            if a.is_transposed:
                raise ValueError("tcgemm: a must be row-major; a transposed DeviceArray view is only "
                                 "accepted as b (TN); use to_device(np.ascontiguousarray(...))")
            da = a
        else:
            da = to_device(np.ascontiguousarray(a), sh)
            temps.append(da)
        if isinstance(b, DeviceArray):
            db = b
        else:
            db = to_device(b, sh)  # an F-contiguous b arrives as a transposed view: TN
            temps.append(db)
        layout = _core.Layout.TN if db.is_transposed else _core.Layout.NN
        if isinstance(out, DeviceArray):
            if out.is_transposed:
                raise ValueError("tcgemm: out must be a row-major DeviceArray, not a transposed view")
            dc = out
        else:
            dc = DeviceArray.empty((M, N), adt)
            if not (on_device and out is None):
                temps.append(dc)
        _core.gemm(kernel, da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch,
                   _DTYPES[adt], layout, _ACCUM[accumulate], grid_swizzle, sh,
                   # wait before freeing this call's temporaries (or reading the result)
                   bool(temps))
        if on_device:
            if out_like is not None:
                return out_like
            if out is None and foreign is not None:
                return _to_framework(dc, foreign)  # torch in, torch out
            return out if out is not None else dc
        if out is not None and out.flags.c_contiguous:
            dc._live().download(out, sh)  # straight into the caller's array: no second host copy
            return out
        res = dc.numpy(sh)
        if out is not None:
            out[...] = res
            return out
        return res
    finally:
        for t in temps:
            t.free()


_KERNEL_NAMES = None


def _kernel_names() -> frozenset:
    """The registry's names (fixed for the life of the process): checked here so an unknown name
    is a ValueError even where no GPU is present, without walking the registry on every call."""
    global _KERNEL_NAMES
    if _KERNEL_NAMES is None:
        _KERNEL_NAMES = frozenset(k["name"] for k in _core.kernels())
    return _KERNEL_NAMES


def _check_out(out, shape, dtype) -> None:
    if isinstance(out, DeviceArray):
        out._live()
        oshape, odt = out.shape, out.dtype
    elif isinstance(out, np.ndarray):
        oshape, odt = out.shape, out.dtype
        if not out.flags.writeable:
            raise ValueError("tcgemm: out is read-only")
    else:
        raise TypeError(f"tcgemm: out must be a NumPy array or a DeviceArray, got {type(out).__name__}")
    if tuple(oshape) != tuple(shape):
        raise ValueError(f"tcgemm: out has shape {tuple(oshape)}, expected {tuple(shape)}")
    if odt != dtype:
        raise TypeError(f"tcgemm: out has dtype {odt}, expected {dtype}")


def kernels() -> list:
    """Every registered kernel: name, family, arch, dtypes, layouts,
    accumulators, tile, stages, built, runnable (on the current device) and
    why_not (the reason when not runnable)."""
    return _core.kernels()


def build_info() -> dict:
    """Library version, CUDA version it was built with, SASS targets built."""
    return _core.build_info()


def device_info():
    """The current CUDA device (name, compute capability, memory...), or None."""
    return _core.device_info()
