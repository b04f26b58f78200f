"""The call record and the launch arguments, on the host.

``matmul`` builds one frozen ``Call`` and the device path turns it into one
``_core.RunArgs``. A fake framework (fake_device.py) stands in for torch: its
tensors are addresses and shapes, the planner and the launch are stand-ins
that record what they are given, so every field that reaches the launch is
checked here without a GPU."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _call, _core
from tcgemm._record import Call
from fake_device import HANDLE, FakeAdapter, FakeTensor, install


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch.setattr)


def _xw(M=64, N=48, K=96):
    return FakeTensor((M, K), 1 << 20), FakeTensor((N, K), 1 << 22)  # x, w: x @ w.T is the TN case


# ---- _core.RunArgs ------------------------------------------------------------------------------

def test_run_args_named_fields_and_plain_defaults():
    r = _core.RunArgs(1, 16, 32, 48, 8, 16, 24, 7, 64, 4096, False)
    assert (r.plan, r.a, r.b, r.c, r.lda, r.ldb, r.ldc) == (1, 16, 32, 48, 8, 16, 24)
    assert (r.stream, r.workspace, r.workspace_bytes, r.grid_swizzle) == (7, 64, 4096, False)
    # the plain epilogue and one matrix unless set
    assert (r.alpha, r.beta, r.source, r.ld_source, r.stride_source, r.bias) == (1.0, 0.0, 0, 0, 0, 0)
    assert (r.bias_type, r.activation) == (int(_core.BiasType.float32.value), int(_core.Activation.none.value))
    assert (r.batch, r.stride_a, r.stride_b, r.stride_c) == (1, 0, 0, 0)
    r.set_epilogue(0.5, 2.0, 80, 24, 0, 96, 1, 3)
    r.set_batch(4, 64, 0, 128)
    assert (r.alpha, r.beta, r.source, r.ld_source, r.bias, r.bias_type, r.activation) == (0.5, 2.0, 80, 24, 96, 1, 3)
    assert (r.batch, r.stride_a, r.stride_b, r.stride_c) == (4, 64, 0, 128)
    k = _core.RunArgs(plan=1, a=16, b=32, c=48, lda=8, ldb=16, ldc=24, stream=7, workspace=0, workspace_bytes=0,
                      grid_swizzle=True)
    assert (k.ldc, k.stream) == (24, 7)
    k.beta = 1.0
    assert k.beta == 1.0


def test_run_takes_one_run_args_and_checks_its_handle():
    with pytest.raises(ValueError, match="not a plan handle"):
        _core.run(_core.RunArgs(12345, 0, 0, 0, 8, 8, 8, 0, 0, 0, True))
    with pytest.raises(TypeError):
        _core.run(12345, 0, 0, 0, 8, 8, 8, 0, 0, 0, True)  # the positional form is gone
    with pytest.raises(ValueError, match="negative"):
        _core.run(_core.RunArgs(12345, -16, 0, 0, 8, 8, 8, 0, 0, 0, True))
    bad = _core.RunArgs(12345, 0, 0, 0, 8, 8, 8, 0, 0, 0, True)
    bad.set_epilogue(1.0, 0.0, 0, 0, 0, 0, 3, 0)
    with pytest.raises(ValueError, match="bias_type"):
        _core.run(bad)
    with pytest.raises(TypeError, match="takes one RunArgs"):
        _core.run((12345, 0, 0, 0))
    assert _core.RunArgs(np.int64(1), 2, 3, 4, np.int32(8), 8, 8, 7, 0, 0, True).lda == 8  # any integer type
    assert not hasattr(_core, "run_full")


# ---- the record ---------------------------------------------------------------------------------

def test_the_record_is_frozen_and_names_its_fields():
    assert Call._fields == ("a", "b", "out", "ep", "kernel", "accumulate", "split_k", "grid_swizzle", "stream",
                            "device", "fw", "ad_a", "ad_b", "ad_out", "like")
    c = Call(1, 2, None, None, "auto", "f32", 0, True, None, 0)
    with pytest.raises(AttributeError):
        c.kernel = "x"
    assert c.fw is None and c.like is None


def test_the_record_reproduces_the_call_s_options():
    from tcgemm._epilogue import Epilogue
    ep = Epilogue(0.5, 0.25, "C", "BIAS", "gelu")
    c = Call(1, 2, None, ep, "sm90.ws_splitk", "f32", 0, False, 5, 1)
    assert c.options() == dict(c="C", alpha=0.5, beta=0.25, bias="BIAS", activation="gelu", kernel="sm90.ws_splitk",
                               accumulate="f32", split_k=None, grid_swizzle=False, stream=5, device=1)
    assert c._replace(split_k=4).options()["split_k"] == 4


# ---- from matmul to the launch, through a fake framework -------------------------------------------

def test_a_plain_call_reaches_the_launch_with_its_operands(fake):
    x, w = _xw()
    o = FakeTensor((64, 48), 1 << 24)
    assert tcgemm.matmul(x, w.T, out=o) is o
    (r,) = fake.runs
    assert (r.plan, r.a, r.b, r.c) == (HANDLE, x.ptr, w.ptr, o.ptr)
    assert (r.lda, r.ldb, r.ldc) == (96, 96, 48)
    assert (r.stream, r.workspace, r.workspace_bytes, r.grid_swizzle) == (FakeAdapter.STREAM, 0, 0, True)
    assert (r.alpha, r.beta, r.bias, r.source, r.batch) == (1.0, 0.0, 0, 0, 1)
    (p,) = fake.plans
    assert p == ("auto", 64, 48, 96, _core.DType.float16, _core.Layout.TN, _core.Accum.f32, True, 1, 0, 0)
    tcgemm.matmul(x, w.T, out=o)
    assert len(fake.plans) == 1, "a repeated shape must be a plan-cache hit"


def test_options_reach_the_plan_and_the_launch(fake):
    x, w = _xw()
    y = tcgemm.matmul(x, w.T.T.T, kernel="auto", split_k=3, grid_swizzle=False, stream=11)
    assert y.rows == 64 and y.cols == 48
    (r,) = fake.runs
    assert (r.stream, r.grid_swizzle, r.c) == (11, False, y.ptr)
    assert fake.plans[0][-2] == 3  # split_k

    class S:
        cuda_stream = 13
    tcgemm.matmul(x, w.T, stream=S())
    assert fake.runs[-1].stream == 13


def test_the_epilogue_reaches_the_launch(fake):
    x, w = _xw()
    c = FakeTensor((64, 48), 1 << 25)
    bias = FakeTensor((48,), 1 << 26)
    tcgemm.matmul(x, w.T, c=c, alpha=0.5, beta=0.25, bias=bias, activation="gelu")
    (r,) = fake.runs
    assert (r.alpha, r.beta, r.source, r.ld_source, r.stride_source) == (0.5, 0.25, c.ptr, 48, 0)
    assert (r.bias, r.bias_type, r.activation) == (bias.ptr, 0, 2)
    assert fake.plans[0][7] is False  # not plain
    tcgemm.matmul(x, w.T, c=c, beta=0.0)  # beta == 0: c not read, the plain launch
    assert (fake.runs[-1].source, fake.runs[-1].beta) == (0, 0.0)


def test_rows_anywhere_reach_a_kernel_that_reads_them_unstaged(fake):
    """A kernel with the any_rows feature (sm89.mma_ragged.s2) takes rows that are not 16-byte
    multiples apart and starts off a 16-byte boundary: the call hands them over as they are (the
    fake framework's stage() would raise), a new result is dense (no copy after) and the epilogue's
    source is read in place too; any other kernel gets such an operand staged."""
    M, N, K = 33, 45, 1001
    x = FakeTensor((M, K), (1 << 20) + 2)  # ld 1001, 2 bytes past a 16-byte boundary
    w = FakeTensor((N, K), 1 << 22)        # w.T: TN, ld 1001
    o = FakeTensor((M, N), (1 << 24) + 6)  # ldc 45
    c = FakeTensor((M, N), (1 << 25) + 2)
    assert tcgemm.matmul(x, w.T, out=o, kernel="sm89.mma_ragged.s2") is o
    (r,) = fake.runs
    assert (r.a, r.b, r.c, r.lda, r.ldb, r.ldc) == (x.ptr, w.ptr, o.ptr, K, K, N)
    y = tcgemm.matmul(x, w.T, c=c, beta=1.0, kernel="sm89.mma_ragged.s2")
    assert fake.runs[-1].ldc == N and y.d.ld == N
    assert (fake.runs[-1].source, fake.runs[-1].ld_source) == (c.ptr, N)
    assert fake.plans[0][0] == "sm89.mma_ragged.s2"
    assert fake.runs[-1].staging() == ((), ())
    tcgemm.matmul(x, w.T, out=o, kernel="sm89.mma_bk32.s3")  # any other kernel: staged
    ins, outs = fake.runs[-1].staging()
    assert len(ins) == 2 and len(outs) == 1


def test_auto_reads_a_ragged_weight_in_place_where_a_family_names_such_a_kernel(fake, monkeypatch):
    """x @ w.T with w's rows off the 16-byte grid: auto plans the shape once more with b_ragged;
    where that names a kernel that reads rows anywhere (sm89.mma_skinny.s4 for decode shapes on a
    Hopper), x, w and out go to it as they are (no staging), planned under that name; where it
    names another kernel, w is staged (test_ragged_operands_are_staged_by_the_launch_... below)."""
    M, N, K = 17, 45, 1001
    x, w, o = FakeTensor((M, K), (1 << 20) + 2), FakeTensor((N, K), 1 << 22), FakeTensor((M, N), 1 << 24)
    record = fake.plan

    def planner(*args, **kw):
        record(*args, **kw)
        named = kw.get("b_ragged") or args[0] == "sm89.mma_skinny.s4"
        return HANDLE, "sm89.mma_skinny.s4" if named else "fake", 0
    monkeypatch.setattr(_core, "plan", planner)
    for _ in range(2):  # the second call: both plans from the cache
        assert tcgemm.matmul(x, w.T, out=o) is o
    r = fake.runs[-1]
    assert r.staging() == ((), ()) and (r.a, r.b, r.c, r.lda, r.ldb, r.ldc) == (x.ptr, w.ptr, o.ptr, K, K, N)
    assert [p[0] for p in fake.plans] == ["auto", "sm89.mma_skinny.s4"]
    assert fake.plans[0][-1] == {"b_ragged": True} and fake.plans[0][1:4] == (M, N, K)
    tcgemm.matmul(x, FakeTensor((N, K), 1 << 23, (1008, 1)).T, out=o)  # w on the grid (ld 1008): a plain plan
    assert fake.plans[-1][0] == "auto" and not isinstance(fake.plans[-1][-1], dict)


def test_a_staged_ragged_weight_asks_the_families_once_per_layout(fake, monkeypatch):
    """Where the b_ragged plan names no kernel that reads rows anywhere, the call stages w, and the
    answer is kept per layout: a second call with the same shapes and strides neither plans with
    b_ragged again nor classifies the operands for it."""
    M, N, K = 1023, 1025, 1027
    x, w, o = FakeTensor((M, K), 1 << 20), FakeTensor((N, K), 1 << 22), FakeTensor((M, N), 1 << 24)
    for _ in range(3):
        tcgemm.matmul(x, w.T, out=o)
    ragged_plans = [p for p in fake.plans if isinstance(p[-1], dict) and p[-1].get("b_ragged")]
    assert len(ragged_plans) == 1 and len(fake.runs) == 3
    ins, outs = fake.runs[-1].staging()
    assert len(ins) == 2 and len(outs) == 1  # every dimension ragged: x and w copied in, the result out
    asked = []
    monkeypatch.setattr(_call, "plan", lambda *args, **kw: asked.append(args) or (HANDLE, "fake", 0))
    monkeypatch.setattr(FakeAdapter, "operand", staticmethod(lambda x, what, any_rows=False: asked.append(
        (what, any_rows)) or None))
    tcgemm.matmul(x, w.T, out=o)
    assert asked == [("b", False), ("a", False), ("out", False)]  # nothing asked for rows anywhere


def _pad(n):
    return (n + 7) // 8 * 8


def _round(nbytes):
    return (nbytes + 255) // 256 * 256


def test_ragged_operands_are_staged_by_the_launch_in_the_kept_workspace(fake):
    """Rows TMA cannot read (ld 1001 and 45, a start 2 bytes off): the call lays padded copies out
    in the stream's workspace and hands the launch their copies (RunArgs.set_staging: one launch
    in, one out); w.T stays TN (staged as rows of w); repeated calls allocate nothing."""
    M, N, K = 33, 45, 1001
    x = FakeTensor((M, K), (1 << 20) + 2)
    w = FakeTensor((N, K), 1 << 22)
    o = FakeTensor((M, N), 1 << 24)  # ldc 45
    for _ in range(3):
        assert tcgemm.matmul(x, w.T, out=o) is o
    assert len(FakeAdapter.allocations) == 1 and len(fake.runs) == 3
    nbytes, base = FakeAdapter.allocations[0]
    pk, pn = _pad(K), _pad(N)
    a_at, b_at, d_at = base, base + _round(2 * M * pk), base + _round(2 * M * pk) + _round(2 * N * pk)
    assert nbytes == _round(2 * M * pk) + _round(2 * N * pk) + _round(2 * M * pn)
    r = fake.runs[-1]
    assert (r.a, r.b, r.c, r.lda, r.ldb, r.ldc) == (a_at, b_at, d_at, pk, pk, pn)
    assert (r.workspace, r.workspace_bytes) == (base, 0)
    assert fake.plans[0][5] == _core.Layout.TN  # staged column-major: still the TN kernels
    ins, outs = r.staging()
    assert ins == ((x.ptr, a_at, M, K, 1, K, 1, 0, pk, 1, M * pk),
                   (w.ptr, b_at, N, K, 1, K, 1, 0, pk, 1, N * pk))
    assert outs == ((d_at, o.ptr, M, N, 1, pn, 1, M * pn, N, 1, 0),)


def test_staging_after_the_split_k_workspace_and_for_a_new_ragged_result(fake):
    M, N, K = 64, 45, 96  # aligned operands, a result whose rows are 90 bytes
    fake.workspace_bytes = 1000
    x, w = _xw(M, N, K)
    y = tcgemm.matmul(x, w.T)
    (nbytes, base), = FakeAdapter.allocations
    r = fake.runs[-1]
    assert (r.a, r.b, r.workspace, r.workspace_bytes) == (x.ptr, w.ptr, base, 1000)
    assert nbytes == 1024 + _round(2 * M * 48) and r.c == base + 1024 and r.ldc == 48
    assert y.d.ld == N  # dense, written by the copy out
    assert r.staging() == ((), ((base + 1024, y.ptr, M, N, 1, 48, 1, M * 48, N, 1, 0),))


def test_a_column_major_a_c_and_c_is_out_are_staged(fake):
    M, N, K = 40, 24, 72
    at = FakeTensor((K, M), 1 << 20).T  # column-major a: staged row-major
    w = FakeTensor((K, N), 1 << 22)     # NN, aligned
    c = FakeTensor((N, M), 1 << 23).T   # column-major c
    tcgemm.matmul(at, w, c=c, beta=1.0)
    r = fake.runs[-1]
    (nbytes, base), = FakeAdapter.allocations
    ins, outs = r.staging()
    a_at = base
    c_at = base + _round(2 * M * K)
    assert ins == ((at.ptr, a_at, M, K, 1, 1, M, 0, K, 1, M * K), (c.ptr, c_at, M, N, 1, 1, M, 0, N, 1, M * N))
    assert outs == () and (r.a, r.source, r.ld_source) == (a_at, c_at, N)
    o = FakeTensor((N, M), 1 << 24).T  # a column-major out that is also c: read first, written back
    tcgemm.matmul(at, w, c=o, beta=0.5, out=o)
    ins, outs = fake.runs[-1].staging()
    d_at = fake.runs[-1].c
    assert ins[-1] == (o.ptr, d_at, M, N, 1, 1, M, 0, N, 1, M * N)
    assert outs == ((d_at, o.ptr, M, N, 1, N, 1, M * N, 1, M, 0),)
    assert fake.runs[-1].source == d_at


def test_a_ragged_batch_is_staged_with_its_batch_stride(fake):
    B, M, N, K = 3, 16, 32, 20
    x = FakeTensor((B, M, K), 1 << 20)  # ld 20: ragged
    w = FakeTensor((K, N), 1 << 22)
    tcgemm.matmul(x, w)
    r = fake.runs[-1]
    ins, _ = r.staging()
    assert ins == ((x.ptr, r.a, M, K, B, K, 1, M * K, 24, 1, M * 24),)
    assert (r.batch, r.stride_a, r.lda) == (B, M * 24, 24)


def test_a_staged_out_on_another_device_is_refused_before_any_launch(fake):
    x, w = _xw(33, 45, 96)
    o = FakeTensor((33, 45), 1 << 24, device=1)  # ragged rows: the copy out runs on the call's device
    with pytest.raises(ValueError, match="a lives on device 0, but the call runs on device 1"):
        tcgemm.matmul(x, w.T, out=o)
    assert not fake.runs


def test_an_out_whose_elements_overlap_is_refused(fake):
    """expand()'s zero stride: the copy out would race on the shared elements (torch's copy_ refuses
    it too)."""
    x, w = _xw(33, 45, 96)
    o = FakeTensor((33, 45), 1 << 24, strides=(0, 1))
    with pytest.raises(ValueError, match="out has a stride of 0 .* its elements overlap"):
        tcgemm.matmul(x, w.T, out=o)
    with pytest.raises(ValueError, match="its elements overlap"):
        tcgemm.matmul(x, w.T, c=o, beta=1.0, out=o)
    assert not fake.runs
    o1 = FakeTensor((1, 45), (1 << 24) + 2, strides=(0, 1))  # staged (its start); a size-1 axis's stride
    tcgemm.matmul(FakeTensor((1, 96), 1 << 20), w.T, out=o1)  # means nothing
    assert len(fake.runs) == 1 and fake.runs[0].staging()[1][0][1] == o1.ptr


def test_staging_under_capture_or_past_the_bound_is_not_kept(fake, monkeypatch):
    M, N, K = 33, 45, 1001
    x, w, o = FakeTensor((M, K), 1 << 20), FakeTensor((N, K), 1 << 22), FakeTensor((M, N), 1 << 24)
    fake.capturing = "active"
    tcgemm.matmul(x, w.T, out=o)
    tcgemm.matmul(x, w.T, out=o)
    assert len(FakeAdapter.allocations) == 2 and len(_call.WORKSPACES) == 0
    fake.capturing = "none"
    monkeypatch.setattr(_call, "KEEP_STAGING", 1024)
    tcgemm.matmul(x, w.T, out=o)
    tcgemm.matmul(x, w.T, out=o)
    assert len(FakeAdapter.allocations) == 4 and len(_call.WORKSPACES) == 0
    assert FakeAdapter.allocations[-1][1] >= 1 << 36  # the adapter's scratch(), on the call's stream


def test_a_batch_reaches_the_launch(fake):
    M, N, K = 64, 48, 96
    x = FakeTensor((4, M, K), 1 << 20)
    w = FakeTensor((K, N), 1 << 22)
    y = tcgemm.matmul(x, w)
    (r,) = fake.runs
    assert (r.batch, r.stride_a, r.stride_b, r.stride_c) == (4, M * K, 0, M * N)
    assert y.batch == 4
    assert fake.plans[0][5] == _core.Layout.NN and fake.plans[0][8] == 4


def test_split_k_workspace_is_kept_per_stream_and_not_under_capture(fake, monkeypatch):
    x, w = _xw()
    fake.workspace_bytes = 4096
    o = FakeTensor((64, 48), 1 << 24)
    for _ in range(3):
        tcgemm.matmul(x, w.T, out=o, split_k=4)
    assert len(FakeAdapter.allocations) == 1
    assert {(r.workspace, r.workspace_bytes) for r in fake.runs} == {(FakeAdapter.allocations[0][1], 4096)}
    tcgemm.matmul(x, w.T, out=o, split_k=4, stream=9)  # another stream: its own
    assert len(FakeAdapter.allocations) == 2 and len(_call.WORKSPACES) == 2
    fake.capturing = "active"  # captured: fresh memory every call, none kept
    tcgemm.matmul(x, w.T, out=o, split_k=4)
    tcgemm.matmul(x, w.T, out=o, split_k=4)
    assert len(FakeAdapter.allocations) == 4 and len(_call.WORKSPACES) == 2
    assert fake.runs[-1].workspace == FakeAdapter.allocations[-1][1]
    fake.capturing = "none"
    tcgemm.release_memory()  # (no GPU: the C++ side has nothing to trim)
    assert len(_call.WORKSPACES) == 0


def test_errors_on_the_device_path_are_unchanged(fake):
    x, w = _xw()
    with pytest.raises(ValueError, match=r"inner dimensions differ: a is 64x96, b is 48x96"):
        tcgemm.matmul(x, w)
    with pytest.raises(ValueError, match="the operands live on device 0, but device=1 was asked for"):
        tcgemm.matmul(x, w.T, device=1)
    with pytest.raises(TypeError, match="device must be an int index"):
        tcgemm.matmul(x, w.T, device="cuda")
    with pytest.raises(TypeError, match="stream must be an int handle"):
        tcgemm.matmul(x, w.T, stream="fast")
    with pytest.raises(ValueError, match="b lives on device 1, but the call runs on device 0"):
        tcgemm.matmul(x, FakeTensor((48, 96), 1 << 22, device=1).T)
    assert not fake.runs
    with pytest.raises(ValueError, match=r"out has shape \(2, 2\), expected \(64, 48\)"):
        tcgemm.matmul(x, w.T, out=np.zeros((2, 2), np.float16))


def test_a_numpy_out_of_a_device_call_is_computed_then_copied_down(fake):
    """The record made again into the call without out= (Call.options), same stream and options."""
    x, w = _xw()
    out = np.full((64, 48), np.nan, np.float16)
    assert tcgemm.matmul(x, w.T, out=out, alpha=2.0, split_k=5, grid_swizzle=False, stream=21) is out
    assert (out == 0).all()  # the fake result reads as zeros
    (r,) = fake.runs
    assert (r.alpha, r.stream, r.grid_swizzle) == (2.0, 21, False)
    assert fake.plans[0][-2] == 5
