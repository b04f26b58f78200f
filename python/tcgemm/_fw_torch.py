"""The torch adapter: torch CUDA tensors as Operands, and torch's allocator for
everything a call needs (outputs, staging copies, split-K workspace).

Only torch's caching allocator is safe inside ``torch.cuda.graph`` capture
(it hands out the graph's private pool there), so a torch call takes every
byte it needs from it, on the current stream, and nothing here
synchronises: the call can be captured and replayed. Pointers, shapes and
strides are read straight off the tensors (no DLPack capsule per call).
"""
from __future__ import annotations

import numpy as np
import torch

from ._operands import Operand, bfloat16, check_ndim, classify, float16, pitch_for

_DT = {torch.float16: float16, torch.bfloat16: bfloat16}
_VEC_DT = {torch.float16: float16, torch.bfloat16: bfloat16, torch.float32: np.dtype(np.float32)}
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)

kind = "torch"
capturable_outputs = True


def device_of(x) -> int:
    d = x.get_device()
    if d < 0:
        raise ValueError("tcgemm: got a CPU torch tensor; tcgemm takes torch CUDA tensors (or NumPy arrays)")
    return d


def stream(device) -> int:
    if _raw_stream is not None:
        return _raw_stream(device)
    return torch.cuda.current_stream(device).cuda_stream


def stream_object(sh):
    """None: torch's streams come from a fixed pool per device and are never
    destroyed, so a handle never outlives its stream (``_workspace.py``)."""
    return None


def _dtype(x, what):
    dt = _DT.get(x.dtype)
    if dt is None:
        fp8 = " (FP8: tcgemm.scaled_matmul)" if "float8" in str(x.dtype) else ""
        raise TypeError(f"tcgemm: {what} has dtype {x.dtype}; tcgemm takes float16 or bfloat16{fp8}")
    return dt


def view(x):
    """A tensor as scaled_matmul's checks read it (``_fp8.View``): dtype name, shape, strides, address,
    device (-1 for a CPU tensor)."""
    from ._fp8 import View
    return View(str(x.dtype)[6:], x.shape, x.stride(), x.data_ptr(), x.get_device())


_OUT = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def empty_out(rows, cols, out_dtype, like):
    """scaled_matmul's output from torch's allocator on the current stream: rows of `cols` values,
    padded to 16 bytes when they are not (result() then hands back a dense copy) -> Operand."""
    per16 = 4 if out_dtype == "float32" else 8
    p = -(-max(cols, 1) // per16) * per16
    st = like.new_empty((rows, p), dtype=_OUT[out_dtype])
    return Operand(st.data_ptr(), rows, cols, p, False, None, st)


def operand(x, what, any_rows=False):
    """-> Operand, or None when the layout needs a staging copy (any_rows: for
    a kernel that reads rows anywhere, _operands.classify)."""
    dt = _DT.get(x.dtype)
    if dt is None:
        _dtype(x, what)  # raises, naming the dtype
    shape = x.shape
    nd = len(shape)
    if nd == 2:
        # The common cases first, without the general rules (classify): a
        # row-major matrix, or the transpose of one (w.t()), aligned.
        r, c = shape
        s0, s1 = x.stride()
        ptr = x.data_ptr()
        if r > 1 and c > 1 and not ptr & 15:
            if s1 == 1 and s0 >= c and not s0 & 7:
                return Operand(ptr, r, c, s0, False, dt, x)
            if s0 == 1 and s1 >= r and not s1 & 7:
                return Operand(ptr, r, c, s1, True, dt, x)
            if not any_rows:  # (classify's two readings of such a matrix are the two above)
                return None
    check_ndim(nd, shape, what, True)
    ptr = x.data_ptr()
    v = classify(ptr, shape, x.stride(), any_rows=any_rows)
    if v is None:
        return None
    t, ld, sb = v
    if nd == 3:
        nb, r, c = shape
        return Operand(ptr, r, c, ld, t, dt, x, nb, sb)
    r, c = shape
    return Operand(ptr, r, c, ld, t, dt, x)


def strided(x, what):
    """(address, shape, element strides) of a tensor to stage (_staging.py)."""
    return x.data_ptr(), tuple(x.shape), x.stride()


def dtype_of(x, what):
    return _dtype(x, what)


def scratch(nbytes, device, like, stream_):
    """Bytes for one call from torch's allocator on stream `sh` (freed after the call: torch reuses
    them only for later work on that stream, ordered after the kernel)."""
    with _on_stream(stream_, device):
        w = like.new_empty((nbytes,), dtype=torch.uint8)
    return w, w.data_ptr()


class _on_stream:
    """torch's current stream made `sh` for a block, when it is not already."""

    def __init__(self, sh, device):
        self.ctx = None
        if sh != stream(device):
            self.ctx = torch.cuda.stream(torch.cuda.ExternalStream(sh, device=device))

    def __enter__(self):
        if self.ctx is not None:
            self.ctx.__enter__()

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)


def empty(batch, rows, cols, dtype, device, stream_, like, any_rows=False):
    """The kernel's output: rows of `cols` values, padded to a kernel pitch
    when `cols` is not a multiple of 8 (result() then hands back a dense copy)
    unless the kernel writes rows anywhere (any_rows)."""
    p = cols if cols % 8 == 0 or any_rows else pitch_for(cols)
    shape = (rows, p) if batch is None else (batch, rows, p)
    if _DT.get(like.dtype) is dtype:
        st = like.new_empty(shape)  # like's dtype and device, from torch's allocator on the current stream
    else:
        st = like.new_empty(shape, dtype=torch.float16 if dtype is float16 else torch.bfloat16)
    return Operand(st.data_ptr(), rows, cols, p, False, dtype, st, batch or 1, rows * p if batch else 0)


def workspace(nbytes, device, like):
    w = like.new_empty((nbytes,), dtype=torch.uint8)
    return w, w.data_ptr()


def result(d: Operand, batch, rows, cols):
    st = d.keep
    return st if d.ld == cols else st[..., :cols].contiguous()


def from_host(x: np.ndarray, stream_, device, like):
    """A NumPy operand of a torch call, uploaded (a host round trip: not capturable)."""
    if x.dtype == bfloat16:
        return torch.from_numpy(np.ascontiguousarray(x).view(np.uint16)).view(torch.bfloat16).to(like.device)
    return torch.from_numpy(np.ascontiguousarray(x)).to(like.device)


def vector(x, what):
    """A bias vector: -> (ptr, dtype, length, keep); contiguous and 4-byte aligned."""
    dt = _VEC_DT.get(x.dtype)
    if dt is None:
        raise TypeError(f"tcgemm: {what} has dtype {x.dtype}; it takes float16, bfloat16 or float32")
    if x.dim() != 1:
        raise ValueError(f"tcgemm: {what} must be 1-D (one value per output column), got shape {tuple(x.shape)}")
    if x.stride(0) != 1 or x.data_ptr() % 4:
        x = x.clone()
    return x.data_ptr(), dt, x.shape[0], x


def mark_used(d, stream_):
    pass
