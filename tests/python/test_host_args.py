"""The NumPy path's launch arguments, on the host.

A 2-D NumPy call is one ``_core.host_gemm(HostGemmArgs)``. Here ``host_gemm``
is replaced by a stand-in that records the HostGemmArgs it is given and
fills ``d``, so every field a NumPy call sets is checked without a GPU; the
real ``host_gemm`` is called only with arguments it refuses before the
pipeline starts."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from tcgemm._operands import bfloat16

ONE = 0x3C00  # 1.0 in float16: what the stand-in writes into d


class HostCalls:
    def __init__(self):
        self.args = []

    def __call__(self, args):
        assert type(args) is _core.HostGemmArgs
        self.args.append(args)
        args.d[...] = ONE
        return "stand-in"


@pytest.fixture
def host(monkeypatch):
    """host_gemm recorded; a device 'present' and no capture, so that matmul reaches it."""
    rec = HostCalls()
    monkeypatch.setattr(_core, "host_gemm", rec)
    monkeypatch.setattr(_core, "device_count", lambda: 1)
    monkeypatch.setattr(_core, "capture_status", lambda sh: "none")
    return rec


def _f16(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float16)


def _args(M=4, N=3, K=5, **fields):
    """A HostGemmArgs that passes every check of host_gemm's binding (the pipeline itself needs a GPU)."""
    base = dict(a=np.zeros((M, K), np.uint16), b=np.zeros((K, N), np.uint16), d=np.zeros((M, N), np.uint16), M=M, N=N,
                K=K)
    base.update(fields)
    return _core.HostGemmArgs(**base)


# ---- _core.HostGemmArgs -------------------------------------------------------------------------

def test_host_args_named_fields_and_defaults():
    a, b, d = np.zeros((4, 5), np.uint16), np.zeros((5, 3), np.uint16), np.zeros((4, 3), np.uint16)
    h = _core.HostGemmArgs(a=a, b=b, d=d, M=4, N=3, K=5)
    assert h.a is a and h.b is b and h.d is d
    assert (h.M, h.N, h.K) == (4, 3, 5)
    # what a call leaves out: the automatic kernel, the plain epilogue, the default stream
    assert (h.kernel, h.source, h.bias) == ("auto", None, None)
    assert (h.dtype, h.layout, h.accum) == (_core.DType.float16, _core.Layout.NN, _core.Accum.f32)
    assert (h.grid_swizzle, h.split_k, h.stream, h.panel_rows) == (True, 0, 0, 0)
    assert (h.alpha, h.beta) == (1.0, 0.0)
    assert (h.bias_type, h.activation) == (int(_core.BiasType.float32.value), int(_core.Activation.none.value))
    h.alpha, h.layout, h.stream, h.bias = 0.5, _core.Layout.TN, 7, np.zeros(3, np.float32)
    assert (h.alpha, h.layout, h.stream, h.bias.shape) == (0.5, _core.Layout.TN, 7, (3,))
    h.bias = None
    assert h.bias is None
    # any integer type, as RunArgs
    assert _core.HostGemmArgs(M=np.int64(8), split_k=np.int32(2)).M == 8
    assert _core.HostGemmArgs(bias_type=_core.BiasType.bfloat16).bias_type == 1  # an enum as its value
    assert "M=4, N=3, K=5" in repr(_args())


@pytest.mark.parametrize("field, value, message", [
    ("dtype", "float16", r"dtype must be a tcgemm\._core\.DType, got str"),
    ("dtype", 0, r"dtype must be a tcgemm\._core\.DType, got int"),
    ("layout", _core.DType.float16, r"layout must be a tcgemm\._core\.Layout, got tcgemm\._core\.DType"),
    ("accum", None, r"accum must be a tcgemm\._core\.Accum, got NoneType"),
    ("M", 4.0, r"M must be an integer, got float"),
    ("split_k", "2", r"split_k must be an integer, got str"),
    ("alpha", "1", r"alpha must be a float, got str"),
    ("grid_swizzle", None, r"grid_swizzle must be a bool, got NoneType"),
    ("bias_type", 2.0, r"bias_type must be an integer \(BiasType's value\), got float"),
    ("kernel", None, r"kernel must be a str, got NoneType"),
    ("a", [[1, 2]], r"a must be a NumPy array, got list"),
    ("d", None, r"d must be a NumPy array, got NoneType"),
    ("source", 0, r"source must be a NumPy array or None, got int"),
])
def test_a_field_of_the_wrong_type_is_a_type_error_naming_it(field, value, message):
    with pytest.raises(TypeError, match=r"HostGemmArgs: " + message):
        _core.HostGemmArgs(**{field: value})
    h = _core.HostGemmArgs()
    with pytest.raises(TypeError, match=r"HostGemmArgs: " + message):
        setattr(h, field, value)


def test_out_of_range_integers_and_unknown_fields():
    with pytest.raises(ValueError, match=r"stream = -1 is out of range"):
        _core.HostGemmArgs(stream=-1)
    with pytest.raises(ValueError, match=r"M = \d+ is out of range"):
        _core.HostGemmArgs(M=1 << 70)
    with pytest.raises(TypeError, match=r"HostGemmArgs has no field 'lda'"):
        _core.HostGemmArgs(lda=8)
    with pytest.raises(AttributeError):
        _core.HostGemmArgs().act = 1  # the field is `activation`, as in RunArgs


def test_host_gemm_takes_one_host_gemm_args():
    with pytest.raises(TypeError, match="host_gemm takes one HostGemmArgs"):
        _core.host_gemm(_core.RunArgs(1, 0, 0, 0, 8, 8, 8, 0, 0, 0, True))
    with pytest.raises(TypeError):  # the positional form is gone
        _core.host_gemm("auto", np.zeros((4, 5), np.uint16), np.zeros((5, 3), np.uint16), np.zeros((4, 3), np.uint16),
                        None, None, 4, 3, 5, _core.DType.float16, _core.Layout.NN, _core.Accum.f32, True, 0, 1.0, 0.0,
                        2, 0, 0, 0)
    with pytest.raises(ValueError, match="host_gemm: b is not set"):
        _core.host_gemm(_core.HostGemmArgs(a=np.zeros((4, 5), np.uint16)))


@pytest.mark.parametrize("fields, message", [
    (dict(bias_type=3), r"host_gemm: bad enum: bias_type must be 0, 1 or 2"),
    (dict(bias_type=-1), r"host_gemm: bad enum: bias_type"),
    (dict(activation=4), r"host_gemm: bad enum: activation must be 0 \.\. 3"),
    (dict(a=np.zeros((2, 4, 5), np.uint16)), r"^a: a 2-D 2-byte array"),
    (dict(b=np.zeros((5, 3), np.float32)), r"^b: a 2-D 2-byte array"),
    (dict(a=np.zeros((4, 10), np.uint16)[:, ::2]), r"^a: rows must be contiguous"),
    (dict(d=np.zeros((4, 3), np.uint16)[::-1]), r"^d: overlapping rows"),
    (dict(d=np.zeros((3, 4), np.uint16)), r"^d: shape is not M x N"),
    (dict(source=np.zeros(12, np.uint16)), r"^source: a 2-D 2-byte array"),
    (dict(bias=np.zeros(3, np.float16)), r"^bias: N contiguous values of its bias type"),  # bias_type 2: float32
    (dict(bias=np.zeros(4, np.float32)), r"^bias: N contiguous values"),
    (dict(bias=np.zeros(6, np.float16)[::2], bias_type=0), r"^bias: N contiguous values"),
])
def test_host_gemm_checks_its_fields_before_the_pipeline(fields, message):
    with pytest.raises(ValueError, match=message):
        _core.host_gemm(_args(**fields))


def test_host_gemm_refuses_a_read_only_output():
    d = np.zeros((4, 3), np.uint16)
    d.flags.writeable = False
    with pytest.raises(ValueError, match="^d: read-only"):
        _core.host_gemm(_args(d=d))


# ---- from matmul to host_gemm ---------------------------------------------------------------------

def test_a_plain_numpy_call_reaches_host_gemm_with_its_operands(host):
    a, b = _f16((64, 96)), _f16((96, 48), 1)
    y = tcgemm.matmul(a, b)
    (h,) = host.args
    assert np.shares_memory(h.a, a) and np.shares_memory(h.b, b)
    assert h.a.dtype == h.b.dtype == h.d.dtype == np.uint16  # the bits, whatever the dtype
    assert (h.M, h.N, h.K) == (64, 48, 96)
    assert (h.dtype, h.layout, h.accum) == (_core.DType.float16, _core.Layout.NN, _core.Accum.f32)
    assert (h.kernel, h.split_k, h.grid_swizzle, h.stream, h.panel_rows) == ("auto", 0, True, 0, 0)
    assert (h.alpha, h.beta, h.source, h.bias, h.bias_type, h.activation) == (1.0, 0.0, None, None, 2, 0)
    assert y.shape == (64, 48) and y.dtype == np.float16 and np.shares_memory(y, h.d)
    assert (y == 1.0).all()  # the array host_gemm wrote is the result


def test_w_t_is_the_tn_layout_without_a_copy(host):
    x, w = _f16((64, 96)), _f16((48, 96), 1)
    tcgemm.matmul(x, w.T)
    (h,) = host.args
    assert h.layout == _core.Layout.TN
    assert h.b.shape == (48, 96) and np.shares_memory(h.b, w)


def test_options_and_the_epilogue_reach_host_gemm(host):
    a, b = _f16((64, 96)).astype(bfloat16), _f16((96, 48), 1).astype(bfloat16)
    c = _f16((64, 48), 2).astype(bfloat16)
    bias = np.arange(48, dtype=np.float32)
    out = np.empty((64, 48), bfloat16)
    r = tcgemm.matmul(a, b, c=c, alpha=0.5, beta=0.25, bias=bias, activation="gelu", kernel="sm90.ws_splitk",
                      split_k=3, grid_swizzle=False, stream=11, out=out)
    assert r is out
    (h,) = host.args
    assert np.shares_memory(h.d, out)  # written in place
    assert (h.dtype, h.accum) == (_core.DType.bfloat16, _core.Accum.f32)
    assert (h.kernel, h.split_k, h.grid_swizzle, h.stream) == ("sm90.ws_splitk", 3, False, 11)
    assert (h.alpha, h.beta, h.activation) == (0.5, 0.25, 2)
    assert np.shares_memory(h.source, c) and h.source.shape == (64, 48)
    assert h.bias_type == 2 and h.bias.dtype == np.float32 and (h.bias == bias).all()
    tcgemm.matmul(a, b, bias=bias.astype(bfloat16))
    assert host.args[-1].bias_type == 1 and host.args[-1].source is None
    tcgemm.matmul(a.astype(np.float16), b.astype(np.float16), accumulate="f16", activation="relu")
    assert (host.args[-1].accum, host.args[-1].activation) == (_core.Accum.f16, 1)


def test_an_out_the_pipeline_cannot_write_is_filled_after(host):
    a, b = _f16((64, 96)), _f16((96, 48), 1)
    out = np.zeros((48, 64), np.float16).T  # column-major: not rows the pipeline writes
    assert tcgemm.matmul(a, b, out=out) is out
    (h,) = host.args
    assert not np.shares_memory(h.d, out) and (out == 1.0).all()


def test_errors_on_the_numpy_path_stop_before_host_gemm(host):
    a = _f16((64, 96))
    with pytest.raises(ValueError, match=r"inner dimensions differ: a is 64x96, b is 48x96"):
        tcgemm.matmul(a, _f16((48, 96)))
    with pytest.raises(TypeError, match="a and b must have the same dtype"):
        tcgemm.matmul(a, _f16((96, 48)).astype(bfloat16))
    with pytest.raises(ValueError, match="accumulate='f16' needs float16 inputs"):
        tcgemm.matmul(a.astype(bfloat16), _f16((96, 48)).astype(bfloat16), accumulate="f16")
    with pytest.raises(TypeError, match=r"out has dtype float32, expected float16"):
        tcgemm.matmul(a, _f16((96, 48)), out=np.empty((64, 48), np.float32))
    assert not host.args
