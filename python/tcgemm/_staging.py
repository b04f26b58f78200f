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

from ._operands import Operand

ALIGN = 256  # every buffer's start, in bytes, from the workspace's (the kernels need 16)


class Staging:
    """The staged buffers of one call, at offsets from a base given at the end (:meth:`place`).

    ins: (Operand, src, rows, cols, batch, src_row, src_col, src_batch) of each copy into a
    buffer, rows and cols of the stored matrix (the transpose of the operand's for a column-major
    one); out: (Operand, dst, rows, cols, batch, dst_row, dst_col, dst_batch), or None.
    """

    __slots__ = ("ins", "out", "_ops", "nbytes", "owner")

    def __init__(self):
        self.ins, self.out, self._ops, self.nbytes = [], None, [], 0
        self.owner = None  # (adapter, array) of the first operand staged: whose allocator serves a mixed call

    def _buffer(self, rows, cols, ld, transposed, dtype, keep, batch, batched):
        """An Operand for a buffer of batch x rows_stored x ld elements at the next free offset (its
        ptr holds the offset until place())."""
        stored = cols if transposed else rows
        op = Operand(self.nbytes, rows, cols, ld, transposed, dtype, keep, batch, stored * ld if batched else 0)
        self.nbytes += -(-2 * batch * stored * ld // ALIGN) * ALIGN
        self._ops.append(op)
        return op

    def operand(self, ad, x, what: str, column_major_ok: bool = False) -> Operand:
        """The padded copy of `x` (a 2-D or 3-D array of adapter `ad`) that the kernels read:
        row-major, or column-major where `x` is and `column_major_ok`."""
        ptr, shape, strides = ad.strided(x, what)  # (raises for what cannot be staged)
        dtype = ad.dtype_of(x, what)
        if self.owner is None:
            self.owner = (ad, x)
        batched = len(shape) == 3
        if batched:
            nb, r, c = shape
            sb, s0, s1 = strides
            if nb <= 1:
                sb = 0
        else:
            (r, c), (s0, s1), nb, sb = shape, strides, 1, 0
        if column_major_ok and s0 == 1 and r > 1 and c > 1:  # stored as its transpose, row-major
            op = self._buffer(r, c, (r + 7) // 8 * 8, True, dtype, x, nb, batched)
            self.ins.append((op, ptr, c, r, nb, s1, s0, sb))
        else:
            op = self._buffer(r, c, (max(c, 1) + 7) // 8 * 8, False, dtype, x, nb, batched)
            self.ins.append((op, ptr, r, c, nb, s0, s1, sb))
        return op

    def result(self, batch: int, rows: int, cols: int, dtype, view, read_first: bool = False) -> Operand:
        """A padded row-major buffer for the kernel's output, copied into `view` ((address, shape,
        element strides): the caller's ``out``, or the new result) after the kernel, and from it
        before (read_first: ``out`` is also the epilogue's ``c``)."""
        ptr, shape, strides = view
        shared = [n for n, s in zip(shape, strides) if n > 1 and s == 0]
        if shared:  # (as torch's copy_ refuses it: the copy out would race on the shared elements)
            raise ValueError(f"tcgemm: out has a stride of 0 along an axis of {shared[0]} elements (from expand()?): "
                             "its elements overlap, so it cannot be written; pass a tensor of its own")
        batched = len(shape) == 3
        if batched:
            sb, s0, s1 = strides
            if batch <= 1:
                sb = 0
        else:
            (s0, s1), sb = strides, 0
        d = self._buffer(rows, cols, (max(cols, 1) + 7) // 8 * 8, False, dtype, None, batch, batched)
        self.out = (d, ptr, rows, cols, batch, s0, s1, sb)
        if read_first:
            self.ins.append(self.out)
        return d

    def place(self, base: int):
        """Puts every buffer at `base` + its offset -> (copies_in, copies_out), the arguments of
        RunArgs.set_staging: (src, dst, rows, cols, batch, src_row, src_col, src_batch, dst_row,
        dst_col, dst_batch), element strides; rows and cols as stored."""
        for op in self._ops:
            op.ptr += base
        ins = tuple((src, op.ptr, R, C, nb, sr, sc, sb, op.ld, 1, R * op.ld) for op, src, R, C, nb, sr, sc, sb in self.ins)
        if self.out is None:
            return ins, ()
        d, dst, R, C, nb, dr, dc, db = self.out
        return ins, ((d.ptr, dst, R, C, nb, d.ld, 1, R * d.ld, dr, dc, db),)
