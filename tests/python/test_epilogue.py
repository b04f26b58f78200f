"""Fused epilogues, batched GEMM and split-K (GPU): every registry entry that
claims a feature, against a float64 reference, outputs poisoned first."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from conftest import (HAS_GPU, b_for, bound, fp8_only, gpu, kernel_index, refuses_layout, rel_err,
                      representative, turn)

pytestmark = gpu
f16, bf16 = tcgemm.float16, tcgemm.bfloat16
ACTS = [None, "relu", "gelu", "silu"]
SHAPES = [(1, 7, 9), (7, 13, 129), (129, 127, 200), (300, 260, 1000)]


def _kernels(feature):
    if not HAS_GPU:
        return [pytest.param("none", marks=pytest.mark.skip(reason="no CUDA device found"))]
    return [k["name"] if k["runnable"] else
            pytest.param(k["name"], marks=pytest.mark.skip(reason=f"needs {k['arch']}: {k['why_not']}"))
            for k in tcgemm.kernels() if feature in k["features"] and not fp8_only(k)]


# The representative sets (the rest runs with TCGEMM_TEST_EXHAUSTIVE=1):
# every kernel on both layouts and every activation, the shapes taken in
# turn from case to case and kernel to kernel, so that each kernel meets
# every shape.
def _li(layout):
    return ["NN", "TN"].index(layout)


def _one_shape_per_layout_and_act(kernel, layout, act, M, N, K):
    return turn(SHAPES.index((M, N, K)), len(SHAPES), kernel_index(kernel) + 4 * _li(layout) + ACTS.index(act))


def _bias_rule(kernel, layout, act, M, N, K):
    """As above over the five shapes, and 2100x2000x72 (the staged bias rewritten
    tile after tile) for bias only and bias + GELU on one layout of each kernel."""
    shapes = SHAPES + [(2100, 2000, 72)]
    if (M, N, K) == (2100, 2000, 72) and act in (None, "gelu") and _li(layout) == kernel_index(kernel) % 2:
        return True
    return turn(shapes.index((M, N, K)), len(shapes), kernel_index(kernel) + 4 * _li(layout) + ACTS.index(act))


def _act64(x, act):
    if act == "relu":
        return np.where(x < 0, 0.0, x)
    if act == "gelu":
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    if act == "silu":
        return x / (1 + np.exp(-x))
    return x


def _reference(a, b, alpha=1.0, beta=0.0, c=None, bias=None, act=None):
    x = alpha * np.matmul(a.astype(np.float64), b.astype(np.float64))
    if beta != 0:
        x = x + beta * c.astype(np.float64)
    if bias is not None:
        x = x + bias.astype(np.float64)
    return _act64(x, act)


def _u(rng, shape, dtype):
    return rng.uniform(-1, 1, shape).astype(dtype)


def _b(rng, K, N, dtype, layout):
    w = _u(rng, (N, K), dtype)
    return w.T if layout == "TN" else np.ascontiguousarray(w.T)


@representative(_one_shape_per_layout_and_act)
@pytest.mark.parametrize("kernel", _kernels("epilogue"))
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_fused_epilogue(kernel, layout, act, M, N, K, rng):
    dtype = bf16 if (M + N) % 2 else f16
    a, b = _u(rng, (M, K), dtype), _b(rng, K, N, dtype, layout)
    if refuses_layout(kernel, layout, lambda: tcgemm.matmul(a, b, kernel=kernel)):
        return
    c = _u(rng, (M, N), dtype)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    alpha, beta = 0.75, -1.25
    ref = _reference(a, b, alpha, beta, c, bias, act)
    with tcgemm.DeviceArray.empty((M, N), dtype) as out:
        out._buf.fill_bytes(0xFF)  # NaN poison: an unwritten element cannot pass
        tcgemm.matmul(a, tcgemm.to_device(b), c=c, alpha=alpha, beta=beta, bias=bias, activation=act, out=out,
                      kernel=kernel)
        got = out.numpy()
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, ref) < bound(dtype, "f32")


BIAS_DTYPES = [f16, bf16, np.float32]


@representative(_bias_rule)
@pytest.mark.parametrize("kernel", _kernels("epilogue"))
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("M,N,K", SHAPES + [(2100, 2000, 72)])
def test_bias_activation_without_c(kernel, layout, act, M, N, K, rng):
    """beta = 0, the linear layer's epilogue: the Hopper TMA-store kernels stage each tile's bias in
    shared memory for bias only and bias + GELU (the general path for the rest); N not a multiple of 64
    leaves part of the last quarter outside the matrix; 2100x2000 makes persistent CTAs walk several
    tiles, so the staged bias is rewritten tile after tile."""
    dtype = bf16 if (M + N) % 2 else f16
    a, b = _u(rng, (M, K), dtype), _b(rng, K, N, dtype, layout)
    if refuses_layout(kernel, layout, lambda: tcgemm.matmul(a, b, kernel=kernel)):
        return
    bias = rng.uniform(-1, 1, N).astype(BIAS_DTYPES[(M + K) % 3])
    ref = _reference(a, b, 0.75, bias=bias, act=act)
    with tcgemm.DeviceArray.empty((M, N), dtype) as out:
        out._buf.fill_bytes(0xFF)  # NaN poison: an unwritten element cannot pass
        tcgemm.matmul(a, b, alpha=0.75, bias=bias, activation=act, out=out, kernel=kernel)
        got = out.numpy()
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, ref) < bound(dtype, "f32")


@representative(lambda kernel, act, M, N, K: turn(M == 300, 2, kernel_index(kernel) + (act == "silu")))
@pytest.mark.parametrize("kernel", _kernels("epilogue"))
@pytest.mark.parametrize("act", ["gelu", "silu"])
@pytest.mark.parametrize("M,N,K", [(7, 13, 129), (300, 260, 1000)])
def test_activation_without_bias(kernel, act, M, N, K, rng):
    a, b = _u(rng, (M, K), f16), b_for(kernel, _u(rng, (K, N), f16))
    got = tcgemm.matmul(a, b, activation=act, kernel=kernel)
    assert rel_err(got, _reference(a, b, act=act)) < 2e-3


@pytest.mark.parametrize("kernel", _kernels("epilogue"))
@pytest.mark.parametrize("bias_dtype", BIAS_DTYPES)
def test_bias_dtypes_and_alpha(kernel, bias_dtype, rng):
    M, N, K = 130, 200, 72
    a, b = _u(rng, (M, K), f16), b_for(kernel, _u(rng, (K, N), f16))
    bias = rng.uniform(-2, 2, N).astype(bias_dtype)
    got = tcgemm.matmul(a, b, alpha=-2.0, bias=bias, kernel=kernel)
    assert rel_err(got, _reference(a, b, -2.0, bias=bias)) < 2e-3


@pytest.mark.parametrize("kernel", _kernels("epilogue"))
def test_beta_zero_never_reads_c(kernel, rng):
    M, N, K = 129, 131, 64
    a, b = _u(rng, (M, K), f16), b_for(kernel, _u(rng, (K, N), f16))
    c = np.full((M, N), np.nan, dtype=f16)
    got = tcgemm.matmul(a, b, c=c, beta=0.0, activation="relu", kernel=kernel)
    assert np.isfinite(got.astype(np.float32)).all()
    assert rel_err(got, _reference(a, b, act="relu")) < 2e-3


@pytest.mark.parametrize("kernel", _kernels("epilogue"))
def test_in_place_accumulate(kernel, rng):
    M, N, K = 200, 136, 300
    a, b, c0 = _u(rng, (M, K), f16), b_for(kernel, _u(rng, (K, N), f16)), _u(rng, (M, N), f16)
    with tcgemm.to_device(c0) as acc:
        tcgemm.matmul(tcgemm.to_device(a), b, c=acc, beta=1.0, out=acc, kernel=kernel)  # acc += a @ b
        got = acc.numpy()
    assert rel_err(got, _reference(a, b, 1.0, 1.0, c0)) < 2e-3


@pytest.mark.parametrize("kernel", _kernels("epilogue"))
def test_activation_propagates_nan_and_inf(kernel, rng):
    M, N, K = 16, 24, 32
    a, b = _u(rng, (M, K), f16), b_for(kernel, _u(rng, (K, N), f16))
    a[0, 0] = np.nan
    a[1, :] = 0
    bias = np.zeros(N, np.float32)
    bias[3] = np.inf
    got = tcgemm.matmul(a, b, bias=bias, activation="relu", kernel=kernel).astype(np.float32)
    assert np.isnan(got[0]).all()         # NaN * anything + ... stays NaN through relu
    assert got[1, 3] == np.inf and (got[1, np.arange(N) != 3] == 0).all()


# ---- batched -------------------------------------------------------------------------------------

def _batched_raw(kernel, a3, b3, layout, batch, M, N, K, dtype, bcast_a=False, bcast_b=False, **opts):
    """_core.gemm on a poisoned (batch*M, N) output, operands stacked one matrix under another."""
    da = tcgemm.to_device(a3.reshape(-1, K))
    if layout == "TN":
        db = tcgemm.to_device(np.ascontiguousarray(b3.transpose(0, 2, 1)).reshape(-1, K)).T  # (K, batch*N) view
        sb = N * db.pitch
    else:
        db = tcgemm.to_device(b3.reshape(-1, N))
        sb = K * db.pitch
    dc = tcgemm.DeviceArray.empty((batch * M, N), dtype)
    dc._buf.fill_bytes(0xFF)
    _core.gemm(kernel, da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch, tcgemm._api._DTYPES[dtype],
               getattr(_core.Layout, layout), _core.Accum.f32, True, 0, True, batch=batch,
               stride_a=0 if bcast_a else M * da.pitch, stride_b=0 if bcast_b else sb, stride_c=M * dc.pitch, **opts)
    got = dc.numpy().reshape(batch, M, N)
    for x in (da, db, dc):
        x.free()
    return got


BATCHED = [(1, 7, 9, 13), (3, 129, 127, 200), (5, 64, 256, 64), (2, 1, 300, 1000)]


@representative(lambda kernel, layout, batch, M, N, K: (BATCHED.index((batch, M, N, K)) - kernel_index(kernel)
                                                         - 2 * _li(layout)) % 4 < 2)  # two shapes per layout
@pytest.mark.parametrize("kernel", _kernels("batched"))
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("batch,M,N,K", BATCHED)
def test_batched_matches_float64(kernel, layout, batch, M, N, K, rng):
    a3, b3 = _u(rng, (batch, M, K), f16), _u(rng, (batch, K, N), f16)
    if refuses_layout(kernel, layout, lambda: _batched_raw(kernel, a3, b3, layout, batch, M, N, K, f16)):
        return
    got = _batched_raw(kernel, a3, b3, layout, batch, M, N, K, f16)
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, _reference(a3, b3)) < 2e-3


@representative(lambda kernel, which, layout: turn(_li(layout), 2, kernel_index(kernel) + (which == "b")))
@pytest.mark.parametrize("kernel", _kernels("batched"))
@pytest.mark.parametrize("which", ["a", "b"])
@pytest.mark.parametrize("layout", ["NN", "TN"])  # TN: the swap-AB path exchanges the batch strides too
def test_batched_broadcast(kernel, which, layout, rng):
    batch, M, N, K = 4, 100, 72, 130
    a3, b3 = _u(rng, (batch, M, K), f16), _u(rng, (batch, K, N), f16)
    if which == "a":
        a3[:] = a3[0]
    else:
        b3[:] = b3[0]
    if refuses_layout(kernel, layout, lambda: _batched_raw(kernel, a3[:1] if which == "a" else a3, b3[:1] if which == "b" else b3, layout, batch, M, N,
                       K, f16, bcast_a=which == "a", bcast_b=which == "b")):
        return
    got = _batched_raw(kernel, a3[:1] if which == "a" else a3, b3[:1] if which == "b" else b3, layout, batch, M, N,
                       K, f16, bcast_a=which == "a", bcast_b=which == "b")
    assert rel_err(got, _reference(a3, b3)) < 2e-3


@pytest.mark.parametrize("layout", ["NN", "TN"])
def test_batched_numpy_api_with_epilogue(layout, rng):
    batch, M, N, K = 3, 65, 130, 257
    a3 = _u(rng, (batch, M, K), bf16)
    w3 = _u(rng, (batch, N, K), bf16)
    b3 = w3.transpose(0, 2, 1) if layout == "TN" else np.ascontiguousarray(w3.transpose(0, 2, 1))
    c = _u(rng, (M, N), bf16)  # 2-D c broadcast over the batch
    bias = rng.uniform(-1, 1, N).astype(bf16)
    got = tcgemm.matmul(a3, b3, c=c, beta=0.5, bias=bias, activation="silu")
    assert got.shape == (batch, M, N) and got.dtype == bf16
    assert rel_err(got, _reference(a3, b3, 1.0, 0.5, c, bias, "silu")) < 8e-3
    x = _u(rng, (batch, M, K), bf16)  # x @ w: a 2-D b broadcast over the batch (NumPy's rules)
    w = _u(rng, (K, N), bf16)
    assert rel_err(tcgemm.matmul(x, w), np.matmul(x.astype(np.float64), w.astype(np.float64))) < 8e-3


# ---- split-K -------------------------------------------------------------------------------------

SPLIT = [k for k in _kernels("split_k")]


SPLITS = [None, 1, 2, 3, 7]
SPLIT_SHAPES = [(1, 7, 129), (16, 1000, 4096), (64, 513, 2048), (100, 300, 1000), (129, 260, 777)]


@representative(lambda kernel, layout, split_k, M, N, K: turn(
    SPLIT_SHAPES.index((M, N, K)), 5, kernel_index(kernel) + 2 * _li(layout) + SPLITS.index(split_k)))
@pytest.mark.parametrize("kernel", SPLIT)
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("split_k", SPLITS)
@pytest.mark.parametrize("M,N,K", SPLIT_SHAPES)
def test_split_k_matches_float64(kernel, layout, split_k, M, N, K, rng):
    a, b = _u(rng, (M, K), f16), _b(rng, K, N, f16, layout)
    c = _u(rng, (M, N), f16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    with tcgemm.DeviceArray.empty((M, N), f16) as out:
        out._buf.fill_bytes(0xFF)
        tcgemm.matmul(a, b, c=c, beta=-1.0, bias=bias, activation="gelu", out=out, kernel=kernel, split_k=split_k)
        got = out.numpy()
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, _reference(a, b, 1.0, -1.0, c, bias, "gelu")) < 2e-3


@representative(lambda kernel, split_k: split_k is None or turn(split_k == 16, 2, kernel_index(kernel)))
@pytest.mark.parametrize("kernel", SPLIT)
@pytest.mark.parametrize("split_k", [None, 4, 16])
def test_split_k_is_deterministic(kernel, split_k, rng):
    M, N, K = 32, 1024, 8192
    a, b = _u(rng, (M, K), bf16), _u(rng, (K, N), bf16)
    da, db = tcgemm.to_device(a), tcgemm.to_device(b)
    runs = [tcgemm.matmul(da, db, kernel=kernel, split_k=split_k).numpy().view(np.uint16) for _ in range(5)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])  # bit-identical, run to run
    assert rel_err(runs[0].view(bf16), a.astype(np.float64) @ b.astype(np.float64)) < 8e-3


@pytest.mark.parametrize("kernel", SPLIT)
@pytest.mark.parametrize("layout", ["NN", "TN"])  # the swap's two problems: the weight K-major, or MN-major
def test_split_k_batched(kernel, layout, rng):
    batch, M, N, K = 3, 16, 300, 2048
    a3, b3 = _u(rng, (batch, M, K), f16), _u(rng, (batch, K, N), f16)
    got = _batched_raw(kernel, a3, b3, layout, batch, M, N, K, f16, split_k=4)
    assert np.isfinite(got.astype(np.float32)).all()
    assert rel_err(got, _reference(a3, b3)) < 2e-3


# The swap's cluster split chooses the weight's tile height per call
# (sched::cluster_split_tile_rows): 64 rows while N / 64 tiles fit on the SMs
# (N = 4096), else 128 (N = 8500 on 132 SMs); and x's rows up to 128 wide
# (n16 / n32 / n64 / n128). Every height and width, K not a multiple of 64,
# against float64 with the full epilogue, on a poisoned output; NN reads the
# weight MN-major (wgmma's transpose-A), TN K-major.
@representative(lambda kernel, layout, M, N: turn(N == 8500, 2, [1, 16, 33, 100, 128].index(M) + _li(layout)))
@pytest.mark.parametrize("kernel", [k for k in SPLIT if "swap.dsmem" in str(k)] or _kernels("none"))
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("M", [1, 16, 33, 100, 128])
@pytest.mark.parametrize("N", [4096, 8500])
def test_swap_cluster_split_tile_heights(kernel, layout, M, N, rng):
    K = 1000
    a, b = _u(rng, (M, K), f16), _b(rng, K, N, f16, layout)
    c = _u(rng, (M, N), f16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    with tcgemm.DeviceArray.empty((M, N), f16) as out:
        out._buf.fill_bytes(0xFF)
        tcgemm.matmul(a, b, c=c, beta=-1.0, bias=bias, activation="gelu", out=out, kernel=kernel)
        got = out.numpy()
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, _reference(a, b, 1.0, -1.0, c, bias, "gelu")) < 2e-3


# Shapes whose tiles take a last wave less than half full on 132 SMs and
# enough K for the split tail to pay (sched::choose_split_plan: the last tile
# rows split, the rest whole), per tile width. 128x256: 2504x1896 is 160
# tiles (4 of 20 rows split 4 ways), 2567x2000 168, a batch of 2 at
# 1100x1900 144. 128x192: 1086x2696 135 tiles, 1086x2922 144, a batch of 2
# at 601x2583 140 (none a multiple of either tile side). 2x2 clusters of
# 128x256 tiles (30 resident on an H200): 1086x3148 9x13 tiles in 5x7 units,
# 2567x2000, a batch of 2 at 601x2583.
TAIL = {256: [(2504, 1896, 2048, 1), (2567, 2000, 2777, 1), (1100, 1900, 2222, 2)],
        192: [(1086, 2696, 2777, 1), (1086, 2922, 2777, 1), (601, 2583, 2777, 2)],
        "sm90.ws_mcast.2x2": [(1086, 3148, 2777, 1), (2567, 2000, 2777, 1), (601, 2583, 2777, 2)]}
# 256x128 tiles in 1x2 clusters (sm90.ws_mcast.m256; 58-66 clusters resident): 1377x2902 6x23 tiles
# in 6x12 units, 2250x1847 9x15 in 9x8, a batch of 2 at 795x2058 (sched::choose_split_plan splits the
# last unit rows of each at 58-66 workers).
TAIL["sm90.ws_mcast.m256"] = [(1377, 2902, 2777, 1), (2250, 1847, 2777, 1), (795, 2058, 2777, 2)]
TAIL["sm90.ws_splitk.swap"] = TAIL[256]  # NN runs ws_splitk (its tail); TN computes D^T, all partials
TAIL["sm90.ws_splitk.swap.dsmem"] = TAIL[256]  # both layouts swapped: no partials at all (the cluster split)
TAIL["sm90.ws_splitk.dsmem"] = TAIL[256]  # the cluster split on both layouts: no partials


def _tail_shapes(kernel):
    if kernel in TAIL:
        return TAIL[kernel]
    return TAIL[next((k["tile"][1] for k in tcgemm.kernels() if k["name"] == kernel), 256) if HAS_GPU else 256]


@representative(lambda kernel, layout, shape: turn(shape, 3, kernel_index(kernel) + _li(layout)))
@pytest.mark.parametrize("kernel", SPLIT)
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("shape", range(3))
def test_split_tail_matches_float64_and_is_deterministic(kernel, layout, shape, rng):
    M, N, K, batch = _tail_shapes(kernel)[shape]
    d = tcgemm.device_info()
    # The workspace holds the tail's partials only: fewer bytes than splitting every row.
    _, _, ws = _core.plan(kernel, M, N, K, _core.DType.float16, _core.Layout.TN if layout == "TN" else _core.Layout.NN,
                          _core.Accum.f32, False, batch, 0)
    if kernel.endswith(".swap") and layout == "TN":  # no tail: every tile of D^T leaves as a partial
        assert ws >= 4 * batch * N * ((M + 3) // 4 * 4)
    elif "dsmem" in kernel:  # the slices meet in shared memory
        assert ws == 0
    elif d["sm_count"] == 132:
        assert 0 < ws < 2 * 4 * batch * M * ((N + 3) // 4 * 4), "expected a split tail on 132 SMs"
    shape_a, shape_c = ((batch, M, K), (batch, M, N)) if batch > 1 else ((M, K), (M, N))
    a = _u(rng, shape_a, f16)
    b = _b(rng, K, N, f16, layout)
    c = _u(rng, shape_c, f16)
    bias = rng.uniform(-1, 1, N).astype(np.float32)
    runs = []
    for _ in range(2):  # each on a poisoned output (NaN), so an unwritten element shows
        if batch == 1:
            with tcgemm.DeviceArray.empty((M, N), f16) as out:
                out._buf.fill_bytes(0xFF)
                tcgemm.matmul(a, b, c=c, beta=-1.0, bias=bias, activation="gelu", kernel=kernel, out=out)
                got = out.numpy()
        else:
            torch = pytest.importorskip("torch")
            t = lambda x: torch.from_numpy(np.ascontiguousarray(x)).cuda()
            out = torch.full(shape_c, float("nan"), dtype=torch.float16, device="cuda")
            bt = t(b.T).transpose(-1, -2) if layout == "TN" else t(b)
            tcgemm.matmul(t(a), bt, c=t(c), beta=-1.0, bias=t(bias), activation="gelu", kernel=kernel, out=out)
            got = out.cpu().numpy()
        assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
        runs.append(got)
    np.testing.assert_array_equal(runs[0].view(np.uint16), runs[1].view(np.uint16))  # bit-identical
    assert rel_err(runs[0], _reference(a, b, 1.0, -1.0, c, bias, "gelu")) < 2e-3


def test_auto_picks_split_k_for_decode_shapes(rng):
    d = tcgemm.device_info()
    if d["cc"] != 90 or not any(k["name"] == "sm90.ws_splitk" and k["runnable"] for k in tcgemm.kernels()):
        pytest.skip("the split-K policy is measured for sm_90 (ws_splitk built and runnable)")
    # NN (x @ w): swapped, a tile's K slices in one cluster, while the weight's tiles fit in one wave
    # (M <= 64: 64 tiles of 128 rows; M = 128: 128 tiles of 64 rows)
    m16 = "sm90.ws_splitk.swap.dsmem" if d["sm_count"] >= 64 else "sm90.ws_splitk"
    m128 = "sm90.ws_splitk.swap.dsmem" if d["sm_count"] >= 128 else "sm90.ws_pingpong"
    for M, N, K, want in [(16, 8192, 8192, m16), (128, 8192, 8192, m128),
                          (4096, 4096, 4096, "sm90.ws_mcast")]:
        da = tcgemm.DeviceArray.empty((M, K), f16)
        db = tcgemm.DeviceArray.empty((K, N), f16)
        dc = tcgemm.DeviceArray.empty((M, N), f16)
        used = _core.gemm("auto", da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch, _core.DType.float16,
                          _core.Layout.NN, _core.Accum.f32, True, 0, True)
        assert used == want, (M, N, K, used)
        for x in (da, db, dc):
            x.free()
    # x @ w.T (TN) at M <= 64 swaps A and B (the weight's rows fill wgmma's M)
    M, N, K = 16, 4096, 4096
    da, dw, dc = (tcgemm.DeviceArray.empty(s, f16) for s in ((M, K), (N, K), (M, N)))
    used = _core.gemm("auto", da.ptr, dw.ptr, dc.ptr, M, N, K, da.pitch, dw.pitch, dc.pitch, _core.DType.float16,
                      _core.Layout.TN, _core.Accum.f32, True, 0, True)
    assert used == "sm90.ws_splitk.swap.dsmem", used
    for x in (da, dw, dc):
        x.free()
