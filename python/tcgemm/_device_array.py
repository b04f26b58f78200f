"""DeviceArray: device matrices owned by tcgemm, and their adapter.

A DeviceArray's memory comes from tcgemm's stream-ordered pool (one per
device; cudaMallocFromPoolAsync / cudaFreeAsync): making and freeing one
never synchronises the device, and a freed block is handed out again only to
work ordered after the free.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._operands import DTYPES, Operand, bfloat16, check_dtype, check_ndim, float16

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
    def empty(cls, shape, dtype=np.float16, device=None, stream=None) -> "DeviceArray":
        """A zero-filled device matrix of ``shape`` on ``device`` (default: the current one),
        from tcgemm's stream-ordered pool: allocated, filled and later freed on ``stream``."""
        shape = tuple(int(s) for s in shape)
        check_ndim(len(shape), shape, "shape", False)
        if min(shape) < 0:
            raise ValueError(f"tcgemm: negative dimension in shape {shape}")
        dt = check_dtype(dtype, "dtype")
        with _on_device(device):
            return cls(_core.DeviceBuffer(shape[0], shape[1], DTYPES[dt], _stream_handle(stream), "all"))

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
        """Give the memory back to tcgemm's pool (all views of it become unusable).

        Stream-ordered, as cupy's and torch's allocators: the free is ordered on
        the array's stream (the one it was made on, or the last ``matmul``
        stream that wrote it); work queued on other streams that still reads
        it must be ordered before that (events). Nothing synchronises."""
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
    check_dtype(a.dtype, "the array")
    check_ndim(a.ndim, a.shape, "the array", False)
    transposed = a.flags.f_contiguous and not a.flags.c_contiguous
    host = a.T if transposed else np.ascontiguousarray(a)
    with _on_device(device):
        buf = _core.DeviceBuffer(host.shape[0], host.shape[1], DTYPES[host.dtype], _stream_handle(stream), "padding")
    try:
        buf.upload(host, _stream_handle(stream))
    except BaseException:
        buf.free()
        raise
    return DeviceArray(buf, transposed)


class DeviceArrays:
    """The adapter of DeviceArray operands (``_call.device_matmul``): results
    are DeviceArrays from the pool, split-K workspace from the pool (the
    C++ side allocates it when given none), the default stream unless told."""

    kind = "DeviceArray"
    capturable_outputs = False  # a new DeviceArray cannot be made inside a CUDA graph capture

    @staticmethod
    def device_of(x) -> int:
        return x._live().device

    @staticmethod
    def stream(device) -> int:
        return 0

    @staticmethod
    def operand(x, what, any_rows=False):  # always aligned: any_rows changes nothing
        buf = x._live()
        if x._transposed:
            return Operand(buf.ptr, buf.cols, buf.rows, buf.pitch, True, x.dtype, x)
        return Operand(buf.ptr, buf.rows, buf.cols, buf.pitch, False, x.dtype, x)

    @staticmethod
    def strided(x, what):
        # A DeviceArray is always aligned; only a transposed view as `a` gets here.
        raise ValueError(f"tcgemm: {what} must be row-major; a transposed DeviceArray view is only "
                         "accepted as b (TN); use to_device(np.ascontiguousarray(...))")

    @staticmethod
    def empty(batch, rows, cols, dtype, device, stream, like, any_rows=False):
        if batch is not None:
            raise ValueError("tcgemm: DeviceArrays are 2-D; batched matmul takes NumPy arrays or torch/cupy tensors")
        buf = _core.DeviceBuffer(rows, cols, DTYPES[dtype], stream, "padding")
        d = DeviceArray(buf)
        return Operand(buf.ptr, rows, cols, buf.pitch, False, dtype, d)

    @staticmethod
    def workspace(nbytes, device, like):
        return None, 0  # the C++ pool, stream-ordered on the launch's stream

    @staticmethod
    def result(d: Operand, batch, rows, cols):
        return d.keep

    @staticmethod
    def from_host(x, stream, device, like):
        return to_device(x, stream)

    @staticmethod
    def vector(x, what):
        """A (1, N) DeviceArray (one stored row) as a bias vector: -> (ptr, dtype, length, keep)."""
        buf = x._live()
        if buf.rows != 1:
            raise ValueError(f"tcgemm: a DeviceArray {what} must have one stored row (shape (1, N)), got {x.shape}")
        return buf.ptr, x.dtype, buf.cols, x

    @staticmethod
    def mark_used(d: Operand, stream):
        if isinstance(d.keep, DeviceArray):
            d.keep._buf.stream = stream  # its free is ordered after this launch
