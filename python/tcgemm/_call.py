"""The planner cache and the one launch path for operands in device memory.

Every device-resident call -- torch tensors, cupy arrays, DeviceArrays,
batched or not, with or without an epilogue -- goes through
:func:`device_matmul`: the adapter (``fw``) turns each operand into an
Operand, the plan for the shape is a dictionary hit after the first call,
memory comes from the adapter's allocator, and ``_core.run`` checks the
arguments and enqueues the kernel on the caller's stream. Nothing here
synchronises, so with torch's or cupy's allocator the call can be captured
in a CUDA graph.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._operands import BIAS_TYPES, DTYPES, bfloat16, dtype_name, float16
from ._staging import ALIGN, Staging
from ._workspace import WorkspaceCache

_LAYOUT = (_core.Layout.NN, _core.Layout.TN)
ACCUM = {"f32": _core.Accum.f32, "f16": _core.Accum.f16}
_PLANS: dict = {}
_MAX_PLANS = 1 << 16
_ANY_ROWS = None  # names of the kernels that read rows anywhere (feature "any_rows"), read once


def any_rows(kernel) -> bool:
    """Whether `kernel` (a name, or "auto") reads and writes rows at any leading dimension and
    2-byte aligned start: then an operand the others need staged is passed as it is."""
    global _ANY_ROWS
    if _ANY_ROWS is None:
        _ANY_ROWS = frozenset(k["name"] for k in _core.kernels() if "any_rows" in k["features"])
    return kernel in _ANY_ROWS


def plan(device, M, N, K, dtype, tn, accumulate, plain, batch, split_k, kernel, b_ragged=False):
    """-> (handle, kernel name, workspace bytes); cached per shape and device. b_ragged: b's rows
    are off the 16-byte grid (auto may then name a kernel that reads rows anywhere)."""
    key = (device, M, N, K, dtype, tn, accumulate, plain, batch, split_k, kernel) + ((True,) if b_ragged else ())
    p = _PLANS.get(key)
    if p is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        p = _PLANS[key] = _core.plan(kernel, M, N, K, DTYPES[dtype], _LAYOUT[tn], ACCUM[accumulate], plain, batch,
                                     split_k, device, **({"b_ragged": True} if b_ragged else {}))
    return p


# auto_for_ragged_b's answers by layout: (device, a's and b's shapes and element strides, dtypes,
# accumulate, plain, split_k) -> the kernel name, "auto" where b is staged. Bounded as _PLANS.
_RAGGED_AUTO: dict = {}


def auto_for_ragged_b(a, b, ada, adb, dev, accumulate, plain, split_k):
    """-> (kernel, A, B) for `auto` with b off the 16-byte grid: a kernel that reads rows anywhere
    where the families name one for the shape (sm89.mma_skinny.s4: a decode-shaped x @ w.T, the
    weight read in place instead of copied) and a, b as it reads them; else ("auto", None, None):
    b staged as before. 2-D operands only. The answer is kept per layout, so a call whose b is
    staged pays two dictionary lookups for asking, not a classification of both operands."""
    if len(a.shape) != 2 or len(b.shape) != 2 or "DeviceArray" in (ada.kind, adb.kind):
        return "auto", None, None  # (a DeviceArray is always on the grid; its strided() is for staging only)
    _, sa, ta = ada.strided(a, "a")
    _, sb, tb = adb.strided(b, "b")
    key = (dev, sa, ta, sb, tb, ada.dtype_of(a, "a"), adb.dtype_of(b, "b"), accumulate, plain, split_k)
    kernel = _RAGGED_AUTO.get(key)
    if kernel == "auto":
        return "auto", None, None
    A, B = ada.operand(a, "a", True), adb.operand(b, "b", True)
    if A is None or B is None or A.transposed or A.cols != B.rows or A.dtype != B.dtype:
        kernel = "auto"  # (staged, or refused with the usual message)
    elif kernel is None:
        kernel = plan(dev, A.rows, B.cols, A.cols, A.dtype, B.transposed, accumulate, plain, 1, split_k, "auto",
                      True)[1]
        kernel = kernel if any_rows(kernel) else "auto"
    if len(_RAGGED_AUTO) >= _MAX_PLANS:
        _RAGGED_AUTO.clear()
    _RAGGED_AUTO[key] = kernel
    return (kernel, A, B) if kernel != "auto" else ("auto", None, None)


def scaled_plan(device, M, N, K, dtype_a, dtype_b, dtype_c, mode, plain, kernel, fast):
    """plan() for a scaled FP8 product (TN, no batch; fast: torch's use_fast_accum, Accum.fast, else
    fp32 sums, Accum.f32): the same cache, keyed apart."""
    key = (device, M, N, K, dtype_a, dtype_b, dtype_c, mode, plain, kernel, fast, "scaled")
    p = _PLANS.get(key)
    if p is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        accum = _core.Accum.fast if fast else _core.Accum.f32
        p = _PLANS[key] = _core.plan(kernel, M, N, K, dtype_a, _core.Layout.TN, accum, plain, 1, 0, device,
                                     dtype_b=dtype_b, dtype_c=dtype_c, scale_mode=mode)
    return p


# Split-K workspaces kept per (framework, device, stream), bounded, so that a
# repeated call allocates nothing (a framework allocation costs a few
# microseconds of host time): _workspace.py says what is kept and why
# dropping one is safe. release_memory() drops them all.
WORKSPACES = WorkspaceCache()


# Staged buffers up to this many bytes share the stream's kept workspace; larger ones are taken
# from the framework's allocator for the call (a few microseconds against copies of 16 MB and a GEMM
# of tens of microseconds at least). The bound is what a (stream, thread) can keep beyond its
# split-K bytes: at most MAX_STREAMS of them per device (_workspace.py), 128 MiB.
KEEP_STAGING = 16 << 20


def staging_workspace(fw, stg, nbytes, dev, like, sh):
    """workspace() for a call that stages operands: kept up to KEEP_STAGING bytes, else fresh from
    the framework's allocator on `sh` (a DeviceArray call with a torch or cupy operand to stage:
    from that operand's framework)."""
    if fw.kind == "DeviceArray":
        fw, like = stg.owner
    elif nbytes <= KEEP_STAGING:
        return workspace(fw, nbytes, dev, like, sh)
    return fw.scratch(nbytes, dev, like, sh)


def workspace(fw, nbytes, dev, like, sh):
    """-> (keep-alive, pointer) of at least `nbytes` on stream `sh` (the
    framework's current stream for the call: what its allocator orders on)."""
    if fw.kind == "DeviceArray":
        return fw.workspace(nbytes, dev, like)  # tcgemm's pool, ordered on the stream
    if _core.capture_status(sh) != "none":
        # Captured into a CUDA graph: fresh memory from the framework's
        # allocator, which serves the graph's private pool; never kept, so the
        # cache holds nothing a graph uses.
        return fw.workspace(nbytes, dev, like)
    w = WORKSPACES.lookup(fw.kind, dev, sh, nbytes)
    if w is None:
        keep, ptr = fw.workspace(nbytes, dev, like)
        w = WORKSPACES.put(fw.kind, dev, sh, keep, ptr, nbytes, fw.stream_object(sh))
    return w[0], w[1]


# type -> adapter module/class (torch, cupy and DeviceArray; filled lazily so
# that importing tcgemm imports neither torch nor cupy).
_ADAPTERS: dict = {}


def adapter_of(x):
    """The adapter of a device-resident operand, or None (NumPy, lists, ...)."""
    t = type(x)
    ad = _ADAPTERS.get(t, False)
    if ad is not False:
        return ad
    ad = None
    from ._device_array import DeviceArray, DeviceArrays
    mod = t.__module__.split(".")[0]
    if isinstance(x, DeviceArray):
        ad = DeviceArrays
    elif mod == "torch":
        import torch
        if isinstance(x, torch.Tensor):
            from . import _fw_torch as ad
    elif mod == "cupy":
        import cupy
        if isinstance(x, cupy.ndarray):
            from . import _fw_cupy as ad
    _ADAPTERS[t] = ad
    return ad


def _capturing(sh: int) -> str:
    """'none', or how `sh` (or the thread's current torch/cupy stream) is
    being captured. Asking the stream covers captures on it and, for the
    legacy stream, on blocking streams; torch and cupy capture on
    non-blocking streams, which the legacy stream does not see, so where
    they are loaded their current stream is asked too."""
    st = _core.capture_status(sh)
    if st != "none":
        return st
    import sys
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized() and torch.cuda.is_current_stream_capturing():
        return "torch's current stream is capturing"
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            if cupy.cuda.get_current_stream().is_capturing():
                return "cupy's current stream is capturing"
        except Exception:
            pass
    return "none"


def capture_guard(sh: int, what: str) -> None:
    """Raise before touching the stream if a CUDA graph is being captured
    (the call would synchronise, or allocate outside the graph's allocator,
    and so invalidate the caller's capture)."""
    st = _capturing(sh)
    if st != "none":
        raise RuntimeError(f"tcgemm: {what} cannot be captured in a CUDA graph ({st}); it would synchronise or "
                           "allocate outside the graph's allocator. Inside a capture use torch/cupy tensors "
                           "(outputs and workspace come from their allocators), or out= for DeviceArrays.")


def _inner_mismatch(batched, M, K, Kb, N):
    pre = "...x" if batched else ""
    return ValueError(f"tcgemm: inner dimensions differ: a is {pre}{M}x{K}, b is {pre}{Kb}x{N}")


def device_matmul(call, sh):
    """a @ b (with the epilogue) for operands in device memory, on stream `sh`
    (the call's stream, current in its framework). Each operand is read (and
    if need be staged) by its own adapter (`call.ad_a`, `ad_b`, `ad_out`; None
    for a NumPy operand); memory the call makes comes from `call.fw`, the
    adapter of `call.like`, the operand that decides the result's kind."""
    # Every field at once (one tuple unpacking; cheaper than reading them one by one).
    a, b, out, ep, kernel, accumulate, split_k, grid_swizzle, _stream, dev, fw, ada, adb, ad_out, like = call
    if ada is None or adb is None:
        capture_guard(sh, "a NumPy operand mixed with device operands (uploaded first)")
        if ada is None:
            a, ada = fw.from_host(a, sh, dev, like), fw
        if adb is None:
            b, adb = fw.from_host(b, sh, dev, like), fw
    if ada.device_of(a) != dev:  # (the checks of _same_device, inline: this is the per-call path)
        _same_device(ada, a, "a", dev)
    if adb.device_of(b) != dev:
        _same_device(adb, b, "b", dev)
    # What the kernels cannot read in place is staged (_staging.py): laid out here, copied by the
    # launch itself; a weight off the 16-byte grid may instead go to a kernel that reads it in place.
    stg, A = None, None
    B = adb.operand(b, "b")
    if B is None and kernel == "auto":
        kernel, A, B = auto_for_ragged_b(a, b, ada, adb, dev, accumulate, ep.plain, split_k)
    if A is None:
        A = ada.operand(a, "a")
        if A is None and any_rows(kernel):  # rows anywhere: read in place (the 16-byte rule is the others')
            A = ada.operand(a, "a", True)
        if A is None or A.transposed:  # the kernels read A row-major
            stg = Staging()
            A = stg.operand(ada, a, "a")
    if B is None and any_rows(kernel):
        B = adb.operand(b, "b", True)
    if B is None:
        stg = stg or Staging()
        B = stg.operand(adb, b, "b", column_major_ok=True)
    dt = A.dtype
    if B.dtype is not dt and B.dtype != dt:
        raise TypeError(f"tcgemm: a and b must have the same dtype, got {A.dtype} and {B.dtype}")
    M, K, Kb, N = A.rows, A.cols, B.rows, B.cols
    batched = len(a.shape) == 3 or len(b.shape) == 3
    if K != Kb:
        raise _inner_mismatch(batched, M, K, Kb, N)
    if accumulate == "f16" and dt is bfloat16:
        raise ValueError("tcgemm: accumulate='f16' needs float16 inputs (bf16 tensor-core MMAs accumulate in f32)")
    batch = 1
    sa, sb = A.bstride, B.bstride
    if batched:
        ba = A.batch if len(a.shape) == 3 else 1
        bb = B.batch if len(b.shape) == 3 else 1
        if ba != bb and 1 not in (ba, bb):
            raise ValueError(f"tcgemm: batch sizes {ba} and {bb} do not broadcast")
        batch = bb if ba == 1 else ba  # NumPy: a batch of 1 broadcasts (also against 0)
        if ba == 1:
            sa = 0
        if bb == 1:
            sb = 0
    if ep.c is not None:
        ep.check_c((batch, M, N) if batched else (M, N), dt, batched)

    # The output: the caller's `out` in place when the kernels can write it,
    # else a staging buffer copied into it afterwards.
    D, res = None, None  # res: where a staged D is copied to (out, or the new result)
    if out is not None:
        D = ad_out.operand(out, "out")
        if D is None and any_rows(kernel):
            D = ad_out.operand(out, "out", True)
        if D is None or D.transposed or (D.dtype is not dt and D.dtype != dt) or D.rows != M or D.cols != N or \
                (batched and (len(out.shape) != 3 or D.batch != batch)) or (not batched and len(out.shape) != 2):
            _check_out(out, (batch, M, N) if batched else (M, N), dt)  # raises on a wrong shape or dtype
            if ad_out.kind == "DeviceArray":
                raise ValueError("tcgemm: out must be a row-major DeviceArray, not a transposed view")
            res = out
        elif ad_out.device_of(out) != dev:
            _same_device(ad_out, out, "out", dev)
    if M == 0 or N == 0 or K == 0 or batch == 0:
        return _empty_product(fw, ep, out, (batch, M, N) if batched else (M, N), dt, sh, dev, like, batched)
    if res is not None:  # the caller's out, staged (c is out: read from it first)
        stg = stg or Staging()
        D = stg.result(batch, M, N, dt, ad_out.strided(out, "out"), ep.c is out)
    elif D is None:
        if not fw.capturable_outputs:
            capture_guard(sh, f"a new {fw.kind} result")
        # Dense (torch, cupy) or pitched (DeviceArray); dense rows that are not 16-byte multiples
        # are written through a staged buffer, unless the kernel writes rows anywhere.
        D = fw.empty(batch if batched else None, M, N, dt, dev, sh, like, True)
        if D.ld % 8 and not any_rows(kernel):
            res, stg = D, stg or Staging()
            D = stg.result(batch, M, N, dt, (D.ptr, (batch, M, N) if batched else (M, N),
                                             (M * D.ld, D.ld, 1) if batched else (D.ld, 1)))
    C = None  # the epilogue's source (ep.c is None when beta == 0)
    if ep.c is not None:
        if ep.c is out:
            C = D
        else:
            c = ep.c
            adc = adapter_of(c)
            if adc is None:
                if not isinstance(c, np.ndarray):
                    raise TypeError(f"tcgemm: c must be an array of a kind tcgemm takes, got {type(c).__name__}")
                capture_guard(sh, "a NumPy c (uploaded first)")
                c, adc = fw.from_host(c, sh, dev, like), fw
            _same_device(adc, c, "c", dev)
            C = adc.operand(c, "c")
            if C is None and any_rows(kernel):
                C = adc.operand(c, "c", True)
            if C is None or C.transposed:
                stg = stg or Staging()
                C = stg.operand(adc, c, "c")

    tn = B.transposed
    p = _PLANS.get((dev, M, N, K, dt, tn, accumulate, ep.plain, batch, split_k, kernel))  # plan()'s cache, inline
    if p is None:
        p = plan(dev, M, N, K, dt, tn, accumulate, ep.plain, batch, split_k, kernel)
    h, _name, workspace_bytes = p
    if stg is None:
        workspace_keep, workspace_ptr = workspace(fw, workspace_bytes, dev, like, sh) if workspace_bytes else (None, 0)
    else:  # the staged buffers after the kernel's workspace, in one allocation
        kernel_bytes = -(-workspace_bytes // ALIGN) * ALIGN
        workspace_keep, workspace_ptr = staging_workspace(fw, stg, kernel_bytes + stg.nbytes, dev, like, sh)
        copies = stg.place(workspace_ptr + kernel_bytes)
    run = _core.RunArgs(h, A.ptr, B.ptr, D.ptr, A.ld, B.ld, D.ld, sh, workspace_ptr, workspace_bytes, grid_swizzle)
    if stg is not None:
        run.set_staging(*copies)
    if not ep.plain:
        src, ld_src, stride_src = 0, 0, 0
        if C is not None:
            src, ld_src = C.ptr, C.ld
            stride_src = C.bstride if batched and len(ep.c.shape) == 3 else 0
        bias_ptr, bias_type, keep_bias = 0, 2, None
        if ep.bias is not None:
            bias_ptr, bias_type, keep_bias = _bias(fw, ep, N, sh, dev, like)
        run.set_epilogue(ep.alpha, ep.beta, src, ld_src, stride_src, bias_ptr, bias_type, ep.act)
    if batch != 1:
        run.set_batch(batch, sa, sb, D.bstride)
    _core.run(run)
    if fw.kind == "DeviceArray":
        fw.mark_used(D, sh)
    if out is not None:
        return out
    return fw.result(res or D, batch, M, N)


def device_scaled_matmul(fw, a, b, scale_a, scale_b, views, out_dtype, ep, out, kernel, fast, sh):
    """act(scale_a * scale_b * (a @ b) + bias) for FP8 tensors of framework `fw`, on stream `sh` (its
    current one), after scaled_matmul has checked everything (`views`: the adapter's Views of a, b,
    scale_a, scale_b, out and ``_fp8.check_scaled``'s answer): the plan (a dictionary hit after the
    first call), the output from the framework's allocator unless `out` is given, and one launch.
    Nothing synchronises; nothing but the output is allocated (and a workspace: split-K partials or a
    `.lines` entry's operand copies)."""
    from ._fp8 import OUT_DTYPES
    va, _vb, vsa, vsb, vout, (M, N, K, dta, dtb, lda, ldb, mode, (sa0, sa1, sb0, sb1)) = views
    dev = va.device
    if M == 0 or N == 0:
        return out if out is not None else fw.result(fw.empty_out(M, N, out_dtype, a), 1, M, N)
    bias_ptr, bias_type, keep_bias = 0, 2, None
    if ep.bias is not None:
        bias_ptr, bias_type, keep_bias = _bias(fw, ep, N, sh, dev, a)
    h, _name, workspace_bytes = scaled_plan(dev, M, N, K, dta, dtb, OUT_DTYPES[out_dtype][0], mode, ep.plain, kernel,
                                            fast)
    D = None
    if vout is not None:
        per16 = 16 // OUT_DTYPES[out_dtype][1]
        d_ptr, ldd = vout.ptr, vout.strides[0] if M > 1 else -(-N // per16) * per16
    else:
        D = fw.empty_out(M, N, out_dtype, a)
        d_ptr, ldd = D.ptr, D.ld
    # The split-K bytes, or a `.lines` entry's copies of the operands: kept per stream as staging
    # buffers are, up to KEEP_STAGING; larger ones from the allocator for the call.
    workspace_keep, workspace_ptr = (None, 0) if not workspace_bytes else \
        workspace(fw, workspace_bytes, dev, a, sh) if workspace_bytes <= KEEP_STAGING else \
        fw.scratch(workspace_bytes, dev, a, sh)
    run = _core.RunArgs(h, va.ptr, _vb.ptr, d_ptr, lda, ldb, ldd, sh, workspace_ptr, workspace_bytes, True)
    run.set_scales(vsa.ptr, vsb.ptr, sa0, sa1, sb0, sb1)
    if not ep.plain:
        run.set_epilogue(1.0, 0.0, 0, 0, 0, bias_ptr, bias_type, ep.act)
    _core.run(run)
    if out is not None:
        return out
    return fw.result(D, 1, M, N)


def _same_device(ad, x, what, dev):
    """Every device operand on the call's device (a CPU torch tensor raises in device_of)."""
    d = ad.device_of(x)
    if d != dev:
        raise ValueError(f"tcgemm: {what} lives on device {d}, but the call runs on device {dev}")


def _bias(fw, ep, N, sh, dev, like):
    bias = ep.bias
    if isinstance(bias, np.ndarray) or isinstance(bias, (list, tuple)):
        host = ep.check_bias_host(N)
        capture_guard(sh, "a NumPy bias (uploaded per call)")
        if fw.kind == "DeviceArray":  # the bytes as a (1, n) float16 DeviceArray
            from ._device_array import to_device
            dev_bias = to_device(host.view(np.float16).reshape(1, -1), sh)
            return dev_bias.ptr, BIAS_TYPES[host.dtype], dev_bias
        dev_bias = fw.from_host(host, sh, dev, like)
        ptr = dev_bias.data_ptr() if hasattr(dev_bias, "data_ptr") else dev_bias.data.ptr
        return ptr, BIAS_TYPES[host.dtype], dev_bias
    adv = device_bias_adapter(bias)
    _same_device(adv, bias, "bias", dev)
    ptr, dt, n, keep = adv.vector(bias, "bias")
    if dt not in BIAS_TYPES:
        raise TypeError(f"tcgemm: bias has dtype {dt}; it takes float16, bfloat16 or float32")
    if n != N:
        raise ValueError(f"tcgemm: bias must have shape ({N},) (one value per output column), got ({n},)")
    return ptr, BIAS_TYPES[dt], keep


def device_bias_adapter(bias):
    adv = adapter_of(bias)
    if adv is None:
        raise TypeError(f"tcgemm: bias must be a NumPy array, a DeviceArray or a torch/cupy CUDA tensor, "
                        f"got {type(bias).__name__}")
    return adv


_NAMES = {float16: "float16", bfloat16: "bfloat16"}  # (np.dtype.name is a Python property: slow)


def _check_out(out, shape, dtype):
    oshape = tuple(out.shape)
    if oshape != tuple(shape):
        raise ValueError(f"tcgemm: out has shape {oshape}, expected {tuple(shape)}")
    odt = dtype_name(out)
    if odt != (_NAMES.get(dtype) or dtype.name):
        raise TypeError(f"tcgemm: out has dtype {odt}, expected {dtype}")


def _empty_product(fw, ep, out, shape, dt, sh, dev, like, batched):
    """Nothing to multiply: the epilogue of an all-zero product (on the host)."""
    capture_guard(sh, "an empty product (K == 0 epilogue on the host)")
    c_host = None
    if ep.c is not None:
        c_host = _to_numpy(ep.c, dt)
    bias_host = None
    if ep.bias is not None:
        if isinstance(ep.bias, (np.ndarray, list, tuple)):
            bias_host = ep.check_bias_host(shape[-1])
        else:
            adv = device_bias_adapter(ep.bias)
            _same_device(adv, ep.bias, "bias", dev)
            _ptr, _dt, n, _keep = adv.vector(ep.bias, "bias")
            if n != shape[-1]:
                raise ValueError(f"tcgemm: bias must have shape ({shape[-1]},) (one value per output column), "
                                 f"got ({n},)")
            bias_host = _to_numpy(ep.bias, None)
    res = ep.on_host(np.zeros(shape, np.float32), c_host, bias_host).astype(dt)
    if out is not None:
        if res.size:
            _write_host_into(fw, out, res, sh, dev, like)
        return out
    if fw.kind == "DeviceArray":
        from ._device_array import to_device
        if batched:
            raise ValueError("tcgemm: DeviceArrays are 2-D; batched matmul takes NumPy arrays or torch/cupy tensors")
        return to_device(res, sh)
    return fw.from_host(res, sh, dev, like)


def _to_numpy(x, dt):
    from ._device_array import DeviceArray
    if isinstance(x, DeviceArray):
        return x.numpy()
    if hasattr(x, "detach"):  # torch
        t = x.detach().cpu()
        import torch
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(bfloat16)
        return t.numpy()
    if hasattr(x, "get"):  # cupy
        return x.get()
    return np.asarray(x)


def _write_host_into(fw, out, res, sh, dev, like):
    from ._device_array import DeviceArray
    if isinstance(out, DeviceArray):  # row-major (device_matmul refused a transposed view)
        out._live().upload(res, sh)
        return
    dev_res = fw.from_host(res, sh, dev, like)
    if hasattr(out, "copy_"):
        out.copy_(dev_res)
    else:
        out[...] = dev_res
