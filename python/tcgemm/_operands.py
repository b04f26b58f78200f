"""The one form every operand takes before planning and launch.

Each kind of input (NumPy array, DeviceArray, torch tensor, cupy array) is
turned into an :class:`Operand` at the edge, by its adapter
(``_device_array.py``, ``_fw_torch.py``, ``_fw_cupy.py``); the planner and the
launch (``_call.py``) see nothing else. What the kernels take:

* unit stride along one axis of each matrix: row-major (``transposed`` False),
  or column-major (True: the memory holds the transpose row-major, which is
  the TN case for ``b``);
* a leading dimension ``ld`` (elements between stored rows) that is a
  multiple of 8 and a start that is 16-byte aligned (TMA global strides and
  cp.async move 16-byte chunks);
* for batches, a batch stride that is a multiple of 8 (0 broadcasts).

A kernel that reads rows anywhere (the ``any_rows`` feature:
sm89.mma_ragged.s2) needs only the unit stride and a 2-byte aligned start
(``classify(..., any_rows=True)``). Anything else is staged: copied, on the caller's stream and with the
caller's allocator, into a padded row-major buffer that is.
"""
from __future__ import annotations

import numpy as np
import ml_dtypes

from . import _core

float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = {float16: _core.DType.float16, bfloat16: _core.DType.bfloat16}
# GemmArgs' BiasType codes.
BIAS_TYPES = {float16: 0, bfloat16: 1, np.dtype(np.float32): 2}


def pitch_for(cols: int) -> int:
    """The row pitch (elements) tcgemm gives a matrix of `cols` columns."""
    return (max(cols, 1) + 7) // 8 * 8


class Operand:
    """A matrix (or a batch of them) in device memory as the kernels see it.

    ptr: address of element (0, 0) of the first matrix; rows, cols: the
    logical (unstored) shape; ld: elements between stored rows; transposed:
    the memory holds the transpose row-major (column-major view); batch and
    bstride: matrices and elements between them (bstride 0: one matrix for
    all); keep: the object that owns the memory (kept alive for the call).
    """

    __slots__ = ("ptr", "rows", "cols", "ld", "transposed", "batch", "bstride", "dtype", "keep")

    def __init__(self, ptr, rows, cols, ld, transposed, dtype, keep, batch=1, bstride=0):
        self.ptr, self.rows, self.cols, self.ld, self.transposed = ptr, rows, cols, ld, transposed
        self.dtype, self.keep, self.batch, self.bstride = dtype, keep, batch, bstride

    def __repr__(self):
        t = ", transposed" if self.transposed else ""
        b = f", batch={self.batch}, bstride={self.bstride}" if self.batch != 1 or self.bstride else ""
        return f"Operand({self.rows}x{self.cols}, ld={self.ld}{t}{b}, {self.dtype.name}, ptr={self.ptr:#x})"


def classify(ptr: int, shape, strides, prefer_transposed: bool = False, any_rows: bool = False):
    """How a 2-D or 3-D strided view (strides in elements) maps onto the
    kernels: -> (transposed, ld, bstride), or None when it must be staged.
    any_rows: for a kernel that reads rows anywhere (no 16-byte rule).

    A size-1 axis has no meaningful stride (NumPy and torch put anything
    there), so it never disqualifies a view. Where both readings fit (a
    single row or column) the row-major one is taken unless
    `prefer_transposed`.
    """
    per = 1 if any_rows else 8  # leading dimension and batch stride in multiples of `per` elements
    if ptr % (2 if any_rows else 16):
        return None
    if len(shape) == 3:
        nb, rows, cols = shape
        sb, s0, s1 = strides
    else:
        nb, (rows, cols), sb, (s0, s1) = 1, shape, 0, strides
    if nb <= 1:
        sb = 0
    def row_major():
        if not ((cols <= 1 or s1 == 1) and (rows <= 1 or s0 >= cols)):
            return None
        ld = s0 if rows > 1 else (max(cols, 1) if any_rows else pitch_for(cols))
        if ld % per or ld < cols or (sb and (sb % per or sb < rows * ld)):
            return None
        return False, ld, sb

    def col_major():
        if not ((rows <= 1 or s0 == 1) and (cols <= 1 or s1 >= rows)):
            return None
        ld = s1 if cols > 1 else (max(rows, 1) if any_rows else pitch_for(rows))
        if ld % per or ld < rows or (sb and (sb % per or sb < cols * ld)):
            return None
        return True, ld, sb

    first, second = (col_major, row_major) if prefer_transposed else (row_major, col_major)
    return first() or second()


# dtype object -> its name. str() of a NumPy dtype (a cupy array's too) runs a chain of Python
# properties, about 2.6 us, on every call that checks an `out` or a `c`; a dict lookup takes 25 ns,
# and a program meets a handful of dtype objects.
_NAMES_OF = {}


def dtype_name(x) -> str:
    """The element type of a NumPy/cupy array, torch tensor or DeviceArray, by
    name ('float16', 'bfloat16', 'float32', ...): one spelling for every kind."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return np.asarray(x).dtype.name
    try:
        name = _NAMES_OF.get(dt)
    except TypeError:  # (a dtype object that cannot be a key)
        return str(dt).replace("torch.", "")
    if name is None:
        name = _NAMES_OF[dt] = str(dt).replace("torch.", "")
    return name


def check_dtype(dt, what: str) -> np.dtype:
    dt = np.dtype(dt)
    if dt not in DTYPES:
        raise TypeError(f"tcgemm: {what} has dtype {dt}; tcgemm takes float16 or bfloat16 "
                        f"(ml_dtypes.bfloat16) -- convert with .astype(np.float16)")
    return dt


def check_ndim(ndim: int, shape, what: str, batch_ok: bool) -> None:
    if ndim == 2 or (batch_ok and ndim == 3):
        return
    also = " (or 3-D: a batch)" if batch_ok else ""
    raise ValueError(f"tcgemm: {what} must be 2-D{also}, got {ndim}-D with shape {tuple(shape)}")
