"""NumPy operands: host memory in, host memory out, at PCIe speed.

A 2-D NumPy call is one ``_core.host_gemm(HostGemmArgs)``: the C++ panel pipeline
(cpp/src/core/host_pipeline.cpp) uploads B, then row panels of A while the
GEMM runs on the panels already there and finished panels of D come back,
on three streams; pageable memory goes through a bounded, reused ring of
pinned staging slots filled by several threads, pinned memory
(:func:`empty_pinned`) straight to the copy engines. Device memory comes
from tcgemm's stream-ordered pool. The call returns a finished array.
"""
from __future__ import annotations

import math

import numpy as np

from . import _core
from . import _call
from ._call import _LAYOUT, ACCUM, _to_numpy, capture_guard, plan
from ._epilogue import check_bias_host
from ._operands import BIAS_TYPES, DTYPES, bfloat16, check_dtype, check_ndim


def empty_pinned(shape, dtype=np.float16) -> np.ndarray:
    """A NumPy array in page-locked (pinned) host memory.

    The GPU's copy engines read and write it directly (about 2.5x the
    bandwidth of ordinary pageable memory on the H200 machine), so
    :func:`matmul` on such arrays -- inputs, or ``out=`` -- skips the staging
    copy. Pinning is slow (every page is mapped and locked): allocate once,
    reuse. Freed when the last view of it is garbage-collected."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"tcgemm: negative dimension in shape {shape}")
    dt = np.dtype(dtype)
    n = math.prod(shape) * dt.itemsize
    buf = _core.PinnedBuffer(n)
    return np.frombuffer(buf, dtype=np.uint8, count=n).view(dt).reshape(shape)


def release_memory() -> None:
    """Free the pinned staging ring and hand the device memory tcgemm's pools
    hold unused back to the driver, and drop the split-K workspaces kept for
    torch and cupy calls (kept between calls for the 8 most recently used
    streams per framework and device, so that a repeated call allocates
    nothing). The workspaces go back to
    their framework's allocator (``torch.cuda.empty_cache()`` then hands them
    to the driver)."""
    _call.WORKSPACES.clear()
    _core.release_memory()


def set_staging_limit(nbytes: int) -> None:
    """Bound the pinned staging ring (default 256 MiB; at least 16 MiB)."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 0:
        raise ValueError(f"tcgemm: the staging limit must be a byte count, got {nbytes!r}")
    _core.set_staging_limit(int(nbytes))


def _rows(x: np.ndarray) -> np.ndarray:
    """x with contiguous rows in ascending order (a copy only if it has not)."""
    if x.ndim == 2 and (x.shape[1] <= 1 or x.strides[1] == x.itemsize) and \
            (x.shape[0] <= 1 or x.strides[0] >= x.shape[1] * x.itemsize):
        return x
    return np.ascontiguousarray(x)


def host_array(x, what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype == object:
        raise TypeError(f"tcgemm: {what} has dtype object; tcgemm takes float16 or bfloat16 arrays")
    check_dtype(arr.dtype, what)
    check_ndim(arr.ndim, arr.shape, what, True)
    return arr


def numpy_matmul(call):
    """The NumPy path: `call.a` and `call.b` are host arrays (``host_array``), `call.stream` a handle."""
    a, b, ep, out, sh = call.a, call.b, call.ep, call.out, call.stream
    batched = a.ndim == 3 or b.ndim == 3
    if a.dtype != b.dtype:
        raise TypeError(f"tcgemm: a and b must have the same dtype, got {a.dtype} and {b.dtype}")
    dt = a.dtype
    M, K = a.shape[-2:]
    Kb, N = b.shape[-2:]
    if K != Kb:
        pre = "...x" if batched else ""
        raise ValueError(f"tcgemm: inner dimensions differ: a is {pre}{M}x{K}, b is {pre}{Kb}x{N}")
    if call.accumulate == "f16" and dt == bfloat16:
        raise ValueError("tcgemm: accumulate='f16' needs float16 inputs (bf16 tensor-core MMAs accumulate in f32)")
    batch = 1
    if batched:
        ba = a.shape[0] if a.ndim == 3 else 1
        bb = b.shape[0] if b.ndim == 3 else 1
        if ba != bb and 1 not in (ba, bb):
            raise ValueError(f"tcgemm: batch sizes {ba} and {bb} do not broadcast")
        batch = bb if ba == 1 else ba
    shape = (batch, M, N) if batched else (M, N)
    ep.check_c(shape, dt, batched)
    c_host = None if ep.c is None else _host_of(ep.c)
    bias_host = None
    if ep.bias is not None:  # a device bias in a host call comes down first
        raw = ep.bias if isinstance(ep.bias, (np.ndarray, list, tuple)) else _host_of(ep.bias)
        bias_host = check_bias_host(raw, N)
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"tcgemm: out must be a NumPy array, a DeviceArray or a torch/cupy tensor, "
                            f"got {type(out).__name__}")
        if not out.flags.writeable:
            raise ValueError("tcgemm: out is read-only")
        if tuple(out.shape) != shape:
            raise ValueError(f"tcgemm: out has shape {tuple(out.shape)}, expected {shape}")
        if out.dtype != dt:
            raise TypeError(f"tcgemm: out has dtype {out.dtype}, expected {dt}")
    if M == 0 or N == 0 or K == 0 or batch == 0:
        res = ep.on_host(np.zeros(shape, np.float32), c_host, bias_host).astype(dt)
        if out is None:
            return res
        out[...] = res
        return out
    if _core.device_count() == 0:
        archs = _core.build_info()["archs"]
        raise RuntimeError("tcgemm: no CUDA device was found (no GPU, or no NVIDIA driver); "
                           f"this build holds code for {', '.join(archs)}")
    capture_guard(sh, "a NumPy call (host memory in and out, a finished array back)")
    bias_type = BIAS_TYPES[bias_host.dtype] if bias_host is not None else 2
    if batched:
        return _batched(call, c_host, bias_host, bias_type, batch, M, N, K)
    a2 = _rows(a)
    if b.shape[0] > 1 and b.shape[1] > 1 and b.strides[0] == b.itemsize:  # F-ordered rows: w.T, the TN case
        tn, store = True, _rows(b.T)
    else:
        tn, store = False, _rows(b)
    d = out if out is not None and _rows(out) is out else np.empty((M, N), dt)
    src = None if c_host is None else _rows(np.asarray(c_host))
    bias_arr = None if bias_host is None else np.ascontiguousarray(bias_host)
    _core.host_gemm(_core.HostGemmArgs(
        kernel=call.kernel, a=a2.view(np.uint16), b=store.view(np.uint16), d=d.view(np.uint16),
        source=None if src is None else src.view(np.uint16), bias=bias_arr, M=M, N=N, K=K, dtype=DTYPES[dt],
        layout=_LAYOUT[tn], accum=ACCUM[call.accumulate], grid_swizzle=call.grid_swizzle, split_k=call.split_k,
        alpha=ep.alpha, beta=ep.beta, bias_type=bias_type, activation=ep.act, stream=sh))
    if out is not None and d is not out:
        out[...] = d
        return out
    return d


def _host_of(x):
    return _to_numpy(x, None)


class _Buffers:
    """One NumPy call's device buffers, from tcgemm's pool on stream `sh`; ``with``: every one freed
    when the call leaves, whatever it raised."""

    def __init__(self, sh):
        self.sh, self.held = sh, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for buf in self.held:
            buf.free()

    def new(self, rows, cols, dtype, fill="padding"):
        buf = _core.DeviceBuffer(rows, cols, dtype, self.sh, fill)
        self.held.append(buf)
        return buf

    def up(self, host, dtype):
        """A 2-D array of 2-byte elements uploaded (a contiguous copy first where it is not)."""
        host = np.ascontiguousarray(host)
        buf = self.new(host.shape[0], host.shape[1], dtype)
        buf.upload(host, self.sh)
        return buf


def _into(out, res):
    """The result, or `out` with it written in."""
    if out is None:
        return res
    out[...] = res
    return out


def _batched(call, c_host, bias_host, bias_type, batch, M, N, K):
    """Batched NumPy operands: each uploaded whole (through the staging
    ring), one launch for the batch, the result downloaded."""
    a, b, ep, out, sh = call.a, call.b, call.ep, call.out, call.stream
    dt = a.dtype
    with _Buffers(sh) as bufs:
        up = lambda x2d: bufs.up(x2d, DTYPES[dt])  # noqa: E731
        if a.ndim == 2:
            da, sa = up(a), 0
        else:
            da = up(a.reshape(-1, K))
            sa = M * da.pitch if a.shape[0] > 1 else 0
        tn = False
        if b.ndim == 2:
            if b.shape[0] > 1 and b.shape[1] > 1 and b.strides[0] == b.itemsize:
                tn, db = True, up(b.T)
            else:
                db = up(b)
            sb = 0
        else:
            t = b.transpose(0, 2, 1)
            if not b.flags.c_contiguous and t.flags.c_contiguous:  # per-matrix w.T: TN
                tn, db = True, up(t.reshape(-1, K))
                sb = N * db.pitch if b.shape[0] > 1 else 0
            else:
                db = up(b.reshape(-1, N))
                sb = K * db.pitch if b.shape[0] > 1 else 0
        dd = bufs.new(batch * M, N, DTYPES[dt], "none")
        src = ld_src = stride_src = 0
        if c_host is not None:
            c = np.asarray(c_host)
            dc = up(c.reshape(-1, N))
            src, ld_src = dc.ptr, dc.pitch
            stride_src = M * dc.pitch if c.ndim == 3 else 0
        bias_ptr = 0
        if bias_host is not None:
            bias_ptr = bufs.up(np.ascontiguousarray(bias_host).view(np.uint16).reshape(1, -1), _core.DType.float16).ptr
        h, _name, _workspace_bytes = plan(_core.get_device(), M, N, K, dt, tn, call.accumulate, ep.plain, batch,
                                          call.split_k, call.kernel)
        run = _core.RunArgs(h, da.ptr, db.ptr, dd.ptr, da.pitch, db.pitch, dd.pitch, sh, 0, 0, call.grid_swizzle)
        run.set_epilogue(ep.alpha, ep.beta, src, ld_src, stride_src, bias_ptr, bias_type, ep.act)
        run.set_batch(batch, sa, sb, M * dd.pitch)
        _core.run(run)  # workspace 0: the kernel takes its own from tcgemm's pool, on `sh`
        res = np.empty((batch * M, N), dt)
        dd.download(res, sh)
        return _into(out, res.reshape(batch, M, N))


# -- scaled_matmul's NumPy path -------------------------------------------------------------------

def _host_scale(x) -> np.ndarray:
    """A scale as a NumPy array: an array as given (check_scaled refuses any dtype but float32), a
    Python number as a 0-d float32 one."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return np.asarray(x, np.float32)
    return np.asarray(x)


def _words(x: np.ndarray) -> np.ndarray:
    """A C-contiguous array's bytes as a 2-D array of 2-byte words (DeviceBuffer's element)."""
    x = np.ascontiguousarray(x)
    return x.reshape(x.shape[0] if x.ndim == 2 else 1, -1).view(np.uint16)


def numpy_scaled_matmul(a, b, scale_a, scale_b, out_dtype, ep, out, kernel, fast, sh):
    """scaled_matmul on NumPy operands: a (M, K) and b (K, N) ml_dtypes float8 arrays, float32
    scales of torch._scaled_mm's shapes (or Python numbers, tensor-wise). b may be stored either way:
    its columns go up as the rows of an N x K weight, the TN layout FP8 wgmma reads (a copy on the
    host when b is row-major). Each operand goes up into tcgemm's pool as 2-byte words (FP8 rows are
    16-byte multiples, so a row is whole words), the scales as contiguous vectors whose strides the
    launch is given, one launch, the result comes down: a finished array of out_dtype (ml_dtypes
    bfloat16, float16 or float32), or `out` written. Checked as the torch path is
    (_fp8.check_scaled) before anything is allocated."""
    from ._call import scaled_plan
    from ._fp8 import OUT_DTYPES, View, check_scaled, out_dtype_name

    a, b = np.asarray(a), np.asarray(b)
    sa, sb = _host_scale(scale_a), _host_scale(scale_b)
    for x, what in ((a, "a"), (b, "b")):
        if x.dtype == object:
            raise TypeError(f"tcgemm: {what} has dtype object; scaled_matmul takes float8_e4m3fn or float8_e5m2")
    name = out_dtype_name(out_dtype)
    # The checks see the operands as they will lie on the device: A row-major, B column-major, both
    # with rows a multiple of 16 bytes apart; the scales contiguous.
    M, K = a.shape if a.ndim == 2 else (0, 0)
    N = b.shape[1] if b.ndim == 2 else 0
    ld = max(16, -(-K // 16) * 16)
    dev = 0  # the Views' device: all on the call's (check_scaled only compares them)
    va = View(a.dtype.name, a.shape, (ld, 1) if a.ndim == 2 else (1,) * a.ndim, 0, dev)
    vb = View(b.dtype.name, b.shape, (1, ld) if b.ndim == 2 else (1,) * b.ndim, 0, dev)
    vsa = View(sa.dtype.name, sa.shape, tuple(s // sa.itemsize for s in np.ascontiguousarray(sa).strides), 0, dev)
    vsb = View(sb.dtype.name, sb.shape, tuple(s // sb.itemsize for s in np.ascontiguousarray(sb).strides), 0, dev)
    M, N, K, dta, dtb, _lda, _ldb, mode, strides = check_scaled(va, vb, vsa, vsb, name)
    out_type, width = OUT_DTYPES[name]
    np_out = {"bfloat16": bfloat16, "float16": np.float16, "float32": np.float32}[name]
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"tcgemm: out must be a NumPy array with NumPy operands, got {type(out).__name__}")
        if not out.flags.writeable:
            raise ValueError("tcgemm: out is read-only")
        if out.dtype != np_out:
            raise TypeError(f"tcgemm: out has dtype {out.dtype}, expected {name} (out_dtype)")
        if tuple(out.shape) != (M, N):
            raise ValueError(f"tcgemm: out has shape {tuple(out.shape)}, expected {(M, N)}")
    bias_host = None if ep.bias is None else check_bias_host(
        ep.bias if isinstance(ep.bias, (np.ndarray, list, tuple)) else _host_of(ep.bias), N)
    if M == 0 or N == 0:
        return _into(out, np.zeros((M, N), np_out))
    if _core.device_count() == 0:
        archs = _core.build_info()["archs"]
        raise RuntimeError("tcgemm: no CUDA device was found (no GPU, or no NVIDIA driver); "
                           f"this build holds code for {', '.join(archs)}")
    capture_guard(sh, "a NumPy call (host memory in and out, a finished array back)")
    with _Buffers(sh) as bufs:
        up = lambda x: bufs.up(_words(x), _core.DType.float16)  # noqa: E731
        # b's columns as the rows of an N x K weight: as they lie where b is w.T of a row-major w, else
        # copied on the host (_words makes the rows contiguous).
        da, dw = up(a), up(b.T)
        dsa, dsb = up(sa.reshape(1, -1)), up(sb.reshape(1, -1))
        words_per = width // 2  # 2-byte words per output element
        dd = bufs.new(M, N * words_per, out_type if width == 2 else _core.DType.float16, "none")
        bias_ptr, bias_type = 0, 2
        if bias_host is not None:
            bias_ptr, bias_type = up(bias_host.reshape(1, -1)).ptr, BIAS_TYPES[bias_host.dtype]
        h, _name, _workspace_bytes = scaled_plan(_core.get_device(), M, N, K, dta, dtb, out_type, mode, ep.plain,
                                                 kernel, fast)
        # Leading dimensions in elements: two FP8 values per word, half an fp32 output per word.
        run = _core.RunArgs(h, da.ptr, dw.ptr, dd.ptr, 2 * da.pitch, 2 * dw.pitch, dd.pitch // words_per, sh, 0, 0,
                            True)
        run.set_scales(dsa.ptr, dsb.ptr, *strides)
        if not ep.plain:
            run.set_epilogue(1.0, 0.0, 0, 0, 0, bias_ptr, bias_type, ep.act)
        _core.run(run)  # workspace 0: what a kernel needs comes from tcgemm's pool, on `sh`
        res = np.empty((M, N * words_per), np.uint16)
        dd.download(res, sh)
        return _into(out, res.view(np_out))
