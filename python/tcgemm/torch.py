"""PyTorch-facing wrapper: ``tcgemm.torch.matmul`` as a registered custom op.

    import torch, tcgemm.torch
    y = tcgemm.torch.matmul(x, w.t())          # runs a tcgemm kernel on x's stream
    y = torch.ops.tcgemm.matmul(x, w.t(), "sm89.mma_bk32.s4")

Being a ``torch.library`` custom op (with a fake implementation for shape
propagation), it can sit inside a model, under ``torch.compile`` and in
``torch.distributed`` jobs like any other op. Inputs are read in place
(DLPack); the output is a fresh tensor from torch's allocator.
"""
from __future__ import annotations

import torch

from . import _api

__all__ = ["matmul"]


@torch.library.custom_op("tcgemm::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, kernel: str = "auto") -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError("tcgemm.torch.matmul: a and b must be 2-D")
    if not (a.is_cuda and b.is_cuda):
        raise ValueError("tcgemm.torch.matmul: a and b must be CUDA tensors")
    M, N = a.shape[0], b.shape[1]
    if N % 8 == 0:  # torch's own contiguous tensor already has a pitch the kernels take
        out = torch.empty((M, N), dtype=a.dtype, device=a.device)
        _api.matmul(a, b, kernel=kernel, out=out)
        return out
    padded = torch.empty((M, (N + 7) // 8 * 8), dtype=a.dtype, device=a.device)
    _api.matmul(a, b, kernel=kernel, out=padded[:, :N])
    return padded[:, :N].contiguous()


@_matmul.register_fake
def _(a, b, kernel="auto"):
    return a.new_empty((a.shape[0], b.shape[1]))


def matmul(a: torch.Tensor, b: torch.Tensor, kernel: str = "auto") -> torch.Tensor:
    """``a @ b`` for 2-D float16/bfloat16 CUDA tensors with a tcgemm kernel."""
    return _matmul(a, b, kernel)
