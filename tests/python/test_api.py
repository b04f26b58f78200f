"""API and error behaviour; none of this needs a GPU."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from conftest import HAS_GPU

f16, bf16 = tcgemm.float16, tcgemm.bfloat16


def test_build_info_and_kernel_table():
    info = tcgemm.build_info()
    assert info["version"] == tcgemm.__version__
    assert set(info["archs"]) <= {"89", "90a", "100a"} and info["archs"]
    ks = tcgemm.kernels()
    names = [k["name"] for k in ks]
    assert len(names) == len(set(names))
    for expected in ("sm89.mma.s2", "sm89.mma_swz.s3", "sm89.mma_swz_x4.s3", "sm89.mma_bk32.s3"):
        assert expected in names
    for k in ks:
        assert set(k) >= {"name", "family", "arch", "dtypes", "layouts", "accumulators", "tile", "stages",
                          "built", "runnable", "why_not"}
        assert k["runnable"] == (k["why_not"] == "")
        assert set(k["dtypes"]) <= {"float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"}
        assert set(k["layouts"]) <= {"NN", "TN"}


@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour without a GPU")
def test_without_gpu_nothing_runs_and_matmul_says_why():
    assert not any(k["runnable"] for k in tcgemm.kernels())
    assert all("no CUDA device" in k["why_not"] for k in tcgemm.kernels())
    a = np.ones((4, 4), f16)
    with pytest.raises(RuntimeError, match="no CUDA device was found"):
        tcgemm.matmul(a, a)
    with pytest.raises(RuntimeError, match="no CUDA device"):
        tcgemm.to_device(a)
    assert tcgemm.device_info() is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.complex64, bool])
def test_wrong_dtype_is_a_type_error(dtype):
    a = np.ones((4, 4), dtype)
    with pytest.raises(TypeError, match="float16 or bfloat16"):
        tcgemm.matmul(a, a)


def test_object_arrays_and_lists_are_rejected():
    with pytest.raises(TypeError, match="object"):
        tcgemm.matmul(np.array([[None]], dtype=object), np.ones((1, 1), f16))
    with pytest.raises(TypeError, match="float64"):
        tcgemm.matmul([[1.0, 2.0]], [[1.0], [2.0]])


def test_mixed_dtypes():
    with pytest.raises(TypeError, match="same dtype"):
        tcgemm.matmul(np.ones((4, 4), f16), np.ones((4, 4), bf16))


@pytest.mark.parametrize("shape_a,shape_b", [((4,), (4, 4)), ((4, 4), (4,)), ((2, 2, 4, 4), (4, 4)), ((), (4, 4))])
def test_not_2d(shape_a, shape_b):
    with pytest.raises(ValueError, match="2-D"):
        tcgemm.matmul(np.ones(shape_a, f16), np.ones(shape_b, f16))


def test_epilogue_arguments_checked_before_any_work():
    a, b = np.ones((3, 4), f16), np.ones((4, 5), f16)
    cases = [(dict(activation="tanh"), ValueError, "activation must be"),
             (dict(activation=1), ValueError, "activation must be"),
             (dict(alpha="2"), TypeError, "alpha must be a real number"),
             (dict(beta=None), TypeError, "beta must be a real number"),
             (dict(beta=1.0), ValueError, "beta != 0 needs c"),
             (dict(split_k=0), ValueError, "split_k must be"),
             (dict(split_k=True), ValueError, "split_k must be"),
             (dict(split_k=2.0), ValueError, "split_k must be"),
             (dict(c=np.ones((5, 3), f16), beta=1.0), ValueError, r"c has shape \(5, 3\), expected \(3, 5\)"),
             (dict(c=np.ones((3, 5), np.float32), beta=1.0), TypeError, "c has dtype float32"),
             (dict(bias=np.ones(3, np.float32)), ValueError, r"bias must have shape \(5,\)"),
             (dict(bias=np.ones((1, 5), np.float32)), ValueError, "bias must have shape"),
             (dict(bias=np.ones(5, np.int32)), TypeError, "bias has dtype int32")]
    for kw, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            tcgemm.matmul(a, b, **kw)


def test_zero_k_applies_the_epilogue():
    c = np.full((3, 5), 2, f16)
    bias = np.arange(5, dtype=np.float32) - 2
    got = tcgemm.matmul(np.ones((3, 0), f16), np.ones((0, 5), f16), c=c, beta=0.5, bias=bias, activation="relu")
    np.testing.assert_array_equal(got.astype(np.float32), np.maximum(1 + bias, 0)[None].repeat(3, 0))
    nan_c = np.full((3, 5), np.nan, f16)  # beta == 0: c is not read
    assert not tcgemm.matmul(np.ones((3, 0), f16), np.ones((0, 5), f16), c=nan_c).any()


def test_inner_dimension_mismatch():
    with pytest.raises(ValueError, match="inner dimensions differ: a is 3x4, b is 5x6"):
        tcgemm.matmul(np.ones((3, 4), f16), np.ones((5, 6), f16))


@pytest.mark.parametrize("dtype", [f16, bf16])
@pytest.mark.parametrize("m,n,k", [(0, 5, 3), (5, 0, 3), (0, 0, 0)])
def test_empty_output(m, n, k, dtype):
    c = tcgemm.matmul(np.ones((m, k), dtype), np.ones((k, n), dtype))
    assert c.shape == (m, n) and c.dtype == dtype


def test_zero_k_gives_zeros():
    c = tcgemm.matmul(np.ones((3, 0), f16), np.ones((0, 5), f16))
    assert c.shape == (3, 5) and c.dtype == f16 and not c.any()


def test_unknown_kernel_name():
    a = np.ones((4, 4), f16)
    with pytest.raises(ValueError, match="unknown kernel 'nope'"):
        tcgemm.matmul(a, a, kernel="nope")
    with pytest.raises(TypeError, match="kernel must be a string"):
        tcgemm.matmul(a, a, kernel=3)


def test_bad_accumulate():
    a = np.ones((4, 4), f16)
    with pytest.raises(ValueError, match="accumulate"):
        tcgemm.matmul(a, a, accumulate="f64")
    b = np.ones((4, 4), bf16)
    with pytest.raises(ValueError, match="float16 inputs"):
        tcgemm.matmul(b, b, accumulate="f16")


def test_out_checked_before_any_work():
    a = np.ones((3, 4), f16)
    b = np.ones((4, 5), f16)
    with pytest.raises(ValueError, match=r"out has shape \(5, 3\), expected \(3, 5\)"):
        tcgemm.matmul(a, b, out=np.empty((5, 3), f16))
    with pytest.raises(TypeError, match="out has dtype float32"):
        tcgemm.matmul(a, b, out=np.empty((3, 5), np.float32))
    with pytest.raises(TypeError, match="out must be"):
        tcgemm.matmul(a, b, out=[[0] * 5] * 3)


def test_cpp_argument_checks():
    L, D, A = _core.Layout, _core.DType, _core.Accum
    ok = dict(M=100, N=50, K=30, lda=32, ldb=56, ldc=56, dtype=D.float16, layout=L.NN, accum=A.f32,
              a=4096, b=4096, c=4096)
    _core.check_args(**ok)
    for change, msg in [({"M": 0}, ">= 1"), ({"lda": 24}, "lda = 24 is smaller"), ({"lda": 36}, "multiple of 8"),
                        ({"a": 0}, "non-null"), ({"c": 4098}, "16-byte aligned"), ({"ldb": 24, "layout": L.TN}, "ldb"),
                        ({"batch": 0}, "batch must be"), ({"batch": 2, "stride_a": 4}, "batch_stride_a = 4"),
                        ({"batch": 2, "stride_c": -8}, "batch_stride_c"),
                        ({"batch": 2, "stride_c": 56 * 99}, "would overlap"),
                        ({"beta": 1.0}, "needs a source"), ({"beta": 1.0, "source": 4100, "ld_source": 56}, "source"),
                        ({"beta": 1.0, "source": 4096, "ld_source": 48}, "ld_source = 48"),
                        ({"bias": 4098}, "bias must be 4-byte aligned"), ({"split_k": 300}, "split_k")]:
        with pytest.raises(ValueError, match=msg):
            _core.check_args(**dict(ok, **change))
    _core.check_args(**dict(ok, batch=3, stride_a=0, stride_b=8 * 30, stride_c=56 * 100, beta=2.0, source=4096,
                            ld_source=56, stride_source=0, bias=4100, bias_type=_core.BiasType.float32,
                            activation=_core.Activation.gelu, split_k=4))
    with pytest.raises(TypeError, match="unknown gemm option 'bogus'"):
        _core.check_args(**dict(ok, bogus=1))


def test_device_array_constructor_guarded():
    with pytest.raises(TypeError, match="to_device"):
        tcgemm.DeviceArray(np.ones((2, 2), f16))


def test_stream_argument_is_checked_first():
    a = np.ones((4, 4), f16)
    for bad in ("fast", -1, 1.5, True):
        with pytest.raises(TypeError, match="stream"):
            tcgemm.matmul(a, a, stream=bad)


def test_from_dlpack_refuses_host_memory():
    with pytest.raises(ValueError, match="not in CUDA device memory"):
        tcgemm.from_dlpack(np.ones((2, 2), f16))
    with pytest.raises(TypeError, match="does not implement __dlpack__"):
        tcgemm.from_dlpack([[1, 2]])
