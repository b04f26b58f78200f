"""The cupy adapter: cupy arrays as Operands, cupy's memory pool for outputs,
staging copies and split-K workspace, cupy's current stream."""
from __future__ import annotations

import cupy
import numpy as np

from ._operands import Operand, check_dtype, check_ndim, classify, pitch_for

kind = "cupy"
capturable_outputs = True


def device_of(x) -> int:
    return x.device.id


def stream(device) -> int:
    return cupy.cuda.get_current_stream().ptr


def stream_object(sh):
    """The cupy Stream behind handle `sh` when it is the current stream and owns
    its CUDA stream (destroyed with the object), else None. The split-K
    workspace kept for `sh` goes when it does (``_workspace.py``); an
    ExternalStream (how a call given stream= runs) lives for one call only."""
    s = cupy.cuda.get_current_stream()
    if s.ptr != sh or isinstance(s, cupy.cuda.ExternalStream):
        return None
    return s


def operand(x, what, any_rows=False):
    dt = check_dtype(x.dtype, what)
    nd = x.ndim
    check_ndim(nd, x.shape, what, True)
    ptr = x.data.ptr
    v = classify(ptr, x.shape, tuple(s // 2 for s in x.strides), any_rows=any_rows)
    if v is None:
        return None
    t, ld, sb = v
    if nd == 3:
        nb, r, c = x.shape
        return Operand(ptr, r, c, ld, t, dt, x, nb, sb)
    r, c = x.shape
    return Operand(ptr, r, c, ld, t, dt, x)


def strided(x, what):
    """(address, shape, element strides) of an array to stage (_staging.py); cupy's strides are in
    bytes and may be negative."""
    return x.data.ptr, tuple(x.shape), tuple(s // x.itemsize for s in x.strides)


def dtype_of(x, what):
    return check_dtype(x.dtype, what)


def scratch(nbytes, device, like, stream_):
    """Bytes for one call from cupy's pool on stream `sh` (which hands them again only to work on
    that stream, ordered after the kernel)."""
    ctx = cupy.cuda.ExternalStream(stream_) if stream_ != stream(None) else None
    if ctx is not None:
        ctx.__enter__()
    try:
        w = cupy.empty((nbytes,), dtype=cupy.uint8)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
    return w, w.data.ptr


def empty(batch, rows, cols, dtype, device, stream_, like, any_rows=False):
    p = cols if cols % 8 == 0 or any_rows else pitch_for(cols)
    shape = (rows, p) if batch is None else (batch, rows, p)
    st = cupy.empty(shape, dtype=dtype)
    return Operand(st.data.ptr, rows, cols, p, False, dtype, st, batch or 1, rows * p if batch else 0)


def workspace(nbytes, device, like):
    w = cupy.empty((nbytes,), dtype=cupy.uint8)
    return w, w.data.ptr


def result(d: Operand, batch, rows, cols):
    st = d.keep
    return st if d.ld == cols else cupy.ascontiguousarray(st[..., :cols])


def from_host(x: np.ndarray, stream_, device, like):
    return cupy.asarray(x)


def vector(x, what):
    dt = np.dtype(x.dtype)
    if dt not in (np.dtype(np.float16), np.dtype(np.float32)) and dt.name != "bfloat16":
        raise TypeError(f"tcgemm: {what} has dtype {dt}; it takes float16, bfloat16 or float32")
    if x.ndim != 1:
        raise ValueError(f"tcgemm: {what} must be 1-D (one value per output column), got shape {x.shape}")
    if x.strides[0] != x.itemsize or x.data.ptr % 4:
        x = x.copy()
    return x.data.ptr, dt, x.shape[0], x


def mark_used(d, stream_):
    pass
