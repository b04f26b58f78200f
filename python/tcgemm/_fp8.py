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
