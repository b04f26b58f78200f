"""How the benchmark times and what it records beside a time: medians and
TFLOPS, the paired ratio (cuBLAS and a kernel in alternating chunks, same
clocks), sustained runs at the power limit, the SM clock and board power, the
mma.sync ceilings, and the run's environment (GPU, driver, clocks, versions).
"""
from __future__ import annotations

import datetime
import platform
import subprocess

import numpy as np

from .. import _core
from .._api import build_info, device_info
from .provenance import provenance


def gpu_reading(nvml_read, smi_field, convert):
    """One reading of this process's GPU: through NVML where pynvml is installed,
    else nvidia-smi's `smi_field`; None if neither answers."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return convert(nvml_read(pynvml, pynvml.nvmlDeviceGetHandleByIndex(device_info()["index"])))
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={smi_field}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.split()
        return convert(out[0]) if out else None
    except Exception:
        return None


def sm_clock_mhz():
    return gpu_reading(lambda nv, h: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM), "clocks.sm", int)


def power_w():
    """Board power draw now (W)."""
    return gpu_reading(lambda nv, h: nv.nvmlDeviceGetPowerUsage(h) / 1000.0, "power.draw", float)


def sustained(time_fn, median_ms, seconds, flops):
    """Run back to back for ~`seconds` (the GPU settles at its power limit's
    clock), then read the SM clock and board power: what a long job sees.
    time_fn(n) times n calls and returns their ms."""
    n = max(1, int(seconds * 1e3 / max(median_ms, 1e-3)))
    ms = time_fn(n)
    tail = ms[len(ms) // 2:]  # the settled half
    return {"tflops": flops / (float(np.median(tail)) * 1e-3) / 1e12, "sm_clock_mhz": sm_clock_mhz(),
            "power_w": power_w(), "calls": n}


def environment(backend) -> dict:
    """The run's header: date, GPU, clocks, power limit, the cuBLAS column's
    backend, and provenance.provenance()'s fields (commit, build, driver,
    CUDA runtime, torch, cuBLAS; `missing` names what could not be read)."""
    d = device_info() or {}
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": d.get("name"),
        "sm_count": d.get("sm_count"),
        "tcgemm": build_info(),
        "cublas_via": backend.version,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,clocks.max.mem,power.limit",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=10).stdout.strip()
        env["driver_version"], env["max_sm_clock"], env["max_mem_clock"], env["power_limit"] = [
            s.strip() for s in q.split(",")]
    except Exception:
        env["driver_cuda_version"] = d.get("driver_cuda_version")
    env.update(provenance(getattr(backend, "torch", None)))
    return env


def stats(ms, flops):
    med = float(np.median(ms))
    return {"median_ms": med, "min_ms": float(np.min(ms)), "max_ms": float(np.max(ms)),
            "tflops": flops / (med * 1e-3) / 1e12}


def paired(cublas_ms, kernel_ms, rounds, iters):
    """cuBLAS and a kernel timed in alternating chunks (one warm-up call each);
    each argument times (warmup, n) calls. -> (cuBLAS times, kernel times)."""
    chunk = max(1, iters // rounds)
    cub, ker = [], []
    for _ in range(rounds):
        cub += cublas_ms(1, chunk)
        ker += kernel_ms(1, chunk)
    return cub, ker



def sustained_ceiling(seconds, ldmatrix_fed=False):
    """An f32-accumulating mma.sync ceiling loop run back to back for ~`seconds`
    (settled TFLOPS, SM clock, board power), as _sustained does for a row."""
    acc = _core.Accum.f32
    ms, flops = _core.time_mma_ceiling(acc, 3, ldmatrix_fed)
    return sustained(lambda n: _core.time_mma_ceiling(acc, n, ldmatrix_fed)[0], float(np.median(ms)), seconds, flops)


def mma_sync_peaks():
    """TFLOPS of a register-only mma.sync m16n8k16 loop (f32 and f16 accumulation)
    and of the ldmatrix-fed loop (f32_ldmatrix), or None where the Ada family
    cannot run."""
    try:
        return {"f32": _core.mma_sync_peak(_core.Accum.f32), "f16": _core.mma_sync_peak(_core.Accum.f16),
                "f32_ldmatrix": _core.mma_sync_peak(_core.Accum.f32, ldmatrix_fed=True)}
    except (RuntimeError, ValueError):
        return None
