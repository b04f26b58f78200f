"""The layout rules every adapter shares (no GPU needed): which strided views the
kernels read in place and which are staged, and the host-memory API's checks."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from tcgemm._operands import classify, dtype_name, pitch_for
from conftest import HAS_GPU


@pytest.mark.parametrize("cols,pitch", [(1, 8), (7, 8), (8, 8), (9, 16), (1234, 1240), (4096, 4096)])
def test_pitch_matches_the_cpp_rule(cols, pitch):
    assert pitch_for(cols) == pitch == _core.pitch_for(cols)


@pytest.mark.parametrize("shape,strides,want", [
    ((4, 16), (16, 1), (False, 16, 0)),        # row-major, ld 16
    ((4, 16), (24, 1), (False, 24, 0)),        # padded rows
    ((16, 4), (1, 16), (True, 16, 0)),         # w.T of a (4, 16) row-major w: TN
    ((4, 12), (12, 1), None),                  # ld 12: not a multiple of 8
    ((4, 16), (16, 2), None),                  # no unit stride
    ((4, 16), (8, 1), None),                   # overlapping rows
    ((1, 5), (3, 1), (False, 8, 0)),           # one row: its row stride means nothing
    ((5, 1), (1, 7), (True, 8, 0)),            # one column: stored as one row (ld 1 is no kernel pitch)
    ((5, 1), (8, 1), (False, 8, 0)),           # one column with 16-byte rows: row-major
    ((1, 1), (0, 0), (False, 8, 0)),
    ((3, 4, 16), (64, 16, 1), (False, 16, 64)),    # a batch of row-major matrices
    ((3, 4, 16), (68, 16, 1), None),               # batch stride not a multiple of 8
    ((3, 4, 16), (0, 16, 1), (False, 16, 0)),      # broadcast batch
    ((3, 16, 4), (64, 1, 16), (True, 16, 64)),     # per-matrix transposed: TN batch
    ((1, 4, 16), (5, 16, 1), (False, 16, 0)),      # a batch of one: its stride means nothing
])
def test_classify(shape, strides, want):
    assert classify(4096, shape, strides) == want


def test_classify_alignment_and_preference():
    assert classify(4096 + 2, (4, 16), (16, 1)) is None  # start not 16-byte aligned
    assert classify(4096 + 16, (4, 16), (16, 1)) == (False, 16, 0)
    # a 1 x 1 matrix is both layouts; the caller may prefer either
    assert classify(4096, (1, 1), (1, 1), prefer_transposed=True) == (True, 8, 0)
    assert classify(4096, (1, 1), (1, 1)) == (False, 8, 0)
    # a preferred reading that does not fit falls back to the other
    assert classify(4096, (1, 16), (16, 1), prefer_transposed=True) == (False, 16, 0)


def test_classify_any_rows():
    """For a kernel that reads rows anywhere: any leading dimension and batch stride, a 2-byte
    aligned start; the unit stride and the no-overlap rules stay."""
    assert classify(4096 + 2, (4, 1001), (1003, 1)) is None
    assert classify(4096 + 2, (4, 1001), (1003, 1), any_rows=True) == (False, 1003, 0)
    assert classify(4096 + 2, (1001, 4), (1, 1001), any_rows=True) == (True, 1001, 0)
    assert classify(4096 + 2, (3, 4, 1001), (4 * 1003 + 1, 1003, 1), any_rows=True) == (False, 1003, 4 * 1003 + 1)
    assert classify(4096 + 1, (4, 1001), (1003, 1), any_rows=True) is None      # an odd byte address
    assert classify(4096, (4, 1001), (1000, 1), any_rows=True) is None          # rows would overlap
    assert classify(4096, (4, 1001), (2006, 2), any_rows=True) is None          # no unit stride
    assert classify(4096, (3, 4, 1001), (1003, 1003, 1), any_rows=True) is None  # matrices would overlap
    assert classify(4096 + 2, (3, 1, 1001), (1001, 1001, 1), any_rows=True) == (False, 1001, 1001)  # dense rows


def test_dtype_name_spells_every_kind_alike_and_remembers_it():
    """One name per element type whatever the array's kind: NumPy/cupy dtypes, torch's ("torch.float16"),
    ml_dtypes' bfloat16; the same answer the second time (the name is kept per dtype object), and for a
    dtype object that cannot be a dictionary key."""
    import ml_dtypes

    class Like:  # an array of another framework: only its dtype's str() is known
        def __init__(self, dtype):
            self.dtype = dtype

    class TorchDtype:
        def __str__(self):
            return "torch.bfloat16"

    class Unhashable:
        __hash__ = None

        def __str__(self):
            return "float16"

    for x, want in [(np.zeros(2, np.float16), "float16"), (np.zeros(2, ml_dtypes.bfloat16), "bfloat16"),
                    (np.zeros(2, np.float32), "float32"), (Like(TorchDtype()), "bfloat16"),
                    (Like(Unhashable()), "float16"), ([1.0, 2.0], "float64")]:
        assert dtype_name(x) == want and dtype_name(x) == want, (x, want)


def test_numpy_strides_agree_with_classify():
    a = np.zeros((6, 40), np.float16)
    for view, ok in [(a, True), (a[:, :32], True), (a[:, 1:33], False), (a.T, True), (a[::2], True),
                     (a[:, ::2], False)]:
        st = tuple(s // 2 for s in view.strides)
        got = classify(16 * 1024 + (view.__array_interface__["data"][0] - a.__array_interface__["data"][0]),
                       view.shape, st)
        assert (got is not None) == ok, (view.shape, view.strides)


def test_a_ragged_weight_padded_once_is_read_in_place():
    """README's advice for a ragged weight used call after call: a view of a buffer whose rows are
    padded to a multiple of 8 elements is taken as it is, and so is its transpose (TN); the ragged
    weight itself is not."""
    N, K = 4097, 4099
    w = np.zeros((N, K), np.float16)
    wp = np.empty((N, (K + 7) // 8 * 8), np.float16)[:, :K]
    for view, want in [(w, None), (w.T, None), (wp, (False, 4104, 0)), (wp.T, (True, 4104, 0))]:
        assert classify(4096, view.shape, tuple(s // 2 for s in view.strides)) == want, view.strides


def test_host_memory_api_checks():
    with pytest.raises(ValueError, match="staging limit"):
        tcgemm.set_staging_limit(-1)
    with pytest.raises(ValueError, match="negative dimension"):
        tcgemm.empty_pinned((2, -1))
    assert _core.staging_limit() >= 16 << 20


@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour without a GPU")
def test_without_gpu_the_planner_and_host_memory_say_why():
    with pytest.raises(RuntimeError, match="no CUDA device"):
        _core.plan("auto", 64, 64, 64, _core.DType.float16, _core.Layout.NN, _core.Accum.f32, True, 1, 0)
    with pytest.raises((RuntimeError, MemoryError)):
        tcgemm.empty_pinned((4, 4))
    with pytest.raises(RuntimeError, match="no CUDA device"):
        tcgemm.matmul(np.ones((300, 200), np.float16), np.ones((200, 100), np.float16))
