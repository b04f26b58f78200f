"""Operands the kernels cannot read in place, staged by the library in one launch each way.

The kernels read rows 16 bytes apart that start 16-byte aligned (``_operands``). A torch or cupy
operand that is not -- a leading dimension that is no multiple of 8 elements (any matrix whose
inner dimension is ragged), an odd start, a column-major ``a``, a zero or negative stride -- is
copied into a padded buffer before the kernel, and a result the kernels cannot write in place
(a ragged ``out``, or a new result whose rows are not 16-byte multiples) is written to a padded
buffer and copied out after it. :class:`Staging` lays those buffers out in the call's workspace
(after the split-K bytes: one allocation, kept per stream as the split-K workspace is) and
describes the copies for ``RunArgs.set_staging``: ``_core.run`` then makes every copy into the
buffers in one ``copy_matrices`` launch, runs the kernel, and makes the copy out in one more.
Nothing here touches a GPU, so the layout is tested on the host (test_call_record.py).

A column-major ``b`` (``w.t()``: the TN layout) is staged column-major, so the call stays TN and
its copy reads and writes whole rows of ``w``. ``a`` is staged row-major, the one way the kernels
read it.
"""
from __future__ import annotations

from ._operands import Operand, pitch_for

ALIGN = 256  # every buffer's start, in bytes, from the workspace's (the kernels need 16)


def _round(nbytes: int) -> int:
    return -(-nbytes // ALIGN) * ALIGN


def _shape3(shape, strides):
    """(batch, rows, cols), (batch stride, row stride, col stride) of a 2-D or 3-D view."""
    if len(shape) == 3:
        return tuple(shape), tuple(strides)
    return (1, *shape), (0, *strides)


class Staging:
    """The staged buffers of one call, at offsets from a base given at the end (:meth:`place`).

    ins: (Operand, src, rows, cols, batch, src_row, src_col, src_batch) of each copy into a
    buffer, rows and cols of the stored matrix (the transpose of the operand's for a column-major
    one); out: (Operand, dst, rows, cols, batch, dst_row, dst_col, dst_batch), or None.
    """

    __slots__ = ("ins", "out", "_at", "nbytes", "owner")

    def __init__(self):
        self.ins, self.out, self._at, self.nbytes = [], None, [], 0
        self.owner = None  # (adapter, array) of the first operand staged: whose allocator serves a mixed call

    def _buffer(self, op: Operand, elems: int) -> Operand:
        self._at.append((op, self.nbytes))
        self.nbytes += _round(2 * elems)
        return op

    def operand(self, ad, x, what: str, column_major_ok: bool = False) -> Operand:
        """The padded copy of `x` (a 2-D or 3-D array of adapter `ad`) that the kernels read:
        row-major, or column-major where `x` is and `column_major_ok`."""
        ptr, shape, strides = ad.strided(x, what)  # (raises for what cannot be staged)
        dtype = ad.dtype_of(x, what)
        if self.owner is None:
            self.owner = (ad, x)
        (nb, r, c), (sb, s0, s1) = _shape3(shape, strides)
        t = column_major_ok and r > 1 and c > 1 and s0 == 1
        R, C, sr, sc = (c, r, s1, s0) if t else (r, c, s0, s1)  # the matrix as stored
        p = pitch_for(C)
        op = self._buffer(Operand(0, r, c, p, t, dtype, x, nb, R * p if len(shape) == 3 else 0), nb * R * p)
        self.ins.append((op, ptr, R, C, nb, sr, sc, sb if nb > 1 else 0))
        return op

    def result(self, batch: int, rows: int, cols: int, dtype, view, read_first: bool = False) -> Operand:
        """A padded row-major buffer for the kernel's output, copied into `view` ((address, shape,
        element strides): the caller's ``out``, or the new result) after the kernel, and from it
        before (read_first: ``out`` is also the epilogue's ``c``)."""
        ptr, shape, strides = view
        _, (sb, s0, s1) = _shape3(shape, strides)
        p = pitch_for(cols)
        d = self._buffer(Operand(0, rows, cols, p, False, dtype, None, batch, rows * p if len(shape) == 3 else 0),
                         batch * rows * p)
        sb = sb if batch > 1 else 0
        self.out = (d, ptr, rows, cols, batch, s0, s1, sb)
        if read_first:
            self.ins.append((d, ptr, rows, cols, batch, s0, s1, sb))
        return d

    def place(self, base: int):
        """Puts every buffer at `base` + its offset -> (copies_in, copies_out), the arguments of
        RunArgs.set_staging: (src, dst, rows, cols, batch, src_row, src_col, src_batch, dst_row,
        dst_col, dst_batch), element strides."""
        for op, off in self._at:
            op.ptr = base + off
        ins = tuple((src, op.ptr, R, C, nb, sr, sc, sb, op.ld, 1, R * op.ld) for op, src, R, C, nb, sr, sc, sb in self.ins)
        outs = ()
        if self.out is not None:
            d, dst, R, C, nb, dr, dc, db = self.out
            outs = ((d.ptr, dst, R, C, nb, d.ld, 1, R * d.ld, dr, dc, db),)
        return ins, outs
