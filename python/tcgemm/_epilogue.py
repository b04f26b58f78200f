"""matmul's epilogue arguments, checked once per call: ``D = act(alpha * a @ b + beta * c + bias)``."""
from __future__ import annotations

import numpy as np

from ._operands import BIAS_TYPES, dtype_name

ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "gelu": 2, "silu": 3}


def real(x, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"tcgemm: {what} must be a real number, got {type(x).__name__}")
    return float(x)


class Epilogue:
    """The checked scalars; `c` and `bias` are kept as given (each path turns
    them into device pointers its own way)."""

    __slots__ = ("alpha", "beta", "act", "activation", "c", "bias", "plain")

    def __init__(self, alpha, beta, c, bias, activation):
        if not (activation is None or isinstance(activation, str)) or activation not in ACTIVATIONS:
            raise ValueError(f"tcgemm: activation must be None, 'relu', 'gelu' or 'silu', got {activation!r}")
        # As the kernels see them (float32): `plain` must agree with the C++
        # side's Epilogue::plain(), or run_plan would refuse its own plan.
        self.alpha = float(np.float32(real(alpha, "alpha")))
        self.beta = float(np.float32(real(beta, "beta")))
        if self.beta != 0 and c is None:
            raise ValueError("tcgemm: beta != 0 needs c (the matrix it scales)")
        self.activation, self.act = activation, ACTIVATIONS[activation]
        self.c = c if self.beta != 0 else None  # BLAS: with beta == 0, c is not read
        self.bias = bias
        self.plain = self.alpha == 1.0 and self.beta == 0.0 and bias is None and self.act == 0

    def check_c(self, shape, dtype, batched):
        """c has the output's shape (or (M, N), broadcast over a batch) and dtype."""
        c = self.c
        if c is None:
            return
        cshape = tuple(c.shape) if hasattr(c, "shape") else np.shape(c)
        if not (cshape == tuple(shape) or (batched and cshape == tuple(shape[-2:]))):
            raise ValueError(f"tcgemm: c has shape {cshape}, expected {tuple(shape)}")
        cdt = dtype_name(c)
        if cdt != dtype.name:
            raise TypeError(f"tcgemm: c has dtype {cdt}, expected {dtype} (the output's)")

    def check_bias_host(self, N):
        """A NumPy (or list) bias: -> the contiguous array."""
        return check_bias_host(self.bias, N)

    def on_host(self, acc: np.ndarray, c_host=None, bias_host=None) -> np.ndarray:
        """The epilogue in float32 on the host (the K == 0 case: acc is all zero)."""
        x = np.float32(self.alpha) * acc
        if self.beta != 0:
            x = x + np.float32(self.beta) * np.asarray(c_host).astype(np.float32)
        if bias_host is not None:
            x = x + np.asarray(bias_host).astype(np.float32)
        if self.act == 1:
            x = np.where(x < 0, np.float32(0), x)
        elif self.act == 2:
            x = 0.5 * x * (1 + np.tanh(np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x ** 3)))
        elif self.act == 3:
            x = x / (1 + np.exp(-x))
        return x.astype(np.float32)


def check_bias_host(bias, N):
    b = np.ascontiguousarray(bias)
    if b.dtype not in BIAS_TYPES:
        raise TypeError(f"tcgemm: bias has dtype {b.dtype}; it takes float16, bfloat16 or float32")
    if b.shape != (N,):
        raise ValueError(f"tcgemm: bias must have shape ({N},) (one value per output column), got {b.shape}")
    return b
