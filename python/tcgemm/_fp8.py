"""FP8 helpers: quantize_fp8, and how scaled GEMMs read their scales' shapes.

The scales are dequantization factors, as torch._scaled_mm takes them:
``x ~= data * scale`` for each block, and the GEMM computes
``act(scale_a * scale_b * (A @ B) + bias)``. The formats are the OCP FP8 ones
(``float8_e4m3fn``: max 448, ``float8_e5m2``: max 57344), ml_dtypes' types for
NumPy and torch's ``float8_e4m3fn`` / ``float8_e5m2``.
"""
from __future__ import annotations

import numpy as np

from . import _core

BLOCK = 128  # K (and N, for B) per block-scale entry (tcgemm/types.h: kScaleBlockSize)
FP8_MAX = {"float8_e4m3fn": 448.0, "float8_e5m2": 57344.0}


def _blocks(n: int) -> int:
    return -(-n // BLOCK)


def scale_layout(M: int, N: int, K: int, sa_shape, sa_strides, sb_shape, sb_strides):
    """The ScaleMode and element strides (a_stride, a_stride_k, b_stride, b_stride_k) of scales of
    these shapes for an (M x K) @ (K x N) product, as torch._scaled_mm reads them:
    tensor-wise () or (1, 1) each; row-wise A (M, 1) and B (1, N); block A (M, ceil(K/128)) and
    B (ceil(N/128), ceil(K/128)). Any other pair is a ValueError naming what was expected."""
    sa, sb = tuple(int(d) for d in sa_shape), tuple(int(d) for d in sb_shape)
    one = lambda s: s in ((), (1,), (1, 1))  # noqa: E731
    if one(sa) and one(sb):
        return _core.ScaleMode.tensor, (0, 0, 0, 0)
    if len(sa) != 2 or len(sb) != 2:
        raise ValueError(f"tcgemm: scale_a has shape {sa} and scale_b {sb}; scales are () or 2-D: tensor-wise "
                         f"() or (1, 1), row-wise ({M}, 1) and (1, {N}), block ({M}, {_blocks(K)}) and "
                         f"({_blocks(N)}, {_blocks(K)})")
    if sa == (M, 1) and sb == (1, N):
        return _core.ScaleMode.rowwise, (int(sa_strides[0]), 0, int(sb_strides[1]), 0)
    if sa == (M, _blocks(K)) and sb == (_blocks(N), _blocks(K)):
        return _core.ScaleMode.block, (int(sa_strides[0]), int(sa_strides[1]), int(sb_strides[0]),
                                       int(sb_strides[1]))
    raise ValueError(f"tcgemm: scale_a of shape {sa} with scale_b of shape {sb} is no scale mode for "
                     f"M={M}, N={N}, K={K}: tensor-wise () or (1, 1) each; row-wise ({M}, 1) and (1, {N}); "
                     f"block ({M}, {_blocks(K)}) and ({_blocks(N)}, {_blocks(K)}) (1x128 and 128x128 blocks)")


def _block_shape(block, shape):
    """quantize_fp8's block argument -> (rows, cols) per scale, None for one scale."""
    rows, cols = shape
    if block is None or block == "tensor":
        return None
    if block == "row":
        return (1, max(cols, 1))
    if isinstance(block, tuple) and block in ((1, BLOCK), (BLOCK, BLOCK)):
        return block
    raise ValueError(f"tcgemm: block must be None, 'tensor', 'row', (1, 128) or (128, 128), got {block!r}")


def _dtype_name(dtype) -> str:
    name = getattr(dtype, "__name__", None) or str(dtype).replace("torch.", "")
    if name not in FP8_MAX:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            pass
    if name not in FP8_MAX:
        raise TypeError(f"tcgemm: dtype must be float8_e4m3fn or float8_e5m2, got {dtype!r}")
    return name


def quantize_fp8(x, block=None, dtype="float8_e4m3fn"):
    """-> (data, scales): ``x`` (2-D, float) in FP8 with fp32 dequantization scales, ``x ~= data *
    scale`` per block, each block's largest magnitude mapped to the format's largest value.

    block: None or ``"tensor"`` (one scale, shape ()), ``"row"`` (one per row, shape (rows, 1)),
        ``(1, 128)`` (per row per 128 columns, shape (rows, ceil(cols/128)): an activation's A
        scales), ``(128, 128)`` (shape (ceil(rows/128), ceil(cols/128)): a weight stored N x K gives
        B's block scales). A block of zeros has scale 1.
    dtype: ``"float8_e4m3fn"`` (default) or ``"float8_e5m2"``, or the type itself.

    NumPy in, NumPy out (``ml_dtypes`` types); a torch tensor in, torch tensors out on its device.
    """
    name = _dtype_name(dtype)
    if hasattr(x, "detach") and type(x).__module__.split(".")[0] == "torch":
        return _quantize_torch(x, block, name)
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"tcgemm: quantize_fp8 takes a 2-D array, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.floating) and x.dtype.name != "bfloat16":
        raise TypeError(f"tcgemm: quantize_fp8 takes a floating-point array, got {x.dtype}")
    import ml_dtypes
    fp8 = getattr(ml_dtypes, name)
    xf = x.astype(np.float32)
    rows, cols = xf.shape
    blk = _block_shape(block, xf.shape)
    if blk is None:
        amax = np.abs(xf).max(initial=0.0).reshape(1, 1)
        br, bc = max(rows, 1), max(cols, 1)
    else:
        br, bc = blk
        pr, pc = _blocks(rows) * BLOCK if br == BLOCK else rows, -(-cols // bc) * bc
        padded = np.zeros((pr, pc), np.float32)
        padded[:rows, :cols] = np.abs(xf)
        amax = padded.reshape(pr // br, br, pc // bc, bc).max(axis=(1, 3))
    scale = np.where(amax > 0, amax / FP8_MAX[name], 1.0).astype(np.float32)
    full = np.repeat(np.repeat(scale, br, axis=0), bc, axis=1)[:rows, :cols]
    data = np.clip(xf / full, -FP8_MAX[name], FP8_MAX[name]).astype(fp8)
    return data, (scale.reshape(()) if blk is None else scale)


def _quantize_torch(x, block, name):
    import torch
    if x.dim() != 2:
        raise ValueError(f"tcgemm: quantize_fp8 takes a 2-D tensor, got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise TypeError(f"tcgemm: quantize_fp8 takes a floating-point tensor, got {x.dtype}")
    fp8 = getattr(torch, name)
    xf = x.float()
    rows, cols = xf.shape
    blk = _block_shape(block, (rows, cols))
    if blk is None:
        amax = xf.abs().amax().reshape(1, 1) if xf.numel() else torch.zeros(1, 1, device=x.device)
        br, bc = max(rows, 1), max(cols, 1)
    else:
        br, bc = blk
        pr, pc = _blocks(rows) * BLOCK if br == BLOCK else rows, -(-cols // bc) * bc
        padded = torch.zeros(pr, pc, device=x.device)
        padded[:rows, :cols] = xf.abs()
        amax = padded.reshape(pr // br, br, pc // bc, bc).amax(dim=(1, 3))
    scale = torch.where(amax > 0, amax / FP8_MAX[name], torch.ones_like(amax)).float()
    full = scale.repeat_interleave(br, 0).repeat_interleave(bc, 1)[:rows, :cols]
    data = (xf / full).clamp(-FP8_MAX[name], FP8_MAX[name]).to(fp8)
    return data, (scale.reshape(()) if blk is None else scale)


# -- scaled_matmul's checks -------------------------------------------------------------------------
# Framework-free: each adapter describes a tensor as a View, and check_scaled decides everything from
# the Views, before anything touches a device (so the checks are host-testable without torch or a GPU).

class View:
    """A tensor as the checks see it: dtype name ('float8_e4m3fn', ...), shape, strides (elements),
    address, device index (-1: host memory)."""

    __slots__ = ("dtype", "shape", "strides", "ptr", "device")

    def __init__(self, dtype, shape, strides, ptr, device):
        self.dtype, self.shape, self.strides = str(dtype), tuple(shape), tuple(strides)
        self.ptr, self.device = int(ptr), int(device)


FP8_DTYPES = {"float8_e4m3fn": _core.DType.float8_e4m3fn, "float8_e5m2": _core.DType.float8_e5m2}
OUT_DTYPES = {"bfloat16": (_core.DType.bfloat16, 2), "float16": (_core.DType.float16, 2),
              "float32": (_core.DType.float32, 4)}


def out_dtype_name(out_dtype) -> str:
    """torch.bfloat16 / torch.float16 / torch.float32, NumPy's float16 / float32, ml_dtypes.bfloat16
    (or those names) -> the name; else a TypeError."""
    name = out_dtype if isinstance(out_dtype, str) else str(out_dtype).replace("torch.", "")
    if name not in OUT_DTYPES and not isinstance(out_dtype, str):
        try:
            name = np.dtype(out_dtype).name
        except TypeError:
            pass
    if name not in OUT_DTYPES:
        raise TypeError(f"tcgemm: out_dtype must be bfloat16, float16 or float32 (torch's, NumPy's or "
                        f"ml_dtypes'), got {out_dtype!r}")
    return name


def _round16(n: int) -> int:
    return (max(n, 1) + 15) // 16 * 16


def _leading(v: View, major_axis: int):
    """The leading dimension (elements) of a 2-D FP8 view stored with unit stride along `major_axis`
    (1: row-major, 0: column-major), or None when it is not stored so or the kernels cannot read it
    (leading dimension a multiple of 16 elements, 16 bytes, at least the row length; 16-byte start)."""
    n_minor, n_lead = v.shape[major_axis], v.shape[1 - major_axis]
    s_minor, s_lead = v.strides[major_axis], v.strides[1 - major_axis]
    if n_minor > 1 and s_minor != 1:
        return None
    ld = s_lead if n_lead > 1 else _round16(n_minor)
    if ld % 16 or ld < n_minor or v.ptr % 16:
        return None
    return ld


def check_scaled(a: View, b: View, sa: View, sb: View, out_dtype: str, out: View = None):
    """Every check of a scaled_matmul call, in order; -> (M, N, K, dtype_a, dtype_b, lda, ldb, mode,
    scale strides). Raises TypeError / ValueError naming the problem."""
    for v, what in ((a, "a"), (b, "b"), (sa, "scale_a"), (sb, "scale_b")) + (((out, "out"),) if out else ()):
        if v.device < 0:
            raise ValueError(f"tcgemm: {what} is a CPU tensor; scaled_matmul takes CUDA tensors")
    for v, what in ((b, "b"), (sa, "scale_a"), (sb, "scale_b")) + (((out, "out"),) if out else ()):
        if v.device != a.device:
            raise ValueError(f"tcgemm: {what} lives on device {v.device}, but a on device {a.device}")
    for v, what in ((a, "a"), (b, "b")):
        if v.dtype not in FP8_DTYPES:
            raise TypeError(f"tcgemm: {what} has dtype {v.dtype}; scaled_matmul takes float8_e4m3fn or "
                            f"float8_e5m2 (tcgemm.quantize_fp8 makes them; matmul takes float16/bfloat16)")
    if a.dtype == b.dtype == "float8_e5m2":
        raise TypeError("tcgemm: a and b are both float8_e5m2; the pairs are e4m3 x e4m3, e4m3 x e5m2 and "
                        "e5m2 x e4m3 (as torch._scaled_mm)")
    for v, what in ((a, "a"), (b, "b")):
        if len(v.shape) != 2:
            raise ValueError(f"tcgemm: {what} must be 2-D, got shape {v.shape} (scaled_matmul has no batches)")
    (M, K), (Kb, N) = a.shape, b.shape
    if K != Kb:
        raise ValueError(f"tcgemm: inner dimensions differ: a is {M}x{K}, b is {Kb}x{N}")
    if K == 0:
        raise ValueError("tcgemm: K = 0: scaled_matmul needs at least one column in a")
    if K % 16:
        raise ValueError(f"tcgemm: K = {K} is not a multiple of 16; FP8 operands' rows are 16-byte multiples "
                         f"(torch._scaled_mm requires the same): pad K with zeros")
    out_dtype = out_dtype_name(out_dtype)
    lda = _leading(a, 1)
    if lda is None:
        raise ValueError(f"tcgemm: a (shape {a.shape}, strides {a.strides}) is not row-major with rows a multiple "
                         f"of 16 elements apart and a 16-byte aligned start; FP8 a is M x K row-major")
    ldb = _leading(b, 0)
    if ldb is None:
        row_major = (N <= 1 or b.strides[1] == 1) and K > 1
        what = ("row-major: the NN layout (B stored K x N)" if row_major else "neither column-major with columns "
                "a multiple of 16 elements apart nor 16-byte aligned")
        raise ValueError(f"tcgemm: b (shape {b.shape}, strides {b.strides}) is {what}; FP8 takes the TN layout "
                         f"only: b = w.T of an N x K row-major weight w (column-major, as torch._scaled_mm requires)")
    for v, what in ((sa, "scale_a"), (sb, "scale_b")):
        if v.dtype != "float32":
            raise TypeError(f"tcgemm: {what} has dtype {v.dtype}; scales are float32")
    mode, strides = scale_layout(M, N, K, sa.shape, sa.strides, sb.shape, sb.strides)
    if out is not None:
        if out.dtype != out_dtype:
            raise TypeError(f"tcgemm: out has dtype {out.dtype}, expected {out_dtype} (out_dtype)")
        if out.shape != (M, N):
            raise ValueError(f"tcgemm: out has shape {out.shape}, expected {(M, N)}")
        per16 = 16 // OUT_DTYPES[out_dtype][1]
        ld = out.strides[0] if M > 1 else -(-max(N, 1) // per16) * per16
        if (N > 1 and out.strides[1] != 1) or ld % per16 or ld < N or out.ptr % 16:
            raise ValueError(f"tcgemm: out (shape {out.shape}, strides {out.strides}) is not row-major with rows "
                             f"16-byte multiples apart and a 16-byte aligned start")
    return M, N, K, FP8_DTYPES[a.dtype], FP8_DTYPES[b.dtype], lda, ldb, mode, strides
