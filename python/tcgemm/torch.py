"""PyTorch-facing wrapper: ``tcgemm.torch.matmul`` as a registered custom op.

    import torch, tcgemm.torch
    y = tcgemm.torch.matmul(x, w.t())          # runs a tcgemm kernel on the current stream
    y = torch.ops.tcgemm.matmul(x, w.t(), "sm89.mma_bk32.s3")   # (a, b, kernel_name)

Being a ``torch.library`` custom op (with a fake implementation for shape
propagation), it can sit inside a model, under ``torch.compile`` and in
``torch.distributed`` jobs like any other op. Inputs are read in place
(pointers and strides straight off the tensors); the output is a fresh
tensor from torch's allocator on the current stream, so the op can be
captured in a CUDA graph.
"""
from __future__ import annotations

from typing import Optional

import torch

from . import _api

__all__ = ["matmul", "scaled_matmul"]


# The kernel's argument is `kernel_name`, not `kernel`: inductor lowers a
# custom op through FallbackKernel.create(kernel, *args, **kwargs), and an op
# argument named `kernel` collides with that (seen with torch 2.11 under
# torch.compile(fullgraph=True): "got multiple values for argument 'kernel'").
@torch.library.custom_op("tcgemm::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, kernel_name: str = "auto") -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError("tcgemm.torch.matmul: a and b must be 2-D")
    if not (a.is_cuda and b.is_cuda):
        raise ValueError("tcgemm.torch.matmul: a and b must be CUDA tensors")
    return _api.matmul(a, b, kernel=kernel_name)  # a new, contiguous tensor from torch's allocator


@_matmul.register_fake
def _(a, b, kernel_name="auto"):
    return a.new_empty((a.shape[0], b.shape[1]))


def matmul(a: torch.Tensor, b: torch.Tensor, kernel: str = "auto") -> torch.Tensor:
    """``a @ b`` for 2-D float16/bfloat16 CUDA tensors with a tcgemm kernel."""
    return _matmul(a, b, kernel)


@torch.library.custom_op("tcgemm::scaled_matmul", mutates_args=())
def _scaled_matmul(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                   out_dtype: torch.dtype, bias: Optional[torch.Tensor] = None, activation: Optional[str] = None,
                   kernel_name: str = "auto", use_fast_accum: bool = False) -> torch.Tensor:
    return _api.scaled_matmul(a, b, scale_a, scale_b, out_dtype=out_dtype, bias=bias, activation=activation,
                              kernel=kernel_name, use_fast_accum=use_fast_accum)  # a new tensor from torch's allocator


@_scaled_matmul.register_fake
def _(a, b, scale_a, scale_b, out_dtype, bias=None, activation=None, kernel_name="auto", use_fast_accum=False):
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


def scaled_matmul(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor, *,
                  out_dtype: torch.dtype, bias: Optional[torch.Tensor] = None, activation: Optional[str] = None,
                  kernel: str = "auto", use_fast_accum: bool = False) -> torch.Tensor:
    """``tcgemm.scaled_matmul`` as the custom op ``torch.ops.tcgemm.scaled_matmul`` (no ``out=``)."""
    return _scaled_matmul(a, b, scale_a, scale_b, out_dtype, bias, activation, kernel, use_fast_accum)
