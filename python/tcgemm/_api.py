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


def _check_2d(shape, what: str, batch_ok: bool = False) -> None:
    if len(shape) != 2:
        also = " (or 3-D: a batch)" if batch_ok else ""
        raise ValueError(f"tcgemm: {what} must be 2-D{also}, got {len(shape)}-D with shape {tuple(shape)}")


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
    _check_2d(arr.shape, what, batch_ok=True)
    return arr, arr.shape, arr.dtype


_ACTIVATIONS = {None: _core.Activation.none, "none": _core.Activation.none, "relu": _core.Activation.relu,
                "gelu": _core.Activation.gelu, "silu": _core.Activation.silu}
_BIAS_TYPES = {float16: _core.BiasType.float16, bfloat16: _core.BiasType.bfloat16,
               np.dtype(np.float32): _core.BiasType.float32}


def _real(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"tcgemm: {what} must be a real number, got {type(x).__name__}")
    return float(x)


def matmul(a, b, *, c=None, alpha: float = 1.0, beta: float = 0.0, bias=None, activation=None, out=None,
           kernel: str = "auto", accumulate: str = "f32", split_k=None, grid_swizzle: bool = True, stream=None,
           device=None):
    """``act(alpha * (a @ b) + beta * c + bias)`` on the GPU's tensor cores.

    a, b: float16 or bfloat16 (``ml_dtypes.bfloat16``) NumPy arrays,
        :class:`DeviceArray` or torch/cupy CUDA tensors, of the same dtype.
        2-D: shapes (M, K) and (K, N). A C-contiguous ``b`` is the NN case; an
        F-contiguous ``b`` (``w.T`` of a C-contiguous ``w``) or a transposed
        DeviceArray view is the TN (K-major) case, used without a copy.
        3-D (batched, NumPy's matmul rules): (batch, M, K) @ (batch, K, N),
        a 2-D operand (or a batch of 1) broadcast over the other's batch;
        one launch for the whole batch. DeviceArrays are 2-D only.
    c, alpha, beta, bias, activation: the fused epilogue, applied to the fp32
        accumulators before rounding, with no extra pass over the output:
        ``D = act(alpha * a @ b + beta * c + bias)``. ``c`` has the output's
        shape (or (M, N), broadcast over a batch) and dtype, and is read only
        when ``beta != 0`` (BLAS rule: with ``beta == 0`` it may hold NaN);
        it may be ``out`` itself (in-place accumulate). ``bias``: N values
        (float16, bfloat16 or float32), one per output column. ``activation``:
        None, "relu", "gelu" (tanh form) or "silu".
    kernel: a name from :func:`kernels` or ``"auto"``.
    out: optional NumPy array or DeviceArray of the result's shape and dtype.
    accumulate: ``"f32"`` (default) or ``"f16"`` (float16 inputs only; Ada
        kernels only; larger rounding error growing with K).
    split_k: None (the kernel decides: ``sm90.ws_splitk`` splits K when the
        output has too few tiles to fill the GPU), 1 (never), or a count;
        partial sums are reduced in a fixed order, so results are
        bit-identical run to run.
    grid_swizzle: grouped tile order for L2 reuse (on by default).
    stream: CUDA stream to run on (int handle, or an object with
        ``.cuda_stream``/``.ptr`` such as a torch or cupy stream); default stream
        if None. With DeviceArray results the call returns once the kernel is
        queued; with NumPy results it waits for it.
    device: CUDA device index to run on (default: the current device, or
        that of the DeviceArray/tensor inputs); inputs on another device are
        a ValueError.

    Returns a NumPy array (same dtype), a DeviceArray if ``a`` or ``b`` is a
    DeviceArray (or ``out`` when given), or a tensor of the inputs' framework.
    """
    foreign = next((x for x in (a, b) if _foreign_cuda(x)), None)
    sh = _stream_handle(stream) if stream is not None else (_current_stream_of(foreign) if foreign is not None else 0)
    if not isinstance(kernel, str):
        raise TypeError(f"tcgemm: kernel must be a string, got {type(kernel).__name__}")
    if accumulate not in _ACCUM:
        raise ValueError(f"tcgemm: accumulate must be 'f32' or 'f16', got {accumulate!r}")
    if not isinstance(activation, (str, type(None))) or activation not in _ACTIVATIONS:
        raise ValueError(f"tcgemm: activation must be None, 'relu', 'gelu' or 'silu', got {activation!r}")
    alpha, beta = _real(alpha, "alpha"), _real(beta, "beta")
    if split_k is not None and (isinstance(split_k, bool) or not isinstance(split_k, (int, np.integer))
                                or not 1 <= split_k <= 256):
        raise ValueError(f"tcgemm: split_k must be None or an int in 1..256, got {split_k!r}")
    if beta != 0 and c is None:
        raise ValueError("tcgemm: beta != 0 needs c (the matrix it scales)")
    if kernel != "auto" and kernel not in _kernel_names():
        raise ValueError(f"tcgemm: unknown kernel {kernel!r}; tcgemm.kernels() lists them")
    if getattr(a, "ndim", 2) == 3 or getattr(b, "ndim", 2) == 3 or np.ndim(a) == 3 or np.ndim(b) == 3:
        return _batched_matmul(a, b, c, alpha, beta, bias, activation, out, kernel, accumulate, split_k,
                               grid_swizzle, sh, device, foreign)
    a, (M, K), adt = _operand(a, "a")
    b, (Kb, N), bdt = _operand(b, "b")
    if adt != bdt:
        raise TypeError(f"tcgemm: a and b must have the same dtype, got {adt} and {bdt}")
    if K != Kb:
        raise ValueError(f"tcgemm: inner dimensions differ: a is {M}x{K}, b is {Kb}x{N}")
    if accumulate == "f16" and adt == bfloat16:
        raise ValueError("tcgemm: accumulate='f16' needs float16 inputs (bf16 tensor-core MMAs accumulate in f32)")
    ep = _Epilogue(alpha, beta, c if beta != 0 else None, bias, activation, (M, N), adt)
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

    if M == 0 or N == 0 or K == 0:  # nothing to multiply: the epilogue of an all-zero product
        res = ep.on_host(np.zeros((M, N), dtype=np.float32)).astype(adt)
        if out is None:
            if foreign is not None:
                return _to_framework(to_device(res), foreign)
            return to_device(res) if on_device else res
        if isinstance(out, DeviceArray):
            if M and N:
                if out.is_transposed:
                    out.T._live().upload(np.ascontiguousarray(res.T))
                else:
                    out._live().upload(res)
        else:
            out[...] = res
        return out_like if out_like is not None else out

    if _core.device_count() == 0:
        raise RuntimeError("tcgemm: no CUDA device was found (no GPU, or no NVIDIA driver); "
                           f"this build holds code for {', '.join(build_info()['archs'])}")

    if device is None:  # follow the inputs' device, like torch does
        device = next((x.device for x in (a, b, out) if isinstance(x, DeviceArray)), None)
    with _on_device(device):
        return _matmul_on_current_device(a, b, out, out_like, foreign, on_device, kernel, accumulate, grid_swizzle,
                                         sh, M, N, K, adt, ep, split_k)


class _Epilogue:
    """matmul's epilogue arguments, checked, and turned into _core.gemm options
    (device copies of host c / bias are made by ``options`` and freed by the caller)."""

    def __init__(self, alpha, beta, c, bias, activation, out_shape, dtype, batched=False):
        self.alpha, self.beta, self.activation = alpha, beta, activation
        self.c, self.bias, self.dtype = c, None, dtype
        N = out_shape[-1]
        if c is not None:
            cshape, cdt = (c.shape, c.dtype) if hasattr(c, "shape") else (np.shape(c), np.asarray(c).dtype)
            ok = tuple(cshape) == tuple(out_shape) or (batched and tuple(cshape) == tuple(out_shape[-2:]))
            if not ok:
                raise ValueError(f"tcgemm: c has shape {tuple(cshape)}, expected {tuple(out_shape)}")
            if np.dtype(cdt) != dtype:
                raise TypeError(f"tcgemm: c has dtype {np.dtype(cdt)}, expected {dtype} (the output's)")
            if isinstance(c, DeviceArray):
                c._live()
                if c.is_transposed:
                    raise ValueError("tcgemm: c must be a row-major DeviceArray, not a transposed view")
        if bias is not None:
            if _foreign_cuda(bias) or isinstance(bias, DeviceArray):
                raise TypeError("tcgemm: bias must be a host (NumPy) array; N values are copied per call")
            bias = np.ascontiguousarray(bias)
            if bias.dtype not in _BIAS_TYPES:
                raise TypeError(f"tcgemm: bias has dtype {bias.dtype}; it takes float16, bfloat16 or float32")
            if bias.shape != (N,):
                raise ValueError(f"tcgemm: bias must have shape ({N},) (one value per output column), "
                                 f"got {bias.shape}")
            self.bias = bias

    @property
    def plain(self) -> bool:
        return self.alpha == 1.0 and self.beta == 0.0 and self.bias is None and self.activation in (None, "none")

    def on_host(self, acc: np.ndarray) -> np.ndarray:
        """The epilogue in float32 on the host (the K == 0 case: acc is all zero)."""
        x = np.float32(self.alpha) * acc
        if self.beta != 0:
            cc = self.c.numpy() if isinstance(self.c, DeviceArray) else np.asarray(self.c)
            x = x + np.float32(self.beta) * cc.astype(np.float32)
        if self.bias is not None:
            x = x + self.bias.astype(np.float32)
        act = self.activation
        if act == "relu":
            x = np.where(x < 0, np.float32(0), x)
        elif act == "gelu":
            x = 0.5 * x * (1 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x ** 3)))
        elif act == "silu":
            x = x / (1 + np.exp(-x))
        return x.astype(np.float32)

    def options(self, sh, temps, out_dev=None, batch_rows=None) -> dict:
        """_core.gemm keyword options. Host c / bias are uploaded (added to temps)."""
        opts = {"alpha": self.alpha, "beta": self.beta, "activation": _ACTIVATIONS[self.activation]}
        if self.beta != 0:
            c = self.c
            if out_dev is not None and c is out_dev[0]:
                dc = out_dev[1]  # c is out: read and write the same memory (in place)
            elif isinstance(c, DeviceArray):
                dc = c
            elif _foreign_cuda(c):
                dc = from_dlpack(c)
            else:
                host = np.ascontiguousarray(c)
                if host.ndim == 3:
                    host = host.reshape(-1, host.shape[-1])
                dc = to_device(host, sh)
                temps.append(dc)
            opts.update(source=dc.ptr, ld_source=dc.pitch)
            if batch_rows is not None and dc.shape[0] == batch_rows * self.batch:
                opts["stride_source"] = batch_rows * dc.pitch
        if self.bias is not None:
            raw = self.bias.view(np.float16).reshape(1, -1)  # bytes as 16-bit words; f32 takes two each
            db = to_device(raw, sh)
            temps.append(db)
            opts.update(bias=db.ptr, bias_type=_BIAS_TYPES[self.bias.dtype])
        return opts


def _matmul_on_current_device(a, b, out, out_like, foreign, on_device, kernel, accumulate, grid_swizzle, sh,
                              M, N, K, adt, ep, split_k):
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
        opts = ep.options(sh, temps, out_dev=(out, dc) if out is not None else None)
        if split_k is not None:
            opts["split_k"] = int(split_k)
        _core.gemm(kernel, da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch,
                   _DTYPES[adt], layout, _ACCUM[accumulate], grid_swizzle, sh,
                   # wait before freeing this call's temporaries (or reading the result)
                   bool(temps), **opts)
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


def _batch_operand(x, what: str, sh):
    """A 3-D (or 2-D) NumPy array or foreign CUDA tensor as a 2-D device matrix
    holding its batches one under another: -> (DeviceArray, batch, rows, cols,
    batch stride in elements, transposed, made_here). A 2-D operand has batch 1
    and stride 0 (broadcast)."""
    if isinstance(x, DeviceArray):
        raise ValueError(f"tcgemm: {what}: DeviceArrays are 2-D; batched matmul takes NumPy arrays or "
                         "torch/cupy tensors")
    if _foreign_cuda(x):
        if x.ndim not in (2, 3):
            raise ValueError(f"tcgemm: {what} must be 2-D or 3-D, got {x.ndim}-D with shape {tuple(x.shape)}")
        if x.ndim == 2:
            d = from_dlpack(x)
            return d, 1, d.shape[0], d.shape[1], 0, d.is_transposed, False
        bt, r, cl = x.shape
        torch_like = hasattr(x, "is_contiguous")
        contiguous = (lambda t: t.is_contiguous()) if torch_like else (lambda t: t.flags.c_contiguous)
        xt = x.transpose(1, 2) if torch_like else x.transpose(0, 2, 1)
        if what == "b" and not contiguous(x) and contiguous(xt):  # per-matrix transposed: TN
            d = from_dlpack(xt.reshape(bt * cl, r)).T
            return d, bt, r, cl, cl * d.pitch, True, False
        if not contiguous(x):
            x = x.contiguous() if torch_like else x.copy()
        d = from_dlpack(x.reshape(bt * r, cl))
        return d, bt, r, cl, r * d.pitch, False, False
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"tcgemm: {what} has dtype object; tcgemm takes float16 or bfloat16 arrays")
    _check_dtype(arr.dtype, what)
    if arr.ndim not in (2, 3):
        raise ValueError(f"tcgemm: {what} must be 2-D or 3-D, got {arr.ndim}-D with shape {arr.shape}")
    if arr.ndim == 2:
        d = to_device(arr if what == "b" else np.ascontiguousarray(arr), sh)
        return d, 1, arr.shape[0], arr.shape[1], 0, d.is_transposed, True
    bt, r, cl = arr.shape
    t = arr.transpose(0, 2, 1)
    if what == "b" and not arr.flags.c_contiguous and t.flags.c_contiguous:  # per-matrix w.T: TN
        d = to_device(t.reshape(bt * cl, r), sh).T
        return d, bt, r, cl, cl * d.pitch, True, True
    d = to_device(np.ascontiguousarray(arr).reshape(bt * r, cl), sh)
    return d, bt, r, cl, r * d.pitch, False, True


def _batched_matmul(a, b, c, alpha, beta, bias, activation, out, kernel, accumulate, split_k, grid_swizzle, sh,
                    device, foreign):
    if out is not None:
        raise ValueError("tcgemm: out= is not supported for batched (3-D) matmul yet")
    if _core.device_count() == 0:
        raise RuntimeError("tcgemm: no CUDA device was found (no GPU, or no NVIDIA driver); "
                           f"this build holds code for {', '.join(build_info()['archs'])}")
    with _on_device(device):
        temps = []
        try:
            da, ba, M, K, sa, _, own_a = _batch_operand(a, "a", sh)
            if own_a:
                temps.append(da)
            db, bb, Kb, N, sb, transposed, own_b = _batch_operand(b, "b", sh)
            if own_b:
                temps.append(db)
            if da.dtype != db.dtype:
                raise TypeError(f"tcgemm: a and b must have the same dtype, got {da.dtype} and {db.dtype}")
            if K != Kb:
                raise ValueError(f"tcgemm: inner dimensions differ: a is ...x{M}x{K}, b is ...x{Kb}x{N}")
            if ba != bb and 1 not in (ba, bb):
                raise ValueError(f"tcgemm: batch sizes {ba} and {bb} do not broadcast")
            batch = bb if ba == 1 else ba  # NumPy: a batch of 1 broadcasts (also against 0)
            sa, sb = (0 if ba == 1 else sa), (0 if bb == 1 else sb)
            adt = da.dtype
            if accumulate == "f16" and adt == bfloat16:
                raise ValueError("tcgemm: accumulate='f16' needs float16 inputs")
            ep = _Epilogue(alpha, beta, c if beta != 0 else None, bias, activation, (batch, M, N), adt, batched=True)
            ep.batch = batch
            if M == 0 or N == 0 or K == 0 or batch == 0:  # the epilogue of an all-zero product
                res = ep.on_host(np.zeros((batch, M, N), np.float32)).astype(adt)
                return _to_framework(to_device(res.reshape(-1, N)), foreign).reshape(batch, M, N) \
                    if foreign is not None else res
            layout = _core.Layout.TN if transposed else _core.Layout.NN
            dc = DeviceArray.empty((batch * M, N), adt)
            if foreign is None:
                temps.append(dc)
            opts = ep.options(sh, temps, batch_rows=M)
            if split_k is not None:
                opts["split_k"] = int(split_k)
            _core.gemm(kernel, da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch,
                       _DTYPES[adt], layout, _ACCUM[accumulate], grid_swizzle, sh, bool(temps),
                       batch=batch, stride_a=sa, stride_b=sb, stride_c=M * dc.pitch, **opts)
            if foreign is not None:
                return _to_framework(dc, foreign).view(batch, M, N) if hasattr(foreign, "view") and \
                    type(foreign).__module__.startswith("torch") else _to_framework(dc, foreign).reshape(batch, M, N)
            return dc.numpy(sh).reshape(batch, M, N)
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
