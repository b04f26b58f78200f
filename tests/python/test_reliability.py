"""Nothing crashes, nothing is lost: bad input, memory, NaN/Inf, threads, streams (GPU)."""
import gc
import threading
import time

import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from conftest import bound, gpu, rel_err, runnable_kernels

pytestmark = gpu
f16, bf16 = tcgemm.float16, tcgemm.bfloat16


def _mem_used():
    """Device memory tcgemm holds in this process: every device allocation it makes (DeviceArrays,
    uploads, results, workspaces) comes from its stream-ordered pool (core/workspace.cpp), and the
    pool's bytes in use are this process's alone -- other processes on the GPU (pytest's other
    workers) do not move them, as they move the device-wide free memory. Read once the garbage
    collector has freed what it will and the legacy stream has drained."""
    gc.collect()
    _core.stream_synchronize(0)
    return _core.pool_stats()["used"]


def _mem_grown(before, limit, tries=5):
    """How many more bytes of the pool are in use than `before`: the first reading under `limit`,
    else the least of `tries` readings a fifth of a second apart (a free made on another stream
    lands when that stream reaches it); what this process leaked stays in every reading."""
    grown = _mem_used() - before
    for _ in range(tries - 1):
        if grown < limit:
            break
        time.sleep(0.2)
        grown = min(grown, _mem_used() - before)
    return grown


def test_allocation_too_large_is_memory_error_and_leaks_nothing():
    # one call first: what is made once per process (the pool, the pipeline's streams) is not a leak
    tcgemm.matmul(np.ones((300, 8), f16), np.ones((8, 300), f16))
    before = _mem_used()
    with pytest.raises(MemoryError, match="cudaMalloc"):
        tcgemm.DeviceArray.empty((1 << 20, 1 << 20), f16)  # 2 TiB
    # the inputs fit, the (300000 x 300000) output does not: inputs must be freed
    a = np.ones((300_000, 8), f16)
    with pytest.raises(MemoryError):
        tcgemm.matmul(a, np.ones((8, 300_000), f16))
    assert _mem_grown(before, 2 << 20) < 2 << 20
    # and the process is still usable
    c = tcgemm.matmul(np.ones((4, 4), f16), np.ones((4, 4), f16))
    assert (c == 4).all()


def test_nan_and_inf_propagate():
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (64, 96)).astype(f16)
    b = rng.uniform(-1, 1, (96, 40)).astype(f16)
    a[:, 0] = np.abs(a[:, 0]) + 0.25  # positive, so x * inf below is +inf
    a[3, 5] = np.nan
    a[7, :] = 0
    b[0, 11] = np.inf  # row 7 of a is all zeros: 0 * inf = NaN in column 11
    c = tcgemm.matmul(a, b).astype(np.float32)
    assert np.isnan(c[3]).all()          # NaN times anything finite is NaN
    assert np.isnan(c[7, 11])            # 0 * inf
    assert np.isposinf(c[[r for r in range(64) if r not in (3, 7)], 11]).all()  # positive * inf + finite
    mask = np.ones_like(c, bool)
    mask[3] = False
    mask[:, 11] = False
    ref = a.astype(np.float64) @ np.where(np.isinf(b), 0, b).astype(np.float64)
    assert np.isfinite(c[mask]).all()
    assert np.allclose(c[mask], ref[mask], atol=2e-2, rtol=2e-2)


def test_ten_thousand_mixed_calls_do_not_grow_device_memory():
    rng = np.random.default_rng()
    a, b = rng.uniform(-1, 1, (96, 64)).astype(f16), rng.uniform(-1, 1, (64, 80)).astype(f16)
    # split-K too where a kernel does it: its workspace comes from the library's pool
    split = any("split_k" in k["features"] and k["runnable"] for k in tcgemm.kernels())
    x_split, w_split = rng.uniform(-1, 1, (16, 512)).astype(f16), rng.uniform(-1, 1, (512, 136)).astype(f16)
    for _ in range(20):  # warm: kernel attributes, allocator pools, module load
        tcgemm.matmul(a, b)
        if split:
            tcgemm.matmul(x_split, w_split, split_k=3)
    before = _mem_used()
    for i in range(10_000):
        k = i % 4
        if k == 0:
            tcgemm.matmul(a, b)
            if split and i % 8 == 0:
                tcgemm.matmul(x_split, w_split, split_k=1 + i % 5)
        elif k == 1:
            with tcgemm.to_device(a) as d:
                tcgemm.matmul(d, b).free()
        elif k == 2:
            tcgemm.DeviceArray.empty((i % 300 + 1, 17), bf16)  # dropped: freed by the garbage collector
        else:
            d = tcgemm.to_device(b.T)
            d.T.free()
    grown = _mem_grown(before, 4 << 20)
    assert grown < 4 << 20, f"device memory grew by {grown} bytes"


def test_eight_threads_at_once():
    rng = np.random.default_rng()
    names = [k["name"] for k in runnable_kernels()]
    errors = []

    def work(t):
        try:
            r = np.random.default_rng(t)
            for i in range(12):
                dt = f16 if (t + i) % 2 else bf16
                M, N, K = (int(x) for x in r.integers(1, 300, 3))
                a = r.uniform(-1, 1, (M, K)).astype(dt)
                b = r.uniform(-1, 1, (K, N)).astype(dt)
                b = b if i % 3 else np.asfortranarray(b)
                c = tcgemm.matmul(a, b, kernel=names[(t + i) % len(names)])
                err = rel_err(c, a.astype(np.float64) @ b.astype(np.float64))
                if not err < bound(dt, "f32"):
                    errors.append((t, i, M, N, K, err))
        except Exception as e:  # pragma: no cover - reported below
            errors.append((t, repr(e)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def test_explicit_streams():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng()
    a, b = rng.uniform(-1, 1, (512, 256)).astype(f16), rng.uniform(-1, 1, (256, 384)).astype(f16)
    s = torch.cuda.Stream()
    da = tcgemm.to_device(a, stream=s)
    db = tcgemm.to_device(b, stream=s.cuda_stream)
    dc = tcgemm.matmul(da, db, stream=s)  # queued on s, returns at once
    got = dc.numpy(stream=s)              # ordered after it on s
    assert rel_err(got, a.astype(np.float64) @ b.astype(np.float64)) < 2e-3
    with pytest.raises(TypeError, match="stream"):
        tcgemm.matmul(a, b, stream="fast")
    for x in (da, db, dc):
        x.free()


def test_bad_kernel_for_the_arguments_and_auto_still_works():
    a = np.ones((16, 16), bf16)
    name = runnable_kernels()[0]["name"]
    with pytest.raises(ValueError, match="float16 inputs"):
        tcgemm.matmul(a, a, kernel=name, accumulate="f16")
    assert (tcgemm.matmul(a, a).astype(np.float32) == 16).all()
