"""FP8: quantize_fp8 on NumPy, the scale shapes torch._scaled_mm's meaning gives, the C++ argument
checks for FP8 operands and scales, the registry's FP8 entries, and tcgemm.scaled_matmul.

scaled_matmul's argument checks are host tests: those on tcgemm._fp8.check_scaled (the Views an
adapter makes) and on NumPy operands need neither torch nor a GPU, and the NumPy path's launch is
checked on a fake device; those on torch tensors need torch (skipped where torch is not installed) but
no GPU. The GPU tests (accuracy against a float64 reference of the dequantized inputs, odd shapes,
each scale mode, poisoned out, graph capture, every entry by name, the NumPy path) need a GPU with an
FP8 kernel (and torch, but for the NumPy path); tests/python/test_sass.py checks what the Hopper
entries' code holds."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from tcgemm._fp8 import FP8_MAX, View, check_scaled, scale_layout
from conftest import HAS_GPU

ml_dtypes = pytest.importorskip("ml_dtypes")
E4M3, E5M2 = _core.DType.float8_e4m3fn, _core.DType.float8_e5m2


def _dequant(data, scale, block):
    rows, cols = data.shape
    s = np.asarray(scale, np.float64)
    if block in (None, "tensor"):
        full = np.full((rows, cols), float(s))
    elif block == "row":
        full = np.repeat(s, cols, axis=1)
    else:
        br, bc = block
        full = np.repeat(np.repeat(s, br, axis=0), bc, axis=1)[:rows, :cols]
    return data.astype(np.float64) * full


@pytest.mark.parametrize("block", [None, "tensor", "row", (1, 128), (128, 128)])
@pytest.mark.parametrize("shape", [(1, 1), (7, 129), (127, 1000), (300, 256)])
@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_quantize_fp8_round_trips_within_the_format(block, shape, dtype):
    """Each element within half an ulp of its block's format (e4m3: 3 mantissa bits, relative 2^-4;
    e5m2: 2 bits, 2^-3) of its block's largest magnitude scaled -- bounded here per element by
    the relative rounding plus the subnormal floor of the block's scale."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32) * rng.uniform(0.01, 100, (shape[0], 1)).astype(np.float32)
    data, scale = tcgemm.quantize_fp8(x, block=block, dtype=dtype)
    assert data.dtype == getattr(ml_dtypes, dtype) and data.shape == x.shape
    rows, cols = shape
    want = {None: (), "tensor": (), "row": (rows, 1), (1, 128): (rows, -(-cols // 128)),
            (128, 128): (-(-rows // 128), -(-cols // 128))}[block]
    assert scale.shape == want and scale.dtype == np.float32
    back = _dequant(data, scale, block)
    rel = 2.0 ** -4 if dtype == "float8_e4m3fn" else 2.0 ** -3
    s = _dequant(np.ones(shape, np.float32), scale, block)  # each element's scale
    tiny = 2.0 ** (-9 if dtype == "float8_e4m3fn" else -16)  # the smallest subnormal step
    assert np.all(np.abs(back - x) <= rel * np.abs(x) + tiny * s)
    assert np.abs(data.astype(np.float32)).max() <= FP8_MAX[dtype]


def test_quantize_fp8_maps_each_blocks_largest_to_the_formats_largest():
    x = np.zeros((130, 300), np.float32)
    x[0, 0], x[129, 299] = 3.0, -7.0
    data, scale = tcgemm.quantize_fp8(x, block=(128, 128))
    assert scale.shape == (2, 3)
    assert scale[0, 0] == np.float32(3.0 / 448) and scale[1, 2] == np.float32(7.0 / 448)
    assert scale[0, 1] == 1.0  # a block of zeros
    assert float(data[0, 0]) == 448.0 and float(data[129, 299]) == -448.0


@pytest.mark.parametrize("bad,exc,msg", [
    (dict(block=(64, 64)), ValueError, "block must be"),
    (dict(dtype="float16"), TypeError, "float8_e4m3fn or float8_e5m2"),
])
def test_quantize_fp8_refuses_what_it_does_not_do(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        tcgemm.quantize_fp8(np.ones((4, 4), np.float32), **bad)
    with pytest.raises(ValueError, match="2-D"):
        tcgemm.quantize_fp8(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="floating-point"):
        tcgemm.quantize_fp8(np.ones((4, 4), np.int32))


def test_scale_layout_reads_torch_scaled_mm_shapes():
    M, N, K = 7, 200, 300
    assert scale_layout(M, N, K, (), (), (1, 1), (1, 1))[0] == _core.ScaleMode.tensor
    mode, st = scale_layout(M, N, K, (M, 1), (1, 1), (1, N), (N, 1))
    assert mode == _core.ScaleMode.rowwise and st == (1, 0, 1, 0)
    # block: A (M, 3) row-major or MN-major (DeepGEMM's TMA-aligned: column kb at kb * round_up(M, 4)).
    mode, st = scale_layout(M, N, K, (M, 3), (3, 1), (2, 3), (3, 1))
    assert mode == _core.ScaleMode.block and st == (3, 1, 3, 1)
    assert scale_layout(M, N, K, (M, 3), (1, 8), (2, 3), (3, 1))[1] == (1, 8, 3, 1)
    for sa, sb in [((M, 1), (N, 1)), ((M, 2), (2, 2)), ((1, M), (1, N)), ((M, 3), (1, N)), ((M, 1, 1), ())]:
        with pytest.raises(ValueError, match="scale"):
            scale_layout(M, N, K, sa, (1,) * len(sa), sb, (1,) * len(sb))


def _check(M=64, N=64, K=256, dtype=E4M3, layout=_core.Layout.TN, **opts):
    base = dict(dtype_c=_core.DType.bfloat16, scale_mode=_core.ScaleMode.tensor, scale_a=1 << 20,
                scale_b=1 << 21)
    base.update(opts)
    _core.check_args(M, N, K, K, K, N, dtype, layout, _core.Accum.f32, 1 << 22, 1 << 23, 1 << 24, **base)


def test_fp8_argument_checks_name_the_problem():
    _check()
    _check(dtype_b=E5M2)
    _check(dtype=E5M2, dtype_b=E4M3)
    _check(dtype_c=_core.DType.float32, scale_mode=_core.ScaleMode.block, scale_a_strides=(2, 1),
           scale_b_strides=(1, 1))
    for opts, msg in [(dict(dtype=E5M2, dtype_b=E5M2), "float8_e5m2 x float8_e5m2"),
                      (dict(dtype_c=E4M3), "output dtype"),
                      (dict(scale_mode=_core.ScaleMode.none), "FP8 operands need scales"),
                      (dict(scale_b=0), "both scale pointers"),
                      (dict(scale_a=(1 << 20) + 2), "4-byte aligned"),
                      (dict(K=200), "multiple of 16")]:
        K = opts.pop("K", 256)
        with pytest.raises(ValueError, match=msg):
            _check(K=K, **opts)
    with pytest.raises(ValueError, match="scales are for FP8"):
        _check(dtype=_core.DType.float16, dtype_c=_core.DType.float16)


def test_fp8_entries_in_the_registry():
    ks = {k["name"]: k for k in tcgemm.kernels()}
    all3, half = ["float16", "bfloat16", "float32"], ["float16", "bfloat16"]
    for name, feature, tile, outs in [("sm90.ws_fp8", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.mcast", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.wide", "scale_rowwise", (128, 256, 128), all3),
                                      ("sm90.ws_fp8.tile192", "scale_rowwise", (192, 192, 128), all3),
                                      ("sm90.ws_fp8.splitk", "scale_rowwise", (128, 256, 128), half),
                                      ("sm90.ws_fp8.wide.tma_store", "scale_rowwise", (128, 256, 128), half),
                                      ("sm90.ws_fp8.pingpong", "scale_rowwise", (128, 128, 128), half),
                                      ("sm90.ws_fp8.dsmem", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.swap", "scale_rowwise", (128, 64, 128), half),
                                      ("sm90.ws_fp8.block", "scale_block", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.block.dsmem", "scale_block", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.promoted", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.promoted.dsmem", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.promoted.swap", "scale_rowwise", (128, 64, 128), half),
                                      ("sm90.ws_fp8.promoted.overlap", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.block.overlap", "scale_block", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.promoted.wide", "scale_rowwise", (128, 256, 128), all3),
                                      ("sm90.ws_fp8.block.wide", "scale_block", (128, 256, 128), all3),
                                      ("sm90.ws_fp8.promoted.mcast", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.block.mcast", "scale_block", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.block.overlap.scale_warp", "scale_block", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.pingpong.mcast", "scale_rowwise", (128, 128, 128), half),
                                      ("sm90.ws_fp8.pingpong.lines", "scale_rowwise", (128, 128, 128), half),
                                      ("sm90.ws_fp8.wide.lines", "scale_rowwise", (128, 256, 128), all3),
                                      ("sm90.ws_fp8.promoted.overlap.lines", "scale_rowwise", (128, 128, 128), all3),
                                      ("sm90.ws_fp8.promoted.wide.lines", "scale_rowwise", (128, 256, 128), all3)]:
        k = ks[name]
        assert k["dtypes"] == ["float8_e4m3fn", "float8_e5m2"] and k["layouts"] == ["TN"]
        assert k["out_dtypes"] == outs, name
        assert feature in k["features"] and "epilogue" in k["features"] and k["tile"] == tile
        # Who sums in fp32 (use_fast_accum=False): the promoting entries, which serve 'fast' too.
        promotes = "block" in name or "promoted" in name
        assert k["accumulators"] == (["f32", "fast"] if promotes else ["fast"]), name
    for name in ("sm89.fp8_mma.s3", "sm89.fp8_mma_8w.s4"):  # mma.sync's FP8 forms add into fp32
        assert ks[name]["accumulators"] == ["f32", "fast"], name
    # The 16-bit entries take no scales and write their operands' type.
    for name, k in ks.items():
        if "float16" in k["dtypes"] or "bfloat16" in k["dtypes"]:
            assert not any(f.startswith("scale_") for f in k["features"]), name
            assert k["out_dtypes"] == k["dtypes"], name


# -- scaled_matmul --------------------------------------------------------------------------------

def test_scaled_matmul_is_exported():
    assert "scaled_matmul" in tcgemm.__all__ and callable(tcgemm.scaled_matmul)


def test_scaled_matmul_numpy_checks_name_each_problem():
    """The NumPy path's checks (the torch path's, on how the operands will lie on the device), before
    anything is allocated: every refusal below needs no GPU; a valid call reaches the device (on a
    machine without one, the RuntimeError that says so)."""
    a, sa = tcgemm.quantize_fp8(np.ones((4, 32), np.float32))
    w, sb = tcgemm.quantize_fp8(np.ones((8, 32), np.float32))
    call = lambda *args, **kw: tcgemm.scaled_matmul(*args, **{"out_dtype": "bfloat16", **kw})  # noqa: E731
    with pytest.raises(TypeError, match="float8_e4m3fn or float8_e5m2"):
        call(a.astype(np.float16), w.T, sa, sb)
    with pytest.raises(TypeError, match="both float8_e5m2"):
        call(a.astype(ml_dtypes.float8_e5m2), w.T.astype(ml_dtypes.float8_e5m2), sa, sb)
    with pytest.raises(ValueError, match="not a multiple of 16"):
        call(a[:, :24], w.T[:24], sa, sb)
    with pytest.raises(ValueError, match="inner dimensions differ"):
        call(a, w.T[:16], sa, sb)
    with pytest.raises(ValueError, match="no scale mode"):
        call(a, w.T, np.ones((4, 1), np.float32), np.ones((8, 1), np.float32))
    with pytest.raises(TypeError, match="scales are float32"):
        call(a, w.T, sa.astype(np.float64), sb)
    with pytest.raises(TypeError, match="out_dtype must be"):
        call(a, w.T, sa, sb, out_dtype=np.int8)
    with pytest.raises(ValueError, match="out has shape"):
        call(a, w.T, sa, sb, out=np.empty((4, 9), ml_dtypes.bfloat16))
    with pytest.raises(TypeError, match="out has dtype"):
        call(a, w.T, sa, sb, out=np.empty((4, 8), np.float16))
    with pytest.raises(ValueError, match="bias must have shape"):
        call(a, w.T, sa, sb, bias=np.ones(7, np.float32))
    with pytest.raises(TypeError, match="torch CUDA tensor or a NumPy array"):
        call([[1]], w.T, sa, sb)
    with pytest.raises(TypeError, match="not a mix"):
        call(a, w.T.tolist(), sa, sb)
    with pytest.raises(ValueError, match="activation"):
        call(a, w.T, sa, sb, activation="tanh")
    with pytest.raises(ValueError, match="unknown kernel"):
        call(a, w.T, sa, sb, kernel="sm90.nope")
    for bad in (1, None, "yes"):
        with pytest.raises(TypeError, match="use_fast_accum must be True or False"):
            call(a, w.T, sa, sb, use_fast_accum=bad)
    assert call(a[:0], w.T, sa, sb).shape == (0, 8)  # nothing to compute: no device needed
    if not HAS_GPU:
        with pytest.raises(RuntimeError, match="no CUDA device"):
            call(a, w.T, 2.0, np.float32(0.5))


class _FakeBuffer:
    """_core.DeviceBuffer's stand-in: what went up, a pattern coming down."""
    made = []

    def __init__(self, rows, cols, dtype, stream, fill):
        self.rows, self.cols, self.dtype, self.fill = rows, cols, dtype, fill
        self.pitch = -(-max(cols, 1) // 8) * 8
        self.ptr = (len(_FakeBuffer.made) + 1) << 24
        self.data, self.freed = None, False
        _FakeBuffer.made.append(self)

    def upload(self, host, stream):
        assert host.itemsize == 2 and host.shape == (self.rows, self.cols) and host.flags.c_contiguous
        self.data = host.view(np.uint16).copy()

    def download(self, host, stream):
        assert host.itemsize == 2 and host.shape == (self.rows, self.cols)
        host.view(np.uint16)[...] = np.arange(host.size, dtype=np.uint16).reshape(host.shape)

    def free(self):
        self.freed = True


def _fake_numpy_device(monkeypatch):
    """fake_device.py's plan and run, _FakeBuffer for the pool's buffers, one device: -> the record."""
    import fake_device
    rec = fake_device.install(monkeypatch.setattr)
    _FakeBuffer.made = []
    monkeypatch.setattr(_core, "DeviceBuffer", _FakeBuffer)
    monkeypatch.setattr(_core, "device_count", lambda: 1)
    monkeypatch.setattr(_core, "get_device", lambda: 0)
    return rec


def test_batched_numpy_matmul_launch(monkeypatch):
    """matmul's batched NumPy path on the same fake device (it shares the buffers' helper with the
    FP8 path): a (2, M, K) and a broadcast w.T go up whole (w's rows: TN), a bias as float16 words;
    the batch strides in elements of each buffer's pitch; the result the downloaded words."""
    rec = _fake_numpy_device(monkeypatch)
    M, N, K = 3, 20, 36
    a = np.arange(2 * M * K, dtype=np.float16).reshape(2, M, K)
    w = np.ones((N, K), np.float16)
    bias = np.ones(N, np.float32)
    y = tcgemm.matmul(a, w.T, bias=bias)
    assert y.shape == (2, M, N) and y.dtype == np.float16
    da, dw, dd, db = _FakeBuffer.made
    assert np.array_equal(da.data, a.reshape(-1, K).view(np.uint16)) and np.array_equal(dw.data, w.view(np.uint16))
    assert np.array_equal(db.data.view(np.float32).ravel(), bias) and (dd.rows, dd.cols) == (2 * M, N)
    assert np.array_equal(y.view(np.uint16).ravel(), np.arange(2 * M * N, dtype=np.uint16))
    assert all(x.freed for x in _FakeBuffer.made)
    (run,) = rec.runs
    assert (run.a, run.b, run.c, run.lda, run.ldb, run.ldc) == (da.ptr, dw.ptr, dd.ptr, da.pitch, dw.pitch, dd.pitch)
    assert (run.batch, run.stride_a, run.stride_b, run.stride_c) == (2, M * da.pitch, 0, M * dd.pitch)
    assert run.bias == db.ptr
    (plan,) = rec.plans
    assert plan[1:4] == (M, N, K) and plan[5] == _core.Layout.TN


@pytest.mark.parametrize("mode,out_dtype,b_order", [("row", "float32", "F"), ("block", "bfloat16", "C"),
                                                    ("tensor", "float16", "F")])
def test_scaled_matmul_numpy_launch(monkeypatch, mode, out_dtype, b_order):
    """The NumPy path's launch on a fake device (fake_device.py's plan and run, a fake DeviceBuffer):
    A's bytes go up as M x K/2 words, B's columns as the rows of an N x K weight (a host copy when b is
    row-major), each scale as a contiguous vector whose strides the launch gets; leading dimensions in
    elements (two FP8 per word, half an fp32 output per word); the plan's FP8 arguments; the result
    is the downloaded words in out_dtype, every buffer freed."""
    rec = _fake_numpy_device(monkeypatch)
    M, N, K = 5, 136, 272
    rng = np.random.default_rng(7)
    ba, bb = {"tensor": (None, None), "row": ("row", "row"), "block": ((1, 128), (128, 128))}[mode]
    a, sa = tcgemm.quantize_fp8(rng.standard_normal((M, K)).astype(np.float32), block=ba)
    w, sw = tcgemm.quantize_fp8(rng.standard_normal((N, K)).astype(np.float32), block=bb)
    if mode == "row":
        sw = sw.T  # (1, N), a strided view
    b = w.T if b_order == "F" else np.ascontiguousarray(w.T)
    y = tcgemm.scaled_matmul(a, b, sa, sw, out_dtype=out_dtype)
    np_out = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16, "float32": np.float32}[out_dtype]
    assert y.shape == (M, N) and y.dtype == np_out
    da, dw, dsa, dsb, dd = _FakeBuffer.made
    assert np.array_equal(da.data, a.view(np.uint16)) and da.data.shape == (M, K // 2)
    assert np.array_equal(dw.data, np.ascontiguousarray(w).view(np.uint16))
    assert np.array_equal(dsa.data.view(np.float32).ravel(), np.ascontiguousarray(sa).ravel())
    assert np.array_equal(dsb.data.view(np.float32).ravel(), np.ascontiguousarray(sw).ravel())
    words = {"float32": 2}.get(out_dtype, 1)
    assert (dd.rows, dd.cols) == (M, N * words)
    assert np.array_equal(y.view(np.uint16).ravel(), np.arange(M * N * words, dtype=np.uint16))
    assert all(x.freed for x in _FakeBuffer.made)
    (plan,) = rec.plans
    modes = {"tensor": _core.ScaleMode.tensor, "row": _core.ScaleMode.rowwise, "block": _core.ScaleMode.block}
    assert plan[1:4] == (M, N, K) and plan[5] == _core.Layout.TN and plan[-1]["scale_mode"] == modes[mode]
    assert plan[6] == _core.Accum.f32  # use_fast_accum=False: fp32 sums
    (run,) = rec.runs
    assert (run.a, run.b, run.c) == (da.ptr, dw.ptr, dd.ptr)
    assert (run.lda, run.ldb, run.ldc) == (2 * da.pitch, 2 * dw.pitch, dd.pitch // words)
    want = {"tensor": (0, 0, 0, 0), "row": (1, 0, 1, 0), "block": (3, 1, 3, 1)}[mode]
    assert (run.scale_a_stride, run.scale_a_stride_k, run.scale_b_stride, run.scale_b_stride_k) == want
    assert (run.scale_a, run.scale_b) == (dsa.ptr, dsb.ptr)


def _v(shape, dtype="float8_e4m3fn", strides=None, ptr=1 << 20, device=0):
    if strides is None:
        strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    return View(dtype, shape, strides, ptr, device)


def _good(M=7, N=129, K=256):
    """a row-major (M, K), b = w.T of a row-major (N, K) w, tensor-wise scales."""
    return dict(a=_v((M, K)), b=_v((K, N), strides=(1, K)), sa=_v((), "float32"), sb=_v((), "float32"),
                out_dtype="bfloat16")


def test_check_scaled_accepts_each_mode():
    M, N, K = 7, 129, 300 // 16 * 16
    got = check_scaled(**_good(M, N, K))
    assert got[:3] == (M, N, K) and got[5:7] == (K, K) and got[7] == _core.ScaleMode.tensor
    g = _good(M, N, K)
    g.update(sa=_v((M, 1), "float32"), sb=_v((1, N), "float32"))
    assert check_scaled(**g)[7] == _core.ScaleMode.rowwise
    g.update(sa=_v((M, 3), "float32"), sb=_v((2, 3), "float32"), b=_v((K, N), "float8_e5m2", strides=(1, 288)))
    got = check_scaled(**g)
    assert got[7] == _core.ScaleMode.block and got[4] == _core.DType.float8_e5m2 and got[6] == 288
    # a padded a (rows 16-byte multiples apart) and one row or one column
    assert check_scaled(**dict(_good(1, 1, 16), a=_v((1, 16), strides=(999, 1))))[5] == 16
    g = _good(M, N, K)
    g["out"] = _v((M, N), "bfloat16", strides=(136, 1))
    check_scaled(**g)


def _bad(**changes):
    g = _good()
    g.update(changes)
    return g


@pytest.mark.parametrize("args,exc,msg", [
    (_bad(a=_v((7, 256), device=-1)), ValueError, "a is a CPU tensor"),
    (_bad(sb=_v((), "float32", device=-1)), ValueError, "scale_b is a CPU tensor"),
    (_bad(b=_v((256, 129), strides=(1, 256), device=1)), ValueError, "b lives on device 1"),
    (_bad(sa=_v((), "float32", device=1)), ValueError, "scale_a lives on device 1"),
    (_bad(a=_v((7, 256), "bfloat16")), TypeError, "a has dtype bfloat16"),
    (_bad(b=_v((256, 129), "float16", strides=(1, 256))), TypeError, "b has dtype float16"),
    (_bad(a=_v((7, 256), "float8_e5m2"), b=_v((256, 129), "float8_e5m2", strides=(1, 256))), TypeError,
     "both float8_e5m2"),
    (_bad(a=_v((2, 7, 256))), ValueError, "a must be 2-D"),
    (_bad(b=_v((128, 129), strides=(1, 128))), ValueError, "inner dimensions differ"),
    (_bad(a=_v((7, 0)), b=_v((0, 129), strides=(1, 16))), ValueError, "K = 0"),
    (_bad(a=_v((7, 24)), b=_v((24, 129), strides=(1, 32))), ValueError, "not a multiple of 16"),
    (_bad(out_dtype="float8_e4m3fn"), TypeError, "out_dtype must be"),
    (_bad(a=_v((7, 256), strides=(1, 7))), ValueError, "a .* is not row-major"),
    (_bad(a=_v((7, 256), strides=(264, 1))), ValueError, "a .* is not row-major"),
    (_bad(a=_v((7, 256), ptr=(1 << 20) + 8)), ValueError, "16-byte aligned"),
    (_bad(b=_v((256, 129))), ValueError, "row-major: the NN layout"),
    (_bad(b=_v((256, 129), strides=(1, 264))), ValueError, "TN layout only"),
    (_bad(sa=_v((), "bfloat16")), TypeError, "scale_a has dtype bfloat16; scales are float32"),
    (_bad(sa=_v((7, 1), "float32")), ValueError, "scale_a has shape \\(7, 1\\) and scale_b \\(\\)"),
    (_bad(sa=_v((7, 3), "float32"), sb=_v((2, 2), "float32")), ValueError, "no scale mode"),
    (_bad(sa=_v((1, 7), "float32"), sb=_v((1, 129), "float32")), ValueError, "no scale mode"),
    (_bad(out=_v((7, 129), "float16")), TypeError, "out has dtype float16"),
    (_bad(out=_v((7, 128), "bfloat16")), ValueError, "out has shape"),
    (_bad(out=_v((7, 129), "bfloat16", strides=(1, 7))), ValueError, "out .* is not row-major"),
    (_bad(out=_v((7, 129), "bfloat16", device=-1)), ValueError, "out is a CPU tensor"),
])
def test_check_scaled_names_each_problem(args, exc, msg):
    with pytest.raises(exc, match=msg):
        check_scaled(**args)


def test_scaled_matmul_torch_errors_without_a_gpu():
    """What the torch adapter reads off real tensors: CPU tensors and the errors that precede any launch
    (needs torch, not a GPU; skipped where torch is not installed)."""
    torch = pytest.importorskip("torch", reason="torch is not installed: the torch argument tests need it")
    a = torch.zeros(7, 32).to(torch.float8_e4m3fn)
    w = torch.zeros(9, 32).to(torch.float8_e4m3fn)
    one = torch.ones((), dtype=torch.float32)
    with pytest.raises(ValueError, match="a is a CPU tensor"):
        tcgemm.scaled_matmul(a, w.T, one, one, out_dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="not a mix"):
        tcgemm.scaled_matmul(a, w.T, np.ones((), np.float32), one, out_dtype=torch.bfloat16)


# GPU tests: torch, a CUDA device and a runnable FP8 kernel.

def _fp8_kernels():
    return [k["name"] for k in tcgemm.kernels() if "float8_e4m3fn" in k["dtypes"] and k["runnable"]]


def _torch_gpu():
    torch = pytest.importorskip("torch", reason="torch is not installed: the FP8 GPU tests drive torch tensors")
    if not HAS_GPU or not torch.cuda.is_available():
        pytest.skip("no CUDA device: the FP8 GPU tests need one")
    if not _fp8_kernels():
        pytest.skip("no FP8 kernel runs on this device (sm_89 or sm_90a needed)")
    return torch


MODES = {"tensor": (None, None), "row": ("row", "row"), "block": ((1, 128), (128, 128))}
BOUND = {"bfloat16": 1e-2, "float16": 5e-3, "float32": 5e-3}


def _case(torch, M, N, K, mode, dt_a="float8_e4m3fn", dt_b="float8_e4m3fn", seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(M, K, device="cuda", generator=g) * torch.rand(M, 1, device="cuda", generator=g) * 10
    w = torch.randn(N, K, device="cuda", generator=g)
    ba, bb = MODES[mode]
    a, sa = tcgemm.quantize_fp8(x, block=ba, dtype=dt_a)
    wq, sw = tcgemm.quantize_fp8(w, block=bb, dtype=dt_b)
    if mode == "row":
        sw = sw.T  # (N, 1) -> (1, N): torch._scaled_mm's B scales
    return a, wq, sa, sw


def _expand(s, rows, cols, br, bc):
    return s.double().repeat_interleave(br, 0).repeat_interleave(bc, 1)[:rows, :cols]


def _reference(torch, a, wq, sa, sw, mode, bias=None, activation=None):
    """float64 act(dequant(a) @ dequant(w).T + bias)."""
    (M, K), N = a.shape, wq.shape[0]
    if mode == "tensor":
        fa, fw = a.double() * sa.double(), wq.double() * sw.double()
    elif mode == "row":
        fa, fw = a.double() * sa.double(), wq.double() * sw.double().T
    else:
        fa = a.double() * _expand(sa, M, K, 1, 128)
        fw = wq.double() * _expand(sw, N, K, 128, 128)
    y = fa @ fw.T
    if bias is not None:
        y = y + bias.double()
    if activation == "relu":
        y = torch.relu(y)
    elif activation == "gelu":
        y = 0.5 * y * (1 + torch.tanh(0.7978845608028654 * (y + 0.044715 * y ** 3)))
    elif activation == "silu":
        y = y * torch.sigmoid(y)
    return y


def _rel(got, want):
    return float(torch_norm(got.double() - want) / max(float(torch_norm(want)), 1e-300))


def torch_norm(x):
    return x.norm()


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
@pytest.mark.parametrize("M,N", [(1, 1), (7, 127), (127, 129), (129, 7), (1000, 1000)])
def test_scaled_matmul_matches_float64_reference(mode, M, N, fast):
    """Relative Frobenius error against float64 of the dequantized inputs within BOUND[out_dtype]: the
    output rounding (bf16 2^-8, fp16 2^-11 per element) plus the FP8 products' sums, in fp32 or (fast,
    to K = 1024) in FP8 wgmma's accumulator."""
    torch = _torch_gpu()
    for K in (16, 272, 1024):
        a, wq, sa, sw = _case(torch, M, N, K, mode)
        want = _reference(torch, a, wq, sa, sw, mode)
        for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
            y = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=out_dtype, use_fast_accum=fast)
            assert y.shape == (M, N) and y.dtype == out_dtype
            name = str(out_dtype)[6:]
            assert _rel(y, want) <= BOUND[name], (mode, M, N, K, name)


@pytest.mark.parametrize("M,N,K,entry", [(2081, 2544, 1200, "sm90.ws_fp8.pingpong.lines"),
                                          (4817, 3968, 4384, "sm90.ws_fp8.splitk"),
                                          (3000, 1536, 7184, "sm90.ws_fp8.tile192"),
                                          (3072, 1536, 7168, "sm90.ws_fp8.tile192")])
def test_auto_fast_sum_tiles(M, N, K, entry):
    """auto's fast-sum rules for rows 16 bytes into a sector (operands copied to whole lines, or 192x192
    tiles), for rows of part lines (128x256 tiles without a cluster) and for whole lines in one round of
    192x192 tiles, at shapes they take on a 132-SM Hopper GPU: the float64 bound, bf16 and fp32 output
    (ping-pong and .splitk store 16-bit values: fp32 takes the next in line), a poisoned out=, and the
    pick where the device has those SMs."""
    torch = _torch_gpu()
    a, wq, sa, sw = _case(torch, M, N, K, "tensor")
    want = _reference(torch, a, wq, sa, sw, "tensor")
    for out_dtype in (torch.bfloat16, torch.float32):
        out = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
        y = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=out_dtype, out=out, use_fast_accum=True)
        assert y is out and torch.isfinite(out).all()
        assert _rel(out, want) <= BOUND[str(out_dtype)[6:]], (M, N, K, out_dtype)
    props = torch.cuda.get_device_properties(0)
    if (props.major, props.minor, props.multi_processor_count) == (9, 0, 132):
        picks = {p[1] for k, p in tcgemm._call._PLANS.items() if k[-1] == "scaled" and k[1:4] == (M, N, K)}
        assert entry in picks, picks


@pytest.mark.parametrize("pair", [("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e4m3fn")])
def test_scaled_matmul_pairs_bias_activation(pair):
    torch = _torch_gpu()
    M, N, K = 127, 129, 384
    a, wq, sa, sw = _case(torch, M, N, K, "row", *pair)
    bias = torch.randn(N, device="cuda")
    for act in (None, "relu", "gelu", "silu"):
        y = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16, bias=bias, activation=act)
        assert _rel(y, _reference(torch, a, wq, sa, sw, "row", bias, act)) <= 2e-2, act


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_scaled_matmul_writes_poisoned_out_in_place(mode):
    torch = _torch_gpu()
    M, N, K = 129, 136, 512
    a, wq, sa, sw = _case(torch, M, N, K, mode)
    out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    assert tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16, out=out) is out
    assert torch.isfinite(out).all()
    assert _rel(out, _reference(torch, a, wq, sa, sw, mode)) <= BOUND["bfloat16"]


def test_scaled_matmul_graph_capture_replays():
    torch = _torch_gpu()
    M, N, K = 127, 129, 256
    a, wq, sa, sw = _case(torch, M, N, K, "row")
    tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16)  # plan outside the capture
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s), torch.cuda.graph(graph, stream=s):
        y = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16)
    y.fill_(float("nan"))
    a2, wq2, sa2, sw2 = _case(torch, M, N, K, "row", seed=1)
    a.copy_(a2), wq.copy_(wq2), sa.copy_(sa2), sw.copy_(sw2)
    graph.replay()
    torch.cuda.synchronize()
    assert _rel(y, _reference(torch, a, wq, sa, sw, "row")) <= BOUND["bfloat16"]


def _outs(name):
    return next(k["out_dtypes"] for k in tcgemm.kernels() if k["name"] == name)


def _accumulators(name):
    return next(k["accumulators"] for k in tcgemm.kernels() if k["name"] == name)


def _entries_for(mode):
    feature = {"tensor": "scale_tensor", "row": "scale_rowwise", "block": "scale_block"}[mode]
    return [k["name"] for k in tcgemm.kernels()
            if "float8_e4m3fn" in k["dtypes"] and k["runnable"] and feature in k["features"]]


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_every_fp8_entry_by_name_on_odd_shapes_and_in_a_graph(mode):
    """Each runnable FP8 entry named as the kernel: shapes that are no multiple of any tile side (and
    fewer tile rows than a 2-CTA cluster pairs: M = 1, 129; K past one 128-K block, so that block
    scales' shapes tell them from tensor-wise ones), poisoned outputs, then one call captured in a CUDA
    graph and replayed on new inputs."""
    torch = _torch_gpu()
    names = _entries_for(mode)
    if not names:
        pytest.skip(f"no runnable FP8 entry takes {mode} scales on this device")
    for name in names:
        fast = "f32" not in _accumulators(name)  # the unpromoted entries refuse fp32 sums
        for M, N, K in [(1, 7, 144), (129, 264, 400), (1000, 1000, 1040), (300, 600, 4112)]:
            a, wq, sa, sw = _case(torch, M, N, K, mode)
            if N % 8:  # out= takes rows 16 bytes apart: the call's own output
                out = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16, kernel=name,
                                           use_fast_accum=fast)
            else:
                out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16, out=out, kernel=name,
                                     use_fast_accum=fast)
            assert _rel(out, _reference(torch, a, wq, sa, sw, mode)) <= BOUND["bfloat16"], (name, M, N, K)
        M, N, K = 257, 384, 656  # (K % 128 != 0: the `.lines` entries' copies are captured too)
        a, wq, sa, sw = _case(torch, M, N, K, mode)
        # fp32 out where the entry writes it (ping-pong's TMA store writes 16-bit boxes only).
        out_dtype = torch.float32 if "float32" in _outs(name) else torch.float16
        tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=out_dtype, kernel=name, use_fast_accum=fast)  # plan first
        st = torch.cuda.Stream()
        st.wait_stream(torch.cuda.current_stream())
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(st), torch.cuda.graph(graph, stream=st):
            y = tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=out_dtype, kernel=name, use_fast_accum=fast)
        y.fill_(float("nan"))
        a2, wq2, sa2, sw2 = _case(torch, M, N, K, mode, seed=3)
        a.copy_(a2), wq.copy_(wq2), sa.copy_(sa2), sw.copy_(sw2)
        graph.replay()
        torch.cuda.synchronize()
        assert _rel(y, _reference(torch, a, wq, sa, sw, mode)) <= BOUND[str(out_dtype)[6:]], (name, "graph")


def _np_reference(a, wq, sa, sw, mode, bias=None):
    """float64 dequant(a) @ dequant(w).T (+ bias) on the host."""
    (M, K), N = a.shape, wq.shape[0]
    fa, fw = a.astype(np.float64), wq.astype(np.float64)
    if mode == "tensor":
        fa, fw = fa * float(sa), fw * float(sw)
    elif mode == "row":
        fa, fw = fa * sa.astype(np.float64), fw * sw.astype(np.float64).T
    else:
        fa = fa * np.repeat(sa.astype(np.float64), 128, axis=1)[:, :K]
        fw = fw * np.repeat(np.repeat(sw.astype(np.float64), 128, axis=0), 128, axis=1)[:N, :K]
    y = fa @ fw.T
    return y if bias is None else y + bias.astype(np.float64)


@pytest.mark.parametrize("mode", ["tensor", "row", "block"])
def test_scaled_matmul_numpy_matches_float64_reference(mode):
    """The NumPy path on the GPU: ml_dtypes operands (b stored both ways), each output type, odd shapes,
    a poisoned NumPy out and a bias, against the float64 product of the dequantized inputs."""
    if not HAS_GPU or not _fp8_kernels():
        pytest.skip("no CUDA device with a runnable FP8 kernel: the NumPy path's GPU test needs one")
    rng = np.random.default_rng(11)
    ba, bb = MODES[mode]
    outs = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16, "float32": np.float32}
    for M, N, K in [(1, 7, 144), (129, 264, 400), (300, 600, 4112)]:
        x = (rng.standard_normal((M, K)) * rng.uniform(0, 10, (M, 1))).astype(np.float32)
        a, sa = tcgemm.quantize_fp8(x, block=ba)
        wq, sw = tcgemm.quantize_fp8(rng.standard_normal((N, K)).astype(np.float32), block=bb)
        if mode == "row":
            sw = sw.T  # (1, N): torch._scaled_mm's B scales
        want = _np_reference(a, wq, sa, sw, mode)
        norm = np.linalg.norm(want)
        for name, dt in outs.items():
            for b in (wq.T, np.ascontiguousarray(wq.T)):
                y = tcgemm.scaled_matmul(a, b, sa, sw, out_dtype=dt)
                assert y.shape == (M, N) and y.dtype == dt
                assert np.linalg.norm(y.astype(np.float64) - want) <= BOUND[name] * norm, (mode, M, N, K, name)
        bias = rng.standard_normal(N).astype(np.float32)
        out = np.full((M, N), np.nan, np.float32)
        assert tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype="float32", bias=bias, out=out) is out
        want_b = _np_reference(a, wq, sa, sw, mode, bias)
        assert np.linalg.norm(out - want_b) <= BOUND["float32"] * np.linalg.norm(want_b), (mode, M, N, K, "bias")


def test_scaled_matmul_torch_refusals_on_the_gpu():
    torch = _torch_gpu()
    a, wq, sa, sw = _case(torch, 7, 129, 256, "row")
    with pytest.raises(ValueError, match="NN layout"):
        tcgemm.scaled_matmul(a, wq.T.contiguous(), sa, sw, out_dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="no scale mode"):
        tcgemm.scaled_matmul(a, wq.T, sa, sw.T, out_dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="scales are float32"):
        tcgemm.scaled_matmul(a, wq.T, sa.half(), sw, out_dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="both float8_e5m2"):
        tcgemm.scaled_matmul(a.view(torch.float8_e5m2), wq.T.view(torch.float8_e5m2), sa, sw,
                             out_dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="CPU tensor"):
        tcgemm.scaled_matmul(a, wq.T, sa.cpu(), sw, out_dtype=torch.bfloat16)
    if "sm90.ws_fp8" in _fp8_kernels():  # an unpromoted entry asked for fp32 sums (the default)
        with pytest.raises(ValueError, match="fp32 accumulation"):
            tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.bfloat16, kernel="sm90.ws_fp8")


@pytest.mark.parametrize("mode,out_name", [("tensor", "float32"), ("row", "bfloat16")])
def test_scaled_matmul_error_at_deep_k_is_torch_scaled_mm_s_or_less(mode, out_name):
    """The accuracy target: at K = 16384 the error against the float64 product of the dequantized
    inputs is at most torch._scaled_mm's on the same inputs, for each use_fast_accum -- fp32 sums
    (promoted on Hopper) against cuBLASLt's default, the fast sum against its fast path. 5% slack:
    the two round different partial sums. Tensor-wise with fp32 output, where the sums show; row-wise
    with bf16, the output torch's row-wise path writes."""
    torch = _torch_gpu()
    out_dtype = getattr(torch, out_name)
    M, N, K = 256, 512, 16384
    a, wq, sa, sw = _case(torch, M, N, K, mode)
    want = _reference(torch, a, wq, sa, sw, mode)
    for fast in (False, True):
        ours = _rel(tcgemm.scaled_matmul(a, wq.T, sa, sw, out_dtype=out_dtype, use_fast_accum=fast), want)
        try:
            theirs = _rel(torch._scaled_mm(a, wq.T, sa, sw, out_dtype=out_dtype, use_fast_accum=fast), want)
        except RuntimeError as exc:  # a torch build without this combination: nothing to compare with
            pytest.skip(f"torch._scaled_mm ({mode}, {out_name}, use_fast_accum={fast}): {exc}")
        assert ours <= 1.05 * theirs, (mode, fast, ours, theirs)


def test_scaled_matmul_custom_op():
    torch = _torch_gpu()
    import tcgemm.torch as tt
    a, wq, sa, sw = _case(torch, 33, 129, 256, "tensor")
    for fast in (False, True):
        y = tt.scaled_matmul(a, wq.T, sa, sw, out_dtype=torch.float32, use_fast_accum=fast)
        assert y.dtype == torch.float32 and _rel(y, _reference(torch, a, wq, sa, sw, "tensor")) <= BOUND["float32"]


def test_scaled_matmul_launch_through_the_call_path(monkeypatch):
    """The launch scaled_matmul makes, on a fake framework (fake_device.py's stand-ins for plan and run):
    the plan's FP8 arguments, one RunArgs with the operands' leading dimensions and the scale strides,
    the plan cached (a second call plans nothing), and no launch when a check fails."""
    import fake_device
    from tcgemm import _call
    from tcgemm._operands import Operand

    class T:  # an FP8 / fp32 tensor of the fake framework
        def __init__(self, shape, dtype, strides=None, ptr=1 << 20, device=0):
            self.v = _v(shape, dtype, strides, ptr, device)
            self.shape = self.v.shape

    class FP8Fake(fake_device.FakeAdapter):
        @staticmethod
        def view(x):
            return x.v

        @staticmethod
        def empty_out(rows, cols, out_dtype, like):
            p = -(-cols // 8) * 8
            return Operand(1 << 30, rows, cols, p, False, None, None)

    rec = fake_device.install(monkeypatch.setattr)
    monkeypatch.setitem(_call._ADAPTERS, T, FP8Fake)
    M, N, K = 7, 129, 384
    a, b = T((M, K), "float8_e4m3fn", ptr=1 << 21), T((K, N), "float8_e5m2", strides=(1, 400), ptr=1 << 22)
    sa, sb = T((M, 3), "float32", strides=(1, 8), ptr=1 << 23), T((2, 3), "float32", ptr=1 << 24)
    y = tcgemm.scaled_matmul(a, b, sa, sb, out_dtype="float32")
    assert (y.rows, y.cols) == (M, N)
    (plan,) = rec.plans
    assert plan[1:4] == (M, N, K) and plan[4] == E4M3 and plan[5] == _core.Layout.TN
    assert plan[6] == _core.Accum.f32  # use_fast_accum=False, torch's default: fp32 sums
    assert plan[-1] == dict(dtype_b=E5M2, dtype_c=_core.DType.float32, scale_mode=_core.ScaleMode.block)
    (run,) = rec.runs
    assert (run.a, run.b, run.lda, run.ldb, run.stream) == (1 << 21, 1 << 22, K, 400, fake_device.FakeAdapter.STREAM)
    assert (run.scale_a, run.scale_b, run.scale_a_stride, run.scale_a_stride_k, run.scale_b_stride,
            run.scale_b_stride_k) == (1 << 23, 1 << 24, 1, 8, 3, 1)
    tcgemm.scaled_matmul(a, b, sa, sb, out_dtype="float32")
    assert len(rec.plans) == 1 and len(rec.runs) == 2
    tcgemm.scaled_matmul(a, b, sa, sb, out_dtype="float32", use_fast_accum=True)  # planned apart
    assert len(rec.plans) == 2 and rec.plans[1][6] == _core.Accum.fast and len(rec.runs) == 3
    with pytest.raises(ValueError, match="NN layout"):
        tcgemm.scaled_matmul(a, T((K, N), "float8_e4m3fn"), sa, sb, out_dtype="float32")
    assert len(rec.runs) == 3


@pytest.mark.parametrize("nbytes, kept", [(4096, True), (16 << 20, True), ((16 << 20) + 256, False)])
def test_scaled_matmul_workspace_kept_up_to_the_staging_bound(monkeypatch, nbytes, kept):
    """A scaled plan's workspace (a `.lines` entry's operand copies: the planner is faked here) reaches
    the launch whole; up to KEEP_STAGING bytes it is the stream's kept workspace (one allocation for two
    calls), past it the framework's allocator serves each call and the cache keeps nothing."""
    import fake_device
    from tcgemm import _call

    class T:
        def __init__(self, shape, dtype, strides=None, ptr=1 << 20):
            self.v = _v(shape, dtype, strides, ptr, 0)
            self.shape = self.v.shape

    class FP8Fake(fake_device.FakeAdapter):
        @staticmethod
        def view(x):
            return x.v

    rec = fake_device.install(monkeypatch.setattr, workspace_bytes=nbytes)
    monkeypatch.setitem(_call._ADAPTERS, T, FP8Fake)
    M, N, K = 300, 256, 4112
    a, b = T((M, K), "float8_e4m3fn", ptr=1 << 21), T((K, N), "float8_e4m3fn", strides=(1, K), ptr=1 << 22)
    sa, sb = T((), "float32", ptr=1 << 23), T((), "float32", ptr=1 << 24)
    out = T((M, N), "bfloat16", ptr=1 << 25)
    for _ in range(2):
        tcgemm.scaled_matmul(a, b, sa, sb, out_dtype="bfloat16", out=out, use_fast_accum=True)
    assert [r.workspace_bytes for r in rec.runs] == [nbytes, nbytes]
    allocs = fake_device.FakeAdapter.allocations
    assert [n for n, _ in allocs] == ([nbytes] if kept else [nbytes, nbytes])
    assert all((r.workspace >= 1 << 36) != kept for r in rec.runs)  # scratch pointers sit at 2^36 (fake_device)
    assert len(_call.WORKSPACES) == (1 if kept else 0)
