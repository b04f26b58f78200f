"""The public API: matmul, kernels, build and device facts.

matmul checks the scalar options, then hands the operands to one of two
paths: operands in device memory (torch, cupy, DeviceArray) go through the
planner cache and a single launch on the caller's stream (``_call.py``);
NumPy operands through the host pipeline (``_host.py``). The adapters at
the edge (``_device_array.py``, ``_fw_torch.py``, ``_fw_cupy.py``) are the
only code that knows each library.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._call import _ADAPTERS, ACCUM, _to_numpy, adapter_of, device_matmul, device_scaled_matmul
from ._device_array import DeviceArray, _on_device, _stream_handle, from_dlpack, to_device
from ._epilogue import Epilogue
from ._fp8 import check_scaled, out_dtype_name
from ._host import empty_pinned, host_array, numpy_matmul, numpy_scaled_matmul, release_memory, set_staging_limit
from ._operands import DTYPES, bfloat16, float16  # noqa: F401 (re-exported by the package)
from ._record import Call

__all__ = ["matmul", "scaled_matmul", "DeviceArray", "to_device", "from_dlpack", "kernels", "build_info", "device_info",
           "empty_pinned", "release_memory", "set_staging_limit"]

_DTYPES = DTYPES  # (tests and the benchmark use this name)


def _check_options(kernel, accumulate, split_k):
    if not isinstance(kernel, str):
        raise TypeError(f"tcgemm: kernel must be a string, got {type(kernel).__name__}")
    if accumulate not in ACCUM:
        raise ValueError(f"tcgemm: accumulate must be 'f32' or 'f16', got {accumulate!r}")
    if split_k is not None and (isinstance(split_k, bool) or not isinstance(split_k, (int, np.integer))
                                or not 1 <= split_k <= 256):
        raise ValueError(f"tcgemm: split_k must be None or an int in 1..256, got {split_k!r}")
    if kernel != "auto" and kernel not in _kernel_names():
        raise ValueError(f"tcgemm: unknown kernel {kernel!r}; tcgemm.kernels() lists them")


# Call(...) with every field given, without the NamedTuple's argument
# handling (a third of its cost; this is the per-call path).
_new_call = tuple.__new__

# The option combinations already checked (a call repeats the same ones).
_CHECKED = set()
_PLAIN = Epilogue(1.0, 0.0, None, None, None)


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
    out: optional NumPy array, DeviceArray or torch/cupy tensor of the
        result's shape and dtype, written in place (any strides: a layout
        the kernels cannot write goes through a staging buffer).
    accumulate: ``"f32"`` (default) or ``"f16"`` (float16 inputs only; Ada
        kernels only; larger rounding error growing with K).
    split_k: None (the kernel decides: ``sm90.ws_splitk`` splits K when the
        output has too few tiles to fill the GPU), 1 (never), or a count
        (``sm90.ws_splitk.swap.dsmem`` and ``sm90.ws_splitk.dsmem`` take at
        most 8: their slices are the CTAs of one cluster); partial sums are reduced in a fixed order, so
        results are bit-identical run to run.
    grid_swizzle: grouped tile order for L2 reuse (on by default).
    stream: CUDA stream to run on (int handle, or an object with
        ``.cuda_stream``/``.ptr`` such as a torch or cupy stream); default stream
        if None. With DeviceArray results the call returns once the kernel is
        queued; with NumPy results it waits for it.
    device: CUDA device index to run on (default: the current device, or
        that of the DeviceArray/tensor inputs); inputs on another device are
        a ValueError.

    Returns ``out`` when given; else a NumPy array (NumPy inputs), a
    DeviceArray (a DeviceArray input), or a tensor of the inputs' framework,
    allocated by that framework on the current stream.

    Costs: torch/cupy/DeviceArray calls allocate nothing but their result
    (and split-K workspace) from the framework's allocator and never
    synchronise, so they can be captured in a CUDA graph. An operand whose
    leading dimension is not a multiple of 8, whose start is not 16-byte
    aligned, or with no unit stride, is first copied (on the stream) into a
    padded buffer; so is an ``out`` of that kind (written back after), and an
    output whose N is not a multiple of 8 (the kernels write rows of 16-byte
    multiples; the result is a dense copy). NumPy calls return a finished
    array (see :func:`empty_pinned` for the fastest host path).
    """
    key = (kernel, accumulate, split_k, split_k.__class__)  # the class: True == 1, but True is refused
    try:
        known = key in _CHECKED
    except TypeError:  # unhashable arguments: let the checks name them
        known = False
    if not known:
        _check_options(kernel, accumulate, split_k)
        _CHECKED.add(key)
    if c is None and bias is None and activation is None and alpha.__class__ is float and alpha == 1.0 and \
            beta.__class__ is float and beta == 0.0:
        ep = _PLAIN  # the defaults: nothing to check
    else:
        ep = Epilogue(alpha, beta, c, bias, activation)
    sk = 0 if split_k is None else int(split_k)

    # Which path: any operand in device memory (or a device out) makes it a
    # device call whose result is of the kind of `out`, else of the first
    # device-resident input.
    # (adapter_of's cache read inline: three function calls fewer per call)
    ad_a = _ADAPTERS.get(a.__class__, False)
    if ad_a is False:
        ad_a = adapter_of(a)
    ad_b = _ADAPTERS.get(b.__class__, False)
    if ad_b is False:
        ad_b = adapter_of(b)
    ad_out = None
    if out is not None:
        ad_out = _ADAPTERS.get(out.__class__, False)
        if ad_out is False:
            ad_out = adapter_of(out)
    if ad_out is not None:
        fw, like = ad_out, out
    elif ad_a is not None:
        fw, like = ad_a, a
    elif ad_b is not None:
        fw, like = ad_b, b
    else:
        sh = 0 if stream is None else _stream_handle(stream)
        if _foreign_cuda(a) or _foreign_cuda(b):
            # another library's CUDA array (jax, ...): viewed through DLPack
            a = from_dlpack(a, stream) if _foreign_cuda(a) else a
            b = from_dlpack(b, stream) if _foreign_cuda(b) else b
            return matmul(a, b, c=c, alpha=alpha, beta=beta, bias=bias, activation=activation, out=out,
                          kernel=kernel, accumulate=accumulate, split_k=split_k, grid_swizzle=grid_swizzle,
                          stream=stream, device=device)
        a, b = host_array(a, "a"), host_array(b, "b")
        with _on_device(device):
            return numpy_matmul(_new_call(Call, (a, b, out, ep, kernel, accumulate, sk, grid_swizzle, sh, None, None,
                                                 None, None, None, None)))
    if ad_a is None:
        a = host_array(a, "a")
    if ad_b is None:
        b = host_array(b, "b")
    dev = fw.device_of(like)
    if device is not None:
        if isinstance(device, bool) or not isinstance(device, (int, np.integer)):
            raise TypeError(f"tcgemm: device must be an int index, got {device!r}")
        if int(device) != dev:
            raise ValueError(f"tcgemm: the operands live on device {dev}, but device={device} was asked for")
    call = _new_call(Call, (a, b, out, ep, kernel, accumulate, sk, grid_swizzle,
                            None if stream is None else _stream_handle(stream), dev, fw, ad_a, ad_b, ad_out, like))
    if out is not None and ad_out is None:
        return _into_host_out(call)
    if _several_devices() and _core.get_device() != dev:
        # Allocations (cupy's, DeviceArrays', staging) and the framework's
        # current stream are per device: make the operands' device current.
        with _on_device(dev):
            return _device_call(call)
    if stream is None:  # the common case, without _device_call's frame
        return device_matmul(call, fw.stream(dev))
    return _device_call(call)


def scaled_matmul(a, b, scale_a, scale_b, *, out_dtype, bias=None, activation=None, out=None, kernel: str = "auto",
                  use_fast_accum: bool = False):
    """``act(scale_a * scale_b * (a @ b) + bias)`` for FP8 torch CUDA tensors, with
    ``torch._scaled_mm``'s meaning of the scales (they dequantize: ``x ~= data * scale``).

    a: (M, K) ``torch.float8_e4m3fn`` or ``torch.float8_e5m2``, row-major, rows a multiple of 16
        elements apart. b: (K, N), column-major: ``w.T`` of an (N, K) row-major weight (the TN
        layout, as ``torch._scaled_mm`` requires; any other layout is a ValueError naming it).
        e5m2 x e5m2 is refused.
    scale_a, scale_b: float32 tensors on the operands' device: tensor-wise ``()`` or ``(1, 1)`` each;
        row-wise ``(M, 1)`` and ``(1, N)``; block ``(M, ceil(K/128))`` (1 x 128) and
        ``(ceil(N/128), ceil(K/128))`` (128 x 128). Any strides.
    out_dtype: ``torch.bfloat16``, ``torch.float16`` or ``torch.float32``.
    bias: N values (float16, bfloat16 or float32), added after the scales; activation: None,
        "relu", "gelu" (tanh form) or "silu".
    out: optional (M, N) tensor of ``out_dtype``, row-major with 16-byte aligned rows, written in place.
    kernel: ``"auto"`` or an FP8 entry of :func:`kernels`.
    use_fast_accum: as ``torch._scaled_mm``'s. False (the default): the sums are kept in fp32 (on
        Hopper each 128-K block's wgmma sum is promoted into fp32 registers, as cuBLASLt does).
        True: Hopper's FP8 wgmma keeps each tile's whole sum in its own accumulator, which adds with
        fewer bits than fp32 -- faster, with an error that grows with K (docs/fp8.md, "Accuracy").
        Block scales always promote; the Ada kernels always sum in fp32. A ``kernel`` named
        explicitly must sum as asked (``sm90.ws_fp8`` and the other unpromoted entries need True).

    Every argument is checked before anything is launched. The call allocates only its result (from
    torch's allocator, on the current stream; a dense copy when a row of N values is not a multiple of
    16 bytes), never synchronises, and can be captured in a CUDA graph.

    NumPy: a and b ``ml_dtypes.float8_e4m3fn`` / ``float8_e5m2`` arrays (b stored either way), the
    scales float32 arrays of the same shapes (or Python numbers, tensor-wise), bias a NumPy array,
    out_dtype NumPy's float16 / float32 or ``ml_dtypes.bfloat16`` (or the names): the operands go up
    to the current device, the result comes back as a NumPy array (or into a NumPy `out`). Host memory
    in and out: it synchronises and cannot be captured.
    """
    if use_fast_accum is not True and use_fast_accum is not False:
        raise TypeError(f"tcgemm: use_fast_accum must be True or False, got {use_fast_accum!r}")
    key = (kernel, "f32", None, None.__class__)
    try:
        known = key in _CHECKED
    except TypeError:
        known = False
    if not known:
        _check_options(kernel, "f32", None)
        _CHECKED.add(key)
    ep = _PLAIN if bias is None and activation is None else Epilogue(1.0, 0.0, None, bias, activation)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        for x, what in ((scale_a, "scale_a"), (scale_b, "scale_b"), (out, "out")):
            if x is not None and not isinstance(x, (np.ndarray, np.generic, int, float)):
                raise TypeError(f"tcgemm: a and b are NumPy arrays but {what} is a {type(x).__name__}; a NumPy "
                                f"call takes NumPy scales and out (torch CUDA tensors: all of them torch's)")
        return numpy_scaled_matmul(a, b, scale_a, scale_b, out_dtype, ep, out, kernel, use_fast_accum, 0)
    fw = None
    for x, what in ((a, "a"), (b, "b"), (scale_a, "scale_a"), (scale_b, "scale_b"), (out, "out")):
        if x is None and what == "out":
            continue
        ad = _ADAPTERS.get(x.__class__, False)
        if ad is False:
            ad = adapter_of(x)
        if ad is None or not hasattr(ad, "view"):  # (torch's adapter reads FP8 tensors; the others do not)
            if isinstance(x, np.ndarray):
                raise TypeError(f"tcgemm: {what} is a NumPy array but a or b is not; scaled_matmul takes NumPy "
                                f"arrays or torch CUDA tensors, not a mix")
            raise TypeError(f"tcgemm: {what} must be a torch CUDA tensor or a NumPy array, got {type(x).__name__}")
        if fw is None:
            fw = ad
    va, vb, vsa, vsb = fw.view(a), fw.view(b), fw.view(scale_a), fw.view(scale_b)
    vout = None if out is None else fw.view(out)
    views = (va, vb, vsa, vsb, vout, check_scaled(va, vb, vsa, vsb, out_dtype, vout))  # raises before any launch
    out_dtype = out_dtype_name(out_dtype)
    dev = va.device
    if _several_devices() and _core.get_device() != dev:
        with _on_device(dev):
            return device_scaled_matmul(fw, a, b, scale_a, scale_b, views, out_dtype, ep, out, kernel, use_fast_accum,
                                        fw.stream(dev))
    return device_scaled_matmul(fw, a, b, scale_a, scale_b, views, out_dtype, ep, out, kernel, use_fast_accum,
                                fw.stream(dev))


def _device_call(call):
    """device_matmul on the call's stream: the framework's current one, or the
    caller's made current for the call (so its allocations are ordered with the launch)."""
    if call.stream is None:
        return device_matmul(call, call.fw.stream(call.device))
    with fw_stream(call.fw, call.stream, call.device):
        return device_matmul(call, call.stream)


_DEVICE_COUNT = None


def _several_devices() -> bool:
    global _DEVICE_COUNT
    if _DEVICE_COUNT is None:
        _DEVICE_COUNT = _core.device_count()
    return _DEVICE_COUNT > 1


def _into_host_out(call):
    """Device inputs, a NumPy out: compute on the device, then copy down."""
    out = call.out
    if not isinstance(out, np.ndarray):
        raise TypeError(f"tcgemm: out must be a NumPy array, a DeviceArray or a torch/cupy tensor, "
                        f"got {type(out).__name__}")
    res = matmul(call.a, call.b, **call.options())
    host = _to_numpy(res, None)
    if host.shape != out.shape:
        raise ValueError(f"tcgemm: out has shape {tuple(out.shape)}, expected {host.shape}")
    if host.dtype != out.dtype:
        raise TypeError(f"tcgemm: out has dtype {out.dtype}, expected {host.dtype}")
    out[...] = host
    return out


class fw_stream:
    """Make `sh` the framework's current stream for a call given stream=, so
    its allocations and staging copies are ordered with the launch."""

    def __init__(self, fw, sh, dev):
        self.fw, self.sh, self.dev, self.ctx = fw, sh, dev, None

    def __enter__(self):
        if self.fw.kind == "torch":
            import torch
            self.ctx = torch.cuda.stream(torch.cuda.ExternalStream(self.sh, device=self.dev))
        elif self.fw.kind == "cupy":
            import cupy
            self.ctx = cupy.cuda.ExternalStream(self.sh)
        if self.ctx is not None:
            self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)


def _foreign_cuda(x) -> bool:
    if x is None or isinstance(x, (np.ndarray, DeviceArray)) or not hasattr(x, "__dlpack__"):
        return False
    try:
        return x.__dlpack_device__()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
    except Exception:
        return False


_KERNEL_NAMES = None


def _kernel_names() -> frozenset:
    """The registry's names (fixed for the life of the process): checked here so an unknown name
    is a ValueError even where no GPU is present, without walking the registry on every call."""
    global _KERNEL_NAMES
    if _KERNEL_NAMES is None:
        _KERNEL_NAMES = frozenset(k["name"] for k in _core.kernels())
    return _KERNEL_NAMES


def kernels() -> list:
    """Every registered kernel: name, family, arch, dtypes, layouts,
    accumulators, tile, stages, built, runnable (on the current device) and
    why_not (the reason when not runnable)."""
    return _core.kernels()


def build_info() -> dict:
    """Library version, CUDA version it was built with, SASS targets built, and the commit the build was
    made from (`commit`, None where unknown; `commit_dirty`: whether that tree had uncommitted changes)."""
    return _core.build_info()


def device_info():
    """The current CUDA device (name, compute capability, memory...), or None."""
    return _core.device_info()
