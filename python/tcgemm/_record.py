"""The call record: one matmul call as :func:`tcgemm.matmul` has checked it.

``matmul`` builds one :class:`Call` per call, after checking the options and
deciding the path, and hands it on whole: to ``_host.numpy_matmul`` for NumPy
operands, to ``_call.device_matmul`` for operands in device memory, which
turns it into one ``_core.RunArgs`` for the launch. Immutable, so no step can
change what a later one reads; a NamedTuple, because building one is a single
tuple allocation (a frozen dataclass sets each field through
``object.__setattr__``, several times the host time on this path).
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

from ._epilogue import Epilogue


class Call(NamedTuple):
    a: Any                   # the operands as given (NumPy arrays already as arrays)
    b: Any
    out: Any                 # matmul's out=, or None
    ep: Epilogue             # alpha, beta, c, bias, activation, checked
    kernel: str              # a registry name or "auto"
    accumulate: str          # "f32" or "f16"
    split_k: int             # 0: the kernel decides (matmul's None)
    grid_swizzle: bool
    stream: Optional[int]    # the caller's stream handle; None: the framework's current stream (NumPy: 0)
    device: Optional[int]    # the device the call runs on (NumPy: None, the current one)
    fw: Any = None           # the adapter of `like`: the result's kind and allocator (None: NumPy path)
    ad_a: Any = None         # each operand's adapter (None: a NumPy operand)
    ad_b: Any = None
    ad_out: Any = None
    like: Any = None         # the operand that decides the result's kind

    def options(self) -> dict:
        """matmul's keyword arguments that reproduce this call (for a call made again on other operands)."""
        ep = self.ep
        return dict(c=ep.c, alpha=ep.alpha, beta=ep.beta, bias=ep.bias, activation=ep.activation, kernel=self.kernel,
                    accumulate=self.accumulate, split_k=self.split_k or None, grid_swizzle=self.grid_swizzle,
                    stream=self.stream, device=self.device)
