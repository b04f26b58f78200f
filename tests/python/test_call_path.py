"""The call path (GPU): torch/cupy operands read in place, outputs and workspace
from the caller's allocator, CUDA-graph capture and replay, device epilogue
operands, layouts that need staging, and the pipelined NumPy path.

Every check uses fresh random data, poisons outputs it hands in, and compares
with a float64 reference by relative Frobenius error."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from conftest import bound, gpu, rel_err

pytestmark = gpu
f16, bf16 = tcgemm.float16, tcgemm.bfloat16
torch = pytest.importorskip("torch") if _core.device_count() else None

ODD = [(1, 1, 1), (7, 7, 7), (1, 129, 1000), (127, 129, 65), (129, 127, 200), (1000, 72, 33), (300, 1234, 777)]


def _t(shape, dtype=None, device="cuda"):
    return torch.empty(shape, dtype=dtype or torch.float16, device=device).uniform_(-1, 1)


def _ref(a, b, bias=None, act=None, c=None, alpha=1.0, beta=0.0):
    x = alpha * (a.double().cpu().numpy() @ b.double().cpu().numpy())
    if beta:
        x = x + beta * c.double().cpu().numpy()
    if bias is not None:
        x = x + bias.double().cpu().numpy()
    if act == "relu":
        x = np.maximum(x, 0)
    elif act == "gelu":
        x = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    elif act == "silu":
        x = x / (1 + np.exp(-x))
    return x


def _np(t):
    return t.float().cpu().numpy()


def _bnd(t):
    return bound(bf16 if t.dtype == torch.bfloat16 else f16, "f32")


# ---- torch operands in place, results from torch's allocator ---------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("M,N,K", ODD)
def test_torch_new_and_out(dtype, layout, M, N, K):
    dt = getattr(torch, dtype)
    x = _t((M, K), dt)
    w = _t((N, K), dt)
    b = w.t() if layout == "TN" else w.t().contiguous()
    y = tcgemm.matmul(x, b)
    assert isinstance(y, torch.Tensor) and y.shape == (M, N) and y.dtype == dt and y.is_contiguous()
    out = torch.full((M, N), float("nan"), dtype=dt, device="cuda")  # poison: unwritten elements fail
    r = tcgemm.matmul(x, b, out=out)
    assert r is out
    ref = _ref(x, b)
    for got in (y, out):
        g = _np(got)
        assert np.isfinite(g).all()
        assert rel_err(g, ref) < _bnd(x)


def test_torch_layouts_that_need_staging():
    """Leading dimensions not a multiple of 8, starts not 16-byte aligned, no unit stride:
    staged on the stream, results exact to the reference."""
    x = _t((777, 4321))                       # ld 4321
    w = _t((1234, 4321))                      # TN with ld 4321
    out = torch.full((777, 1234), float("nan"), dtype=torch.float16, device="cuda")  # ldc 1234
    tcgemm.matmul(x, w.t(), out=out)
    assert rel_err(_np(out), _ref(x, w.t())) < 2e-3
    big = _t((300, 520))
    xs = big[1:, 3:259]                       # start not 16-byte aligned
    bs = _t((512, 300))[::2, ::3]             # no unit stride at all
    ref = _ref(xs, bs[:256])
    got = tcgemm.matmul(xs, bs[:256])
    assert got.is_contiguous() and rel_err(_np(got), ref) < 2e-3
    o2 = torch.full((598, 200), float("nan"), dtype=torch.float16, device="cuda")[::2, :100]  # strided out
    tcgemm.matmul(xs, bs[:256], out=o2)
    assert rel_err(_np(o2), ref) < 2e-3


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_staged_operands_every_layout_and_the_padding_untouched(dtype):
    """Staging by the launch (_staging.py, copy_matrices): a ragged and a column-major a, a ragged
    TN b (staged column-major: still TN), a ragged column-major c, a ragged out with poisoned
    padding that must stay poisoned, c is out, a batch with a ragged batch stride, a new result
    whose rows are 90 bytes."""
    dt = getattr(torch, dtype)
    M, N, K = 129, 45, 1001
    x = _t((M + 1, K + 2), dt)[1:, 1:K + 1]           # ld 1003, start 2 bytes off
    xt = _t((K, M), dt).t()                            # column-major a
    w = _t((N, K), dt)                                 # w.t(): TN, ld 1001
    c = _t((N, M), dt).t()                             # column-major c, ld 129
    base = torch.full((M, N + 3), float("nan"), dtype=dt, device="cuda")
    out = base[:, 1:N + 1]                             # ldc 48, start 2 bytes off; padding poisoned
    for a in (x, xt):
        tcgemm.matmul(a, w.t(), c=c, alpha=0.5, beta=-1.0, out=out)
        assert rel_err(_np(out), _ref(a, w.t(), c=c, alpha=0.5, beta=-1.0)) < _bnd(x)
        assert torch.isnan(base[:, 0]).all() and torch.isnan(base[:, N + 1:]).all()
        y = tcgemm.matmul(a, w.t())
        assert y.is_contiguous() and y.shape == (M, N) and rel_err(_np(y), _ref(a, w.t())) < _bnd(x)
    acc = _t((N, M), dt).t()                           # c is out, column-major
    c0 = acc.clone()
    tcgemm.matmul(x, w.t(), c=acc, beta=1.0, out=acc)
    assert rel_err(_np(acc), _ref(x, w.t(), c=c0, beta=1.0)) < _bnd(x)
    xb = _t((3, M, K), dt)                             # batch, ld 1001
    yb = tcgemm.matmul(xb, w.t())
    ref = np.stack([_ref(xb[i], w.t()) for i in range(3)])
    assert yb.shape == (3, M, N) and rel_err(_np(yb), ref) < _bnd(x)


def test_staged_calls_in_a_loop_allocate_nothing_and_capture():
    """With out= given, a ragged call takes its padded buffers from the stream's kept workspace:
    after the first call torch's allocator is not asked again; the same call captured in a CUDA graph
    replays correctly on fresh inputs."""
    M, N, K = 2247, 831, 671
    x, w = _t((M, K)), _t((K, N))
    out = torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda")
    tcgemm.matmul(x, w, out=out)
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    for _ in range(3):
        tcgemm.matmul(x, w, out=out)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert rel_err(_np(out), _ref(x, w)) < 2e-3
    g, _ = _capture(lambda: tcgemm.matmul(x, w, out=out))
    x.uniform_(-1, 1), w.uniform_(-1, 1), out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert rel_err(_np(out), _ref(x, w)) < 2e-3


def test_cupy_staged_negative_strides():
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng()
    a = cp.asarray(rng.uniform(-1, 1, (130, 77)).astype(np.float16))[::-1, 1:]  # negative row stride, ld 77
    b = cp.asarray(rng.uniform(-1, 1, (50, 76)).astype(np.float16)).T            # TN, ld 76
    out = cp.full((130, 50), cp.nan, dtype=cp.float16)[:, ::-1]                 # negative column stride
    ref = cp.asnumpy(a).astype(np.float64) @ cp.asnumpy(b).astype(np.float64)
    tcgemm.matmul(a, b, out=out)
    assert rel_err(cp.asnumpy(out), ref) < 2e-3
    y = tcgemm.matmul(a, b[:, :45])
    assert y.flags.c_contiguous and rel_err(cp.asnumpy(y), ref[:, :45]) < 2e-3


def test_torch_rows_anywhere_are_read_in_place_by_the_ragged_kernel():
    """sm89.mma_ragged.s2 reads operands whose rows are not 16-byte multiples apart or start off a
    16-byte boundary, and writes such an `out`, in place: the allocator's count moves by nothing with
    out= (no staging copy), by the dense result alone without; the padding around out stays as it
    was."""
    k = "sm89.mma_ragged.s2"
    if not any(e["name"] == k and e["runnable"] for e in tcgemm.kernels()):
        pytest.skip(f"{k} is not built or not runnable here")
    big = _t((300, 1003))
    x = big[1:, 1:1002]                       # ld 1003, start 8 bytes past a 16-byte boundary
    w = _t((77, 1001))                        # TN: w.t(), ld 1001
    base = torch.full((299 * 79 + 1,), float("nan"), dtype=torch.float16, device="cuda")
    out = base[1:].view(299, 79)[:, :77]      # ldc 79, start 2 bytes off; the padding poisoned
    ref = _ref(x, w.t())
    tcgemm.matmul(x, w.t(), out=out, kernel=k)  # warm the plan
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    tcgemm.matmul(x, w.t(), out=out, kernel=k)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert np.isfinite(_np(out)).all() and rel_err(_np(out), ref) < 2e-3
    assert torch.isnan(base[1:].view(299, 79)[:, 77:]).all() and torch.isnan(base[:1]).all()
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]  # (the checks above allocated)
    y = tcgemm.matmul(x, w.t(), kernel=k)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before + 1
    assert y.is_contiguous() and rel_err(_np(y), ref) < 2e-3


def test_torch_auto_reads_a_ragged_decode_weight_in_place():
    """x @ w.t() with w's K off the 16-byte grid and 17 rows of x: on a Hopper, auto takes the kernel
    the Ada family names for it, sm89.mma_skinny.s4, which reads x, w and out as they are (the
    answer is kept per layout in _call._RAGGED_AUTO; the staged path would also leave the
    allocator's count still, its buffers being the kept workspace). Fused bias and GELU, a poisoned
    out= whose padding stays untouched, and a CUDA-graph replay, against float64."""
    k = "sm89.mma_skinny.s4"
    if torch.cuda.get_device_capability()[0] != 9 or not any(e["name"] == k and e["runnable"]
                                                             for e in tcgemm.kernels()):
        pytest.skip(f"{k} is named by auto on sm_90 devices only (and must be built)")
    x, w, bias = _t((17, 1027)), _t((333, 1027)), _t((333,), torch.float32)
    base = torch.full((17, 341), float("nan"), dtype=torch.float16, device="cuda")
    out = base[:, 1:334]                      # ldc 341, start 2 bytes off; the padding poisoned
    ref = _ref(x, w.t(), bias=bias, act="gelu")
    tcgemm._call._RAGGED_AUTO.clear()
    tcgemm.matmul(x, w.t(), out=out, bias=bias, activation="gelu")
    assert list(tcgemm._call._RAGGED_AUTO.values()) == [k]
    assert rel_err(_np(out), ref) < 2e-3
    assert torch.isnan(base[:, :1]).all() and torch.isnan(base[:, 334:]).all()
    out.fill_(float("nan"))
    g, _ = _capture(lambda: tcgemm.matmul(x, w.t(), out=out, bias=bias, activation="gelu"))
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert rel_err(_np(out), ref) < 2e-3


def test_torch_operands_are_not_copied_when_aligned():
    """The aligned case reads the tensors' memory directly: a kernel that wrote to
    a copy would leave `out` untouched, and an input copy shows as a second
    allocation; here the caching allocator's count moves by the output alone."""
    x, w = _t((256, 512)), _t((384, 512))
    out = torch.empty((256, 384), dtype=torch.float16, device="cuda")
    tcgemm.matmul(x, w.t(), out=out)  # warm the plan
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    for _ in range(10):
        tcgemm.matmul(x, w.t(), out=out)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert rel_err(_np(out), _ref(x, w.t())) < 2e-3


def test_torch_stream_and_device_follow_the_caller():
    x, w = _t((512, 256)), _t((256, 300))
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = tcgemm.matmul(x, w)               # on s, its memory from s's pool
    s.synchronize()
    assert rel_err(_np(y), _ref(x, w)) < 2e-3
    y2 = tcgemm.matmul(x, w, stream=s)        # stream= given explicitly
    s.synchronize()
    assert torch.equal(y, y2)


# ---- device epilogue operands -----------------------------------------------------------------

@pytest.mark.parametrize("bias_dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("act", [None, "relu", "gelu", "silu"])
def test_torch_bias_and_c_on_the_device(bias_dtype, act):
    M, N, K = 129, 200, 300
    x, w = _t((M, K)), _t((N, K))
    bias = _t((N,), getattr(torch, bias_dtype))
    c = _t((M, N))
    y = tcgemm.matmul(x, w.t(), bias=bias, activation=act, c=c, beta=0.5, alpha=0.75)
    assert rel_err(_np(y), _ref(x, w.t(), bias, act, c, 0.75, 0.5)) < 2e-3
    strided_bias = _t((2 * N,), getattr(torch, bias_dtype))[::2]  # not contiguous: cloned
    y2 = tcgemm.matmul(x, w.t(), bias=strided_bias)
    assert rel_err(_np(y2), _ref(x, w.t(), strided_bias)) < 2e-3


def test_device_array_and_cupy_bias():
    rng = np.random.default_rng()
    M, N, K = 70, 96, 130
    a = rng.uniform(-1, 1, (M, K)).astype(f16)
    b = rng.uniform(-1, 1, (K, N)).astype(f16)
    bias = rng.uniform(-1, 1, N).astype(f16)
    da, db, dbias = tcgemm.to_device(a), tcgemm.to_device(b), tcgemm.to_device(bias.reshape(1, N))
    y = tcgemm.matmul(da, db, bias=dbias, activation="relu").numpy()
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    assert rel_err(y, ref) < 2e-3
    cp = pytest.importorskip("cupy")
    ca, cb, cbias = cp.asarray(a), cp.asarray(b), cp.asarray(bias)
    yc = tcgemm.matmul(ca, cb, bias=cbias, activation="relu")
    assert isinstance(yc, cp.ndarray) and rel_err(cp.asnumpy(yc), ref) < 2e-3


def test_in_place_accumulate_torch_with_staged_out():
    M, N, K = 100, 1234, 64                    # N = 1234: out needs staging, c is out
    x, w = _t((M, K)), _t((K, N))
    acc = _t((M, N))
    c0 = acc.clone()
    tcgemm.matmul(x, w, c=acc, beta=1.0, out=acc)
    assert rel_err(_np(acc), _ref(x, w, c=c0, beta=1.0)) < 2e-3


# ---- CUDA graphs -------------------------------------------------------------------------------

def _capture(fn):
    """Warm up on a side stream (as torch's docs ask), capture, replay twice."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        res = fn()
    return g, res


@pytest.mark.parametrize("case", ["out", "new", "bias_act", "split_k", "batched", "staged", "bf16_decode"])
def test_graph_capture_replays_like_eager(case):
    dt = torch.bfloat16 if case == "bf16_decode" else torch.float16
    M, N, K = {"split_k": (16, 2048, 4096), "bf16_decode": (8, 4096, 4096), "staged": (300, 1234, 777)}.get(
        case, (256, 512, 384))
    x = _t((4, M, K) if case == "batched" else (M, K), dt)
    w = _t((N, K), dt)
    bias = _t((N,), torch.float32)
    out = torch.empty((M, N), dtype=dt, device="cuda")
    kw = {}
    if case == "bias_act":
        kw = dict(bias=bias, activation="gelu")
    if case == "split_k":
        kw = dict(kernel="sm90.ws_splitk", split_k=4) if _runnable("sm90.ws_splitk") else dict(split_k=None)

    def call():
        if case == "out":
            return tcgemm.matmul(x, w.t(), out=out)
        return tcgemm.matmul(x, w.t(), **kw)

    eager = call().clone()
    g, res = _capture(call)
    x.uniform_(-1, 1)                          # new inputs: a replay must see them
    eager2 = call().clone()
    res.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(res, eager2), "replay differs from the eager call on the same inputs"
    ref = _ref(x.reshape(-1, K), w.t(), bias if case == "bias_act" else None, kw.get("activation"))
    assert rel_err(_np(res.reshape(-1, N)), ref) < _bnd(x)
    assert not torch.equal(eager, eager2)
    torch.randn(4, device="cuda")              # torch is still usable after the capture


def _runnable(name):
    return any(k["name"] == name and k["runnable"] for k in tcgemm.kernels())


@pytest.mark.parametrize("epilogue", ["plain", "bias_gelu"])
@pytest.mark.parametrize("M,N,K", [(129, 1000, 4104), (2384, 1792, 4096), (600, 752, 4832)])
def test_stream_k_is_bit_identical_across_calls_and_replays(M, N, K, epilogue):
    """sm90.ws_streamk on shapes whose last wave is short, so that its plan
    streams tiles over several CTAs (tests/cpp/test_stream_k.cpp: 8 tiles
    over 32 CTAs, 133 tiles over all 132, 15 over 60 on 132 SMs): the CTA
    that finishes a split tile adds its peers' partials in a fixed order,
    so repeated calls and CUDA-graph replays give the same bits, and those
    match float64."""
    if not _runnable("sm90.ws_streamk"):
        pytest.skip("sm90.ws_streamk does not run on this device")
    x, w, bias = _t((M, K)), _t((N, K)), _t((N,), torch.float32)
    kw = dict(kernel="sm90.ws_streamk")
    if epilogue == "bias_gelu":
        kw.update(bias=bias, activation="gelu")
    first = tcgemm.matmul(x, w.t(), **kw).clone()
    for _ in range(3):
        assert torch.equal(tcgemm.matmul(x, w.t(), **kw), first), "a repeated call gave other bits"
    out = torch.empty_like(first)
    g, _ = _capture(lambda: tcgemm.matmul(x, w.t(), out=out, **kw))
    for _ in range(3):
        out.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, first), "a graph replay gave other bits"
    ref = _ref(x, w.t(), bias if epilogue == "bias_gelu" else None, "gelu" if epilogue == "bias_gelu" else None)
    assert rel_err(_np(first), ref) < _bnd(x)


# ---- back-to-back calls: each reads what the one before wrote -----------------------------------

@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("kernel,M,K", [("auto", 16, 4096), ("auto", 1000, 1032), ("sm90.ws_splitk.swap", 16, 4096),
                                        ("sm90.ws_splitk.swap.dsmem", 64, 4096),
                                        ("sm90.ws_splitk", 64, 2048), ("sm90.ws_persistent", 300, 1024),
                                        ("sm90.ws_mcast", 1000, 1032), ("sm90.ws_pingpong", 129, 1000),
                                        ("sm90.ws_streamk", 129, 4104)])
def test_back_to_back_calls_see_each_others_results(kernel, M, K, graph):
    """A chain of calls ping-ponging two buffers, none waited for: every call
    reads what the call before wrote (read after write; a split-K call is two
    kernels, so the reduction's output feeds the next GEMM) and overwrites what
    the call before read (write after read). Written for programmatic
    dependent launch, which would let a kernel start before the one ahead
    finishes (docs/performance.md, "Tried and not kept"); it holds
    any launch change to the stream's order. Every buffer
    starts as NaN, so a read that ran ahead of its writer shows."""
    if kernel != "auto" and not _runnable(kernel):
        pytest.skip(f"{kernel} does not run on this device")
    dt = torch.bfloat16
    steps = 6
    x = _t((M, K), dt)
    w = (_t((K, K), dt) * (3.0 / K) ** 0.5).to(dt)  # keeps the chain's values near unit scale
    bufs = [torch.full((M, K), float("nan"), dtype=dt, device="cuda") for _ in range(2)]

    def chain():
        tcgemm.matmul(x, w.t(), out=bufs[0], kernel=kernel)
        for i in range(1, steps):
            tcgemm.matmul(bufs[(i - 1) % 2], w.t(), out=bufs[i % 2], kernel=kernel)

    if graph:
        chain()  # warm-up: plans, workspace
        torch.cuda.synchronize()
        for b in bufs:
            b.fill_(float("nan"))
        g, _ = _capture(chain)
        torch.cuda.synchronize()
        for b in bufs:
            b.fill_(float("nan"))
        g.replay()
    else:
        chain()
    torch.cuda.synchronize()
    ref = x.double().cpu()
    wd = w.double().cpu()
    for i in range(steps):  # the chain in float64, rounded to bf16 after each step as the GPU's is
        ref = (ref @ wd.t()).to(dt).double()
    last = bufs[(steps - 1) % 2]
    assert not torch.isnan(last).any(), "a call read a buffer before the call ahead had written it"
    assert rel_err(_np(last), ref.numpy()) < steps * _bnd(x)


def test_uncapturable_calls_say_so_and_leave_the_capture_alone():
    x = _t((64, 64))
    a = np.random.default_rng().uniform(-1, 1, (64, 64)).astype(f16)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.matmul(x, x)
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        y = torch.matmul(x, x)
        with pytest.raises(RuntimeError, match="cannot be captured"):
            tcgemm.matmul(a, a)                # NumPy: host round trip
        with pytest.raises(RuntimeError, match="cannot be captured"):
            tcgemm.matmul(x, x, bias=np.ones(64, np.float32))  # host bias: uploaded per call
        z = tcgemm.matmul(x, x)                # the capture is still valid
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, torch.matmul(x, x))
    assert rel_err(_np(z), _ref(x, x)) < 2e-3


_SPLIT = pytest.mark.skipif(not _core.device_count() or not _runnable("sm90.ws_splitk"),
                            reason="needs sm90.ws_splitk (sm_90a)")


@_SPLIT
def test_split_k_workspace_is_kept_per_stream():
    """A repeated split-K call with out= allocates nothing (its workspace is kept
    for the stream, as cuBLAS keeps its own), on another stream it gets its own,
    and the results stay right on both; release_memory() drops the kept ones."""
    from tcgemm import _call
    tcgemm.release_memory()
    x, w = _t((16, 4096)), _t((2048, 4096))
    out = torch.full((16, 2048), float("nan"), dtype=torch.float16, device="cuda")
    kw = dict(kernel="sm90.ws_splitk", split_k=4)
    tcgemm.matmul(x, w.t(), out=out, **kw)
    torch.cuda.synchronize()
    assert len(_call.WORKSPACES) == 1
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    for _ in range(5):
        tcgemm.matmul(x, w.t(), out=out, **kw)
    torch.cuda.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert rel_err(_np(out), _ref(x, w.t())) < 2e-3
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        out2 = torch.full_like(out, float("nan"))
        tcgemm.matmul(x, w.t(), out=out2, **kw)  # that stream's own workspace
        s.synchronize()
        assert len(_call.WORKSPACES) == 2
        before = torch.cuda.memory_stats()["allocation.all.allocated"]
        for _ in range(3):
            tcgemm.matmul(x, w.t(), out=out2, **kw)
    s.synchronize()
    assert torch.cuda.memory_stats()["allocation.all.allocated"] == before
    assert rel_err(_np(out2), _ref(x, w.t())) < 2e-3
    tcgemm.release_memory()
    assert len(_call.WORKSPACES) == 0


def _split_calls_on_new_streams(n_streams, threads, x, w, outs, kw):
    """`n_streams` torch streams made one after another, each by one of `threads`
    threads, each used for two split-K calls and dropped; every result checked."""
    import threading
    errors = []
    ref = _ref(x, w.t())

    def work(t):
        try:
            for i in range(t, n_streams, threads):
                s = torch.cuda.Stream()
                with torch.cuda.stream(s):
                    o = outs[t]
                    o.fill_(float("nan"))
                    tcgemm.matmul(x, w.t(), out=o, **kw)
                    tcgemm.matmul(x, w.t(), out=o, **kw)
                s.synchronize()
                if not rel_err(_np(o), ref) < 2e-3:
                    errors.append((t, i))
        except Exception as e:  # pragma: no cover - reported below
            errors.append((t, repr(e)))

    ths = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    torch.cuda.synchronize()
    assert not errors, errors


@_SPLIT
def test_workspaces_of_many_streams_are_bounded_and_all_released():
    """Threads that each make streams as they go: the workspaces kept stay within
    MAX_STREAMS per device however many streams were used (dead ones do not
    accumulate), and release_memory() brings torch's allocated bytes back to
    where they were before the first call."""
    import gc
    from tcgemm import _call, _workspace
    M, N, K = 64, 2048, 4096
    kw = dict(kernel="sm90.ws_splitk", split_k=8)
    _, _, per_stream = _core.plan("sm90.ws_splitk", M, N, K, _core.DType.float16, _core.Layout.TN, _core.Accum.f32,
                                  True, 1, 8)
    assert per_stream > 0
    per_stream = -(-per_stream // 512) * 512  # as torch's allocator counts a block (512-byte multiples)
    threads = 8
    x, w = _t((M, K)), _t((N, K))
    outs = [torch.empty((M, N), dtype=torch.float16, device="cuda") for _ in range(threads)]
    tcgemm.release_memory()
    gc.collect()
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    _split_calls_on_new_streams(3 * _workspace.MAX_STREAMS, threads, x, w, outs, kw)
    first = torch.cuda.memory_allocated()
    assert len(_call.WORKSPACES) <= _workspace.MAX_STREAMS
    assert first - start <= _workspace.MAX_STREAMS * per_stream
    _split_calls_on_new_streams(12 * _workspace.MAX_STREAMS, threads, x, w, outs, kw)  # four times the streams
    assert torch.cuda.memory_allocated() <= first, "kept workspaces grew with the number of streams used"
    assert len(_call.WORKSPACES) <= _workspace.MAX_STREAMS
    tcgemm.release_memory()
    gc.collect()
    assert len(_call.WORKSPACES) == 0
    # (at most: garbage of earlier tests collected meanwhile may only lower it)
    assert torch.cuda.memory_allocated() <= start, "release_memory() left workspaces allocated"
    torch.cuda.empty_cache()
    tcgemm.matmul(x, w.t(), out=outs[0], **kw)  # and the path still works after
    torch.cuda.synchronize()
    assert rel_err(_np(outs[0]), _ref(x, w.t())) < 2e-3


@_SPLIT
def test_workspace_dropped_while_its_stream_still_works_is_not_reused_early():
    """A kept workspace dropped (evicted, or by release_memory) while kernels on
    its stream are still queued: torch hands its bytes only to work ordered
    after them on that stream, so calls queued right after on the default
    stream and on another stream, which take fresh workspaces, cannot disturb
    them (the results of calls queued behind a spin kernel)."""
    from tcgemm import _call
    M, N, K = 64, 2048, 4096
    kw = dict(kernel="sm90.ws_splitk", split_k=8)
    x, w = _t((M, K)), _t((N, K))
    ref = _ref(x, w.t())
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    o1 = [torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda") for _ in range(4)]
    o2 = [torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda") for _ in range(2)]
    torch.cuda.synchronize()
    with torch.cuda.stream(s1):
        torch.cuda._sleep(20_000_000)  # the calls below queue behind it
        for o in o1:
            tcgemm.matmul(x, w.t(), out=o, **kw)
    # s1's workspace dropped while s1's calls wait (release_memory would wait
    # for the device first: the cache alone drops without waiting)
    _call.WORKSPACES.clear()
    for _ in range(3):
        tcgemm.matmul(x, w.t(), out=o2[0], **kw)
    with torch.cuda.stream(s2):
        for _ in range(3):
            tcgemm.matmul(x, w.t(), out=o2[1], **kw)
    torch.cuda.synchronize()
    for o in o1 + o2:
        assert rel_err(_np(o), ref) < 2e-3


def test_repeated_calls_hit_the_plan_cache():
    from tcgemm import _call
    x, w = _t((100, 200)), _t((200, 300))
    tcgemm.matmul(x, w)
    n = len(_call._PLANS)
    for _ in range(5):
        tcgemm.matmul(x, w)
    assert len(_call._PLANS) == n
    with pytest.raises(ValueError, match="not a plan handle"):
        _core.run(_core.RunArgs(12345, 0, 0, 0, 8, 8, 8, 0, 0, 0, True))


def test_torch_custom_op_under_torch_compile_fullgraph():
    import tcgemm.torch as tt
    x, w = _t((200, 256)), _t((300, 256))
    f = torch.compile(lambda x, w: torch.relu(tt.matmul(x, w.t())), fullgraph=True)
    y = f(x, w)
    assert y.shape == (200, 300) and y.is_contiguous()
    assert rel_err(_np(y), np.maximum(_ref(x, w.t()), 0)) < 2e-3
    y2 = tt.matmul(x, w.t())  # eager custom op, N = 300 padded and made dense
    assert torch.equal(torch.relu(y2), y)


# ---- NumPy through the pipeline ----------------------------------------------------------------

@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("M,N,K", [(3000, 1000, 4096), (2051, 777, 2049), (1, 5000, 3000), (5000, 1, 64)])
def test_numpy_pipeline_multi_panel(layout, M, N, K):
    """K = 4096 gives 1024-row panels (one 8 MiB staging slot each): several
    panels in flight, the last one partial; odd widths go through the 2-D copies."""
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (M, K)).astype(bf16)
    w = rng.uniform(-1, 1, (N, K)).astype(bf16)
    b = w.T if layout == "TN" else np.ascontiguousarray(w.T)
    out = np.full((M, N), np.nan, bf16)
    got = tcgemm.matmul(a, b, out=out)
    assert got is out and np.isfinite(out.astype(np.float32)).all()
    assert rel_err(out, a.astype(np.float64) @ b.astype(np.float64)) < 8e-3


def test_numpy_pipeline_pinned_and_small_ring():
    rng = np.random.default_rng()
    M, N, K = 2500, 2000, 3000
    a = tcgemm.empty_pinned((M, K), f16)
    a[...] = rng.uniform(-1, 1, (M, K))
    b = rng.uniform(-1, 1, (K, N)).astype(f16)
    out = tcgemm.empty_pinned((M, N), f16)
    out[...] = np.nan
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tcgemm.matmul(a, b, out=out)               # pinned in and out: no staging
    assert rel_err(out, ref) < 2e-3
    try:
        tcgemm.set_staging_limit(16 << 20)     # two slots: every slot reused many times
        tcgemm.release_memory()
        bias = rng.uniform(-1, 1, N).astype(np.float32)
        c = rng.uniform(-1, 1, (M, N)).astype(f16)
        got = tcgemm.matmul(np.array(a), b, bias=bias, c=c, beta=-0.5, activation="silu")  # a pageable copy
        x = ref - 0.5 * c.astype(np.float64) + bias
        assert rel_err(got, x / (1 + np.exp(-x))) < 2e-3
        assert _core.staging_held() <= 16 << 20
    finally:
        tcgemm.set_staging_limit(256 << 20)


def test_numpy_results_are_finished_and_memory_is_reused():
    """The pool's blocks are reused call after call (this process's pool: other
    processes on the GPU do not disturb the count), and none stays in use."""
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (1024, 2048)).astype(f16)
    b = rng.uniform(-1, 1, (2048, 512)).astype(f16)
    tcgemm.matmul(a, b)
    first = _core.pool_stats()
    for _ in range(20):
        y = tcgemm.matmul(a, b)
        assert _core.pool_stats()["used"] <= first["used"]  # every call gave its blocks back
    assert _core.pool_stats()["reserved"] == first["reserved"]
    assert rel_err(y, a.astype(np.float64) @ b.astype(np.float64)) < 2e-3
    tcgemm.release_memory()
    assert _core.pool_stats()["reserved"] <= first["reserved"]
