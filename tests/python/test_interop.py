"""Zero-copy interop with torch and cupy (GPU; each part skips where its library is missing)."""
import numpy as np
import pytest

import tcgemm
from conftest import gpu, rel_err

pytestmark = gpu
f16, bf16 = tcgemm.float16, tcgemm.bfloat16


def _ref(a, b):
    return a.double().cpu().numpy() @ b.double().cpu().numpy()


def test_torch_in_torch_out_zero_copy():
    torch = pytest.importorskip("torch")
    a = torch.randn(300, 128, device="cuda", dtype=torch.float16)
    w = torch.randn(200, 128, device="cuda", dtype=torch.float16)
    # inputs are viewed, not copied
    assert tcgemm.from_dlpack(a).ptr == a.data_ptr()
    wt = tcgemm.from_dlpack(w.t())
    assert wt.ptr == w.data_ptr() and wt.is_transposed  # w.t() is the TN operand as is
    y = tcgemm.matmul(a, w.t())
    assert isinstance(y, torch.Tensor) and y.is_cuda and y.dtype == torch.float16 and y.shape == (300, 200)
    torch.cuda.synchronize()
    assert rel_err(y.cpu().numpy(), _ref(a, w.t())) < 2e-3


def test_torch_bf16_and_odd_strides_are_copied_correctly():
    torch = pytest.importorskip("torch")
    a = torch.randn(33, 35, device="cuda", dtype=torch.bfloat16)  # 35-element rows: not a kernel pitch
    b = torch.randn(35, 17, device="cuda", dtype=torch.bfloat16)
    assert tcgemm.from_dlpack(a)._buf.owns  # a padded copy, not a view
    y = tcgemm.matmul(a, b)
    torch.cuda.synchronize()
    assert rel_err(y.float().cpu().numpy(), _ref(a, b)) < 8e-3


def test_device_array_exports_without_copy():
    torch = pytest.importorskip("torch")
    d = tcgemm.to_device(np.random.default_rng().uniform(-1, 1, (64, 40)).astype(f16))
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr and t.shape == (64, 40) and t.stride() == (d.pitch, 1)
    np.testing.assert_array_equal(t.cpu().numpy(), d.numpy())
    tt = torch.from_dlpack(d.T)
    assert tt.data_ptr() == d.ptr and tt.stride() == (1, d.pitch)
    c = torch.as_tensor(d, device="cuda")  # __cuda_array_interface__
    assert c.data_ptr() == d.ptr
    db = tcgemm.to_device(np.ones((8, 8), bf16))
    assert torch.from_dlpack(db).dtype == torch.bfloat16
    # the torch view keeps the memory alive after the DeviceArray object is gone
    ptr = d.ptr
    del d
    import gc
    gc.collect()
    assert t.data_ptr() == ptr and torch.isfinite(t.float()).all()


def test_runs_on_the_callers_stream_and_writes_torch_out():
    torch = pytest.importorskip("torch")
    a = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 96, device="cuda", dtype=torch.float16)
    out = torch.full((256, 96), float("nan"), device="cuda", dtype=torch.float16)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        r = tcgemm.matmul(a, b, out=out)
    s.synchronize()
    assert r is out and torch.isfinite(out).all()
    assert rel_err(out.cpu().numpy(), _ref(a, b)) < 2e-3


def test_torch_custom_op():
    torch = pytest.importorskip("torch")
    import tcgemm.torch as tt

    a = torch.randn(100, 64, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(30, 64, device="cuda", dtype=torch.bfloat16)
    y = tt.matmul(a, w.t())
    y2 = torch.ops.tcgemm.matmul(a, w.t(), "auto")
    assert y.shape == (100, 30) and y.is_contiguous()
    torch.cuda.synchronize()
    assert rel_err(y.float().cpu().numpy(), _ref(a, w.t())) < 8e-3
    assert torch.equal(y, y2)
    torch.library.opcheck(torch.ops.tcgemm.matmul.default, (a, w.t(), "auto"),
                          test_utils=("test_schema", "test_faketensor"))


def test_cupy_round_trip_zero_copy():
    cp = pytest.importorskip("cupy")
    a = cp.random.uniform(-1, 1, (128, 72)).astype(cp.float16)
    b = cp.random.uniform(-1, 1, (72, 56)).astype(cp.float16)
    assert tcgemm.from_dlpack(a).ptr == a.data.ptr
    c = tcgemm.matmul(a, b)
    assert isinstance(c, cp.ndarray) and c.dtype == cp.float16
    ref = cp.asnumpy(a).astype(np.float64) @ cp.asnumpy(b).astype(np.float64)
    assert rel_err(cp.asnumpy(c), ref) < 2e-3
    d = tcgemm.to_device(cp.asnumpy(a))
    assert cp.from_dlpack(d).data.ptr == d.ptr
    assert cp.asarray(d).data.ptr == d.ptr  # __cuda_array_interface__


def test_device_selection_errors():
    with pytest.raises(ValueError, match="does not exist"):
        tcgemm._core.set_device(1000)
