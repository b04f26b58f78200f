"""Every runnable registry entry against a float64 reference (GPU only)."""
import gc

import numpy as np
import pytest

import tcgemm
from conftest import (HAS_GPU, bound, fp8_only, gpu, kernel_index, refuses_layout, rel_err, representative,
                      runnable_kernels)

pytestmark = gpu
f16, bf16 = tcgemm.float16, tcgemm.bfloat16

# The last: 272 tiles of 128x128 (136 of 128x256), more than an H200's 132 SMs, so
# persistent CTAs walk several tiles and both ping-pong consumers take turns.
SHAPES = [(1, 1, 1), (7, 7, 7), (1, 129, 1000), (127, 129, 65), (129, 127, 200), (1000, 72, 33),
          (64, 1000, 1000), (300, 260, 4096), (2100, 2000, 72)]
CASES = [(dt, acc) for dt in (f16, bf16) for acc in ("f32", "f16") if not (dt == bf16 and acc == "f16")]


def _kernel_params():
    """Every fp16/bf16 registry entry (FP8 ones: fp8_only): those this device cannot run are
    skipped with the arch they need, so on that device the same tests run them unchanged."""
    if not HAS_GPU:
        return [pytest.param("none", marks=pytest.mark.skip(reason="no CUDA device found"))]
    return [k["name"] if k["runnable"] else
            pytest.param(k["name"], marks=pytest.mark.skip(reason=f"needs {k['arch']}: {k['why_not']}"))
            for k in tcgemm.kernels() if not fp8_only(k)]


def _accumulators(kernel):
    return next((k["accumulators"] for k in tcgemm.kernels() if k["name"] == kernel), ["f32"])


def _three_shapes_each(kernel, layout, dtype, acc, M, N, K):
    """Every kernel on each (layout, dtype, accumulator) at three of SHAPES, in
    turn from combination to combination and kernel to kernel, so that each
    kernel meets all nine; one shape where it refuses the accumulator."""
    k, s = kernel_index(kernel), SHAPES.index((M, N, K))
    c = 2 * CASES.index((dtype, acc)) + ["NN", "TN"].index(layout)
    if acc not in _accumulators(kernel):
        return s == (c + k) % len(SHAPES)
    return (s - 3 * c - k) % len(SHAPES) < 3


def _make(rng, shape, dtype):
    return rng.uniform(-1, 1, shape).astype(dtype)


@representative(_three_shapes_each)
@pytest.mark.parametrize("kernel", _kernel_params())
@pytest.mark.parametrize("layout", ["NN", "TN"])
@pytest.mark.parametrize("dtype,acc", CASES, ids=lambda x: getattr(x, "name", x))
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_kernel_matches_float64(kernel, layout, dtype, acc, M, N, K, rng):
    info = next(k for k in tcgemm.kernels() if k["name"] == kernel)
    w = _make(rng, (N, K), dtype)
    # (a b of one row or column is both layouts at once: read as NN)
    if refuses_layout(kernel, layout if min(N, K) > 1 else "NN",
                      lambda: tcgemm.matmul(_make(rng, (M, K), dtype), np.ascontiguousarray(w.T), kernel=kernel)):
        return
    if acc not in info["accumulators"]:  # e.g. f16 accumulation on a wgmma kernel: a clear refusal
        with pytest.raises(ValueError, match=f"does not support accumulate='{acc}'"):
            tcgemm.matmul(_make(rng, (M, K), dtype), w.T if layout == "TN" else np.ascontiguousarray(w.T),
                          kernel=kernel, accumulate=acc)
        return
    a = _make(rng, (M, K), dtype)
    b = w.T if layout == "TN" else np.ascontiguousarray(w.T)
    assert (layout == "TN") == (b.flags.f_contiguous and not b.flags.c_contiguous) or min(N, K) == 1
    ref = a.astype(np.float64) @ b.astype(np.float64)
    da, db = tcgemm.to_device(a), tcgemm.to_device(b)
    with tcgemm.DeviceArray.empty((M, N), dtype) as out:
        out._buf.fill_bytes(0xFF)  # NaN poison: an unwritten element cannot pass
        tcgemm.matmul(da, db, kernel=kernel, out=out, accumulate=acc)
        got = out.numpy()
    da.free(), db.free()
    assert np.isfinite(got.astype(np.float32)).all(), "some outputs were not written"
    assert rel_err(got, ref) < bound(dtype, acc)


@pytest.mark.parametrize("dtype", [f16, bf16])
def test_auto_numpy_roundtrip(dtype, rng):
    a, b = _make(rng, (333, 517), dtype), _make(rng, (517, 190), dtype)
    c = tcgemm.matmul(a, b)
    assert isinstance(c, np.ndarray) and c.dtype == dtype and c.shape == (333, 190)
    assert rel_err(c, a.astype(np.float64) @ b.astype(np.float64)) < bound(dtype, "f32")


def test_linear_layer_tn_without_copy(rng):
    x, w = _make(rng, (100, 300), f16), _make(rng, (200, 300), f16)
    y = tcgemm.matmul(x, w.T)  # F-contiguous b: the TN path
    assert rel_err(y, x.astype(np.float64) @ w.T.astype(np.float64)) < 2e-3
    dw = tcgemm.to_device(w.T)  # stored as w, shown transposed
    assert dw.is_transposed and dw.shape == (300, 200)
    np.testing.assert_array_equal(dw.numpy(), w.T)


def test_non_contiguous_and_negative_stride_inputs(rng):
    big = _make(rng, (300, 400), f16)
    a = big[::2, 10:310]            # strided rows
    b = big[::-1, ::3][:300, :77]   # negative row stride, column step
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert rel_err(tcgemm.matmul(a, b), ref) < 2e-3


def test_device_array_lifecycle(rng):
    a = _make(rng, (65, 33), bf16)
    d = tcgemm.to_device(a)
    assert d.shape == (65, 33) and d.dtype == bf16 and d.pitch % 8 == 0 and d.pitch >= 33
    np.testing.assert_array_equal(d.numpy(), a)
    np.testing.assert_array_equal(d.T.numpy(), a.T)
    d.free()
    assert d.freed
    with pytest.raises(ValueError, match="used after free"):
        d.numpy()
    with pytest.raises(ValueError, match="used after free"):
        tcgemm.matmul(d, np.ones((33, 2), bf16))
    with tcgemm.to_device(a) as e:
        assert not e.freed
    assert e.freed


def test_device_arrays_stay_on_device(rng):
    a, b = _make(rng, (128, 64), f16), _make(rng, (64, 96), f16)
    da, db = tcgemm.to_device(a), tcgemm.to_device(b)
    c = tcgemm.matmul(da, db)
    assert isinstance(c, tcgemm.DeviceArray) and c.shape == (128, 96)
    c2 = tcgemm.matmul(c, tcgemm.to_device(_make(rng, (96, 8), f16)))  # chained on the GPU
    assert c2.shape == (128, 8)
    assert rel_err(c.numpy(), a.astype(np.float64) @ b.astype(np.float64)) < 2e-3


def test_out_numpy_written_in_place(rng):
    a, b = _make(rng, (50, 60), f16), _make(rng, (60, 70), f16)
    out = np.full((50, 70), np.nan, f16)
    r = tcgemm.matmul(a, b, out=out)
    assert r is out and np.isfinite(out.astype(np.float32)).all()


def test_transposed_a_device_view_is_rejected_clearly(rng):
    d = tcgemm.to_device(_make(rng, (8, 16), f16))
    with pytest.raises(ValueError, match="a must be row-major"):
        tcgemm.matmul(d.T, np.ones((8, 4), f16))


def test_kernel_not_runnable_here_raises():
    ks = [k for k in tcgemm.kernels() if not k["runnable"]]
    if not ks:
        pytest.skip("every registered kernel runs on this device")
    a = np.ones((16, 16), f16)
    with pytest.raises(RuntimeError, match="cannot run|not built"):
        tcgemm.matmul(a, a, kernel=ks[0]["name"])


def test_grid_swizzle_off_gives_same_result(rng):
    a, b = _make(rng, (700, 300), f16), _make(rng, (300, 900), f16)
    k = runnable_kernels()[0]["name"]
    np.testing.assert_array_equal(tcgemm.matmul(a, b, kernel=k, grid_swizzle=False),
                                  tcgemm.matmul(a, b, kernel=k, grid_swizzle=True))


def test_no_device_memory_leak_in_a_loop(rng):
    from tcgemm import _core
    a, b = _make(rng, (256, 256), f16), _make(rng, (256, 256), f16)
    for _ in range(20):
        tcgemm.matmul(a, b)
    gc.collect()
    # This process's pool (other processes on the GPU do not move it): what it
    # holds and what of that is in use stay put -- freed blocks are reused.
    before = _core.pool_stats()
    for _ in range(300):
        tcgemm.matmul(a, b)
        d = tcgemm.to_device(a)
        tcgemm.matmul(d, b).free()
        d.free()
    gc.collect()
    _core.stream_synchronize(0)
    after = _core.pool_stats()
    assert after["used"] <= before["used"]
    assert after["reserved"] - before["reserved"] < 4 * 1024 * 1024


@pytest.mark.parametrize("layout", ["NN", "TN"])
def test_one_row_and_one_column_operands(layout, rng):
    # (1, N) and (N, 1) arrays are both C- and F-contiguous and may carry odd strides
    for M, N, K in [(1, 2, 1), (1, 1, 1), (2, 1, 1), (1, 37, 5), (5, 1, 37)]:
        a = _make(rng, (M, K), f16)
        w = _make(rng, (N, K), f16)
        b = w.T if layout == "TN" else np.ascontiguousarray(w.T)
        assert rel_err(tcgemm.matmul(a, b), a.astype(np.float64) @ b.astype(np.float64)) < 2e-3


def test_a_failed_call_does_not_poison_the_next(rng):
    with pytest.raises(MemoryError):
        tcgemm.DeviceArray.empty((1 << 20, 1 << 20), f16)
    a = _make(rng, (9, 9), f16)
    assert rel_err(tcgemm.matmul(a, a), a.astype(np.float64) @ a.astype(np.float64)) < 2e-3
