"""The benchmark harness: every registered kernel beside cuBLAS, in one run.

For each shape, dtype and B layout it allocates one set of operand buffers
(several copies, rotated so each launch reads inputs that are not in the
60 MB L2), checks each kernel's output against an fp32-accumulated
reference (a fast wrong kernel shows as wrong), then times it with CUDA
events after warm-up and reports the median, min and max, TFLOPS and the
ratio to cuBLAS timed on the same buffers in the same run, interleaved shape
by shape, with the SM clock seen. cuBLAS comes through torch (or cupy) where
installed; without either the table says so and shows tcgemm alone.

    python -m tcgemm bench --preset squares --json out.json --md out.md --plot out_dir
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import math
import os
import platform
import subprocess
import sys

import numpy as np

from . import _core
from ._api import DeviceArray, bfloat16, build_info, device_info, float16, kernels, matmul, to_device
from .bench_shapes import PRESETS, geomean, jobs_for, parse_shapes

DTYPES = {"fp16": float16, "bf16": bfloat16}
L2_BYTES = 60 * 1024 * 1024


# ---------------------------------------------------------------------------
# Where buffers come from and how cuBLAS is called. Buffers have 16-byte
# padded rows (the pitch tcgemm needs); cuBLAS gets the same memory as
# strided views.
class _TorchBackend:
    name = "cuBLAS (torch)"

    def __init__(self, torch):
        self.torch = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
        self.version = f"torch {torch.__version__}, CUDA {torch.version.cuda}"

    def tdtype(self, dt):
        return self.torch.float16 if dt == float16 else self.torch.bfloat16

    def alloc(self, rows, cols, dt, random=True):
        """-> (storage tensor (rows, pitch), logical view (rows, cols), ptr, pitch)."""
        pitch = _core.pitch_for(cols)
        t = self.torch
        st = t.empty((rows, pitch), dtype=self.tdtype(dt), device="cuda")
        if random:
            st.uniform_(-1, 1)
        return st, st[:, :cols], st.data_ptr(), pitch

    def operand_b(self, view, layout):  # TN storage is (N, K): logical B is its transpose
        return view.t() if layout == "TN" else view

    def mm(self, a, b):
        return self.torch.mm(a, b)

    def reference(self, a, b):
        return self.torch.mm(a.float(), b.float())

    def rel_err(self, got, ref):
        g = got.float()
        nonfinite = int((~self.torch.isfinite(g)).sum().item())
        num = self.torch.linalg.vector_norm((g - ref).double()).item()
        den = self.torch.linalg.vector_norm(ref.double()).item()
        return num / (den or 1.0), nonfinite

    def poison(self, storage):
        storage.fill_(float("nan"))

    def time(self, fn, rotation, warmup, iters):
        t = self.torch
        for i in range(warmup):
            fn(*rotation[i % len(rotation)])
        out = []
        start, stop = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        for i in range(iters):
            args = rotation[(warmup + i) % len(rotation)]
            start.record()
            fn(*args)
            stop.record()
            stop.synchronize()
            out.append(start.elapsed_time(stop))
        return out

    def free(self):
        self.torch.cuda.empty_cache()


class _NativeBackend:
    """No torch or cupy: tcgemm's own buffers, no cuBLAS, fp64 reference on a row sample."""

    name = None
    version = "none (install torch or cupy for the cuBLAS column)"

    def alloc(self, rows, cols, dt, random=True):
        host = np.random.uniform(-1, 1, size=(rows, cols)).astype(dt) if random else None
        d = to_device(host) if random else DeviceArray.empty((rows, cols), dt)
        return d, (d, host), d.ptr, d.pitch

    def operand_b(self, view, layout):
        return view

    def poison(self, storage):
        storage._buf.fill_bytes(0xFF)

    def free(self):
        pass


def _backend(prefer: str | None = None):
    if prefer != "none":
        try:
            import torch

            if torch.cuda.is_available():
                return _TorchBackend(torch)
        except Exception:
            pass
    return _NativeBackend()


# ---------------------------------------------------------------------------
def _gpu_reading(nvml_read, smi_field, convert):
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


def _sm_clock_mhz():
    return _gpu_reading(lambda nv, h: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM), "clocks.sm", int)


def _power_w():
    """Board power draw now (W)."""
    return _gpu_reading(lambda nv, h: nv.nvmlDeviceGetPowerUsage(h) / 1000.0, "power.draw", float)


def _sustained(time_fn, median_ms, seconds, flops):
    """Run back to back for ~`seconds` (the GPU settles at its power limit's
    clock), then read the SM clock and board power: what a long job sees.
    time_fn(n) times n calls and returns their ms."""
    n = max(1, int(seconds * 1e3 / max(median_ms, 1e-3)))
    ms = time_fn(n)
    tail = ms[len(ms) // 2:]  # the settled half
    return {"tflops": flops / (float(np.median(tail)) * 1e-3) / 1e12, "sm_clock_mhz": _sm_clock_mhz(),
            "power_w": _power_w(), "calls": n}


def _environment(backend) -> dict:
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
    return env


def _stats(ms, flops):
    med = float(np.median(ms))
    return {"median_ms": med, "min_ms": float(np.min(ms)), "max_ms": float(np.max(ms)),
            "tflops": flops / (med * 1e-3) / 1e12}


def select_kernels(patterns):
    """Registry entries matching the glob patterns (all when none); the
    pattern "auto" adds a row for `auto` (the kernel it picks per shape)."""
    ks = kernels()
    if not patterns:
        return ks
    sel = [k for k in ks if any(fnmatch.fnmatch(k["name"], p) for p in patterns)]
    if "auto" in patterns:
        sel.append({"name": "auto", "runnable": True, "dtypes": ["float16", "bfloat16"], "layouts": ["TN", "NN"],
                    "accumulators": ["f32", "f16"]})
    return sel


def _paired(backend, rot, kernel_ms, rounds, iters):
    """cuBLAS and a kernel timed in alternating chunks (one warm-up call each);
    -> (cuBLAS times, kernel times)."""
    chunk = max(1, iters // rounds)
    cub, ker = [], []
    for _ in range(rounds):
        cub += backend.time(backend.mm, rot, 1, chunk)
        ker += kernel_ms(1, chunk)
    return cub, ker


def run(shapes, kernel_patterns=None, dtypes=("fp16",), layouts=("TN",), accumulate="f32", warmup=5, iters=30,
        backend=None, progress=True, paired_rounds=4, sustain_s=0.0, seeds=(), count=24):
    """Benchmark; returns {"environment": ..., "rows": [...]}. Never asserts speed.
    `shapes` are crossed with `dtypes` and `layouts`; each of `seeds` adds
    `count` random jobs (bench_shapes.random_jobs), whose rows carry the seed."""
    backend = backend or _backend()
    ks = select_kernels(kernel_patterns)
    # The Ada family's ceiling, measured first, on a GPU not yet heated by the
    # sweep (after 8192^3 rows its clock may sit ~30% lower), with its clock.
    peaks = mma_sync_peaks() if any(k["name"].startswith("sm89.") and k["runnable"] for k in ks) else None
    peak_clock = _sm_clock_mhz() if peaks else None
    # The same loops run back to back: the ceilings at the power limit, which
    # is where long GEMMs run (bounds for the sustained rows below).
    peak_sustained = {fed: _sustained_ceiling(sustain_s, fed) for fed in (False, True)} \
        if peaks and sustain_s > 0 else None
    rows = []
    jobs = jobs_for(shapes, dtypes, layouts, seeds, count)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(jobs) * (len(ks) + 1), desc="bench", file=sys.stderr)
        except Exception:
            bar = None
    for M, N, K, dname, layout, seed in jobs:
        dt = DTYPES[dname]
        flops = 2.0 * M * N * K
        set_bytes = (M * K + K * N) * 2
        n_sets = max(1, min(16, math.ceil(2 * L2_BYTES / set_bytes)))
        sets = []
        for _ in range(n_sets):
            a = backend.alloc(M, K, dt)
            b = backend.alloc(N, K, dt) if layout == "TN" else backend.alloc(K, N, dt)
            c = backend.alloc(M, N, dt, random=False)
            sets.append((a, b, c))
        base = {"M": M, "N": N, "K": K, "dtype": dname, "layout": layout, "accumulate": accumulate}
        if seed is not None:
            base["seed"] = seed
        lt = _core.Layout.TN if layout == "TN" else _core.Layout.NN
        cd = _core.DType.float16 if dt == float16 else _core.DType.bfloat16
        acc = _core.Accum.f32 if accumulate == "f32" else _core.Accum.f16
        a0, b0, c0 = sets[0]
        ptrs = [(a[2], b[2], c[2]) for a, b, c in sets]
        lda, ldb, ldc = a0[3], b0[3], c0[3]

        ref = None
        cublas_ms = None
        if backend.name:
            ref = backend.reference(a0[1], backend.operand_b(b0[1], layout))
            rot = [(a[1], backend.operand_b(b[1], layout)) for a, b, _ in sets]
            cub_out = backend.mm(*rot[0])
            cub_err, _ = backend.rel_err(cub_out, ref)
            del cub_out
            cublas_ms = backend.time(backend.mm, rot, warmup, iters)
            row = dict(base, kernel=backend.name, sm_clock_mhz=_sm_clock_mhz(), rel_err=cub_err, **_stats(cublas_ms, flops))
            row["vs_cublas"] = 1.0
            if sustain_s > 0:
                row["sustained"] = _sustained(lambda n: backend.time(backend.mm, rot, 0, n), row["median_ms"],
                                              sustain_s, flops)
            rows.append(row)
        if bar:
            bar.update(1)
        for k in ks:
            row = dict(base, kernel=k["name"])
            if not k["runnable"]:
                row["status"] = "not runnable on this GPU: " + k["why_not"]
                rows.append(row)
                if bar:
                    bar.update(1)
                continue
            if dname not in [{"float16": "fp16", "bfloat16": "bf16"}[x] for x in k["dtypes"]] or \
                    layout not in k["layouts"] or accumulate not in k["accumulators"]:
                if bar:
                    bar.update(1)
                continue
            if k["name"] == "auto":
                row["picked"] = _core.plan("auto", M, N, K, cd, lt, acc, True, 1, 0)[1]
            try:
                # correctness first, on poisoned output
                backend.poison(c0[0])
                _core.gemm(k["name"], *ptrs[0], M, N, K, lda, ldb, ldc, cd, lt, acc, True, 0, True)
                if backend.name:
                    row["rel_err"], row["nonfinite"] = backend.rel_err(c0[1], ref)
                else:
                    row["rel_err"], row["nonfinite"] = _native_err(a0, b0, c0, layout)
                ms = _core.time_gemm(k["name"], ptrs, M, N, K, lda, ldb, ldc, cd, lt, acc, True, warmup, iters, 0)
                row["sm_clock_mhz"] = _sm_clock_mhz()
                row.update(_stats(ms, flops))
                if cublas_ms:
                    row["vs_cublas"] = float(np.median(cublas_ms)) / row["median_ms"]
                    if paired_rounds:
                        cub, ker = _paired(backend, rot, lambda w, n, name=k["name"]: _core.time_gemm(
                            name, ptrs, M, N, K, lda, ldb, ldc, cd, lt, acc, True, w, n, 0), paired_rounds, iters)
                        row["paired"] = {"rounds": paired_rounds, "cublas_median_ms": float(np.median(cub)),
                                         "median_ms": float(np.median(ker))}
                        row["vs_cublas_paired"] = row["paired"]["cublas_median_ms"] / row["paired"]["median_ms"]
                if sustain_s > 0:
                    row["sustained"] = _sustained(lambda n, name=k["name"]: _core.time_gemm(
                        name, ptrs, M, N, K, lda, ldb, ldc, cd, lt, acc, True, 0, n, 0), row["median_ms"], sustain_s,
                        flops)
                row["status"] = "ok" if row["nonfinite"] == 0 and row["rel_err"] < 2e-2 else "WRONG"
            except Exception as e:  # report, keep going
                row["status"] = f"error: {e}"
            rows.append(row)
            if bar:
                bar.update(1)
        del sets, ref
        backend.free()
    if bar:
        bar.close()
    env = _environment(backend)
    if sustain_s > 0:
        env["sustain_s"] = sustain_s
    if peaks:
        env["mma_sync_peak_tflops"] = peaks
        env["mma_sync_peak_sm_clock_mhz"] = peak_clock
        if peak_sustained:
            env["mma_sync_peak_sustained"] = peak_sustained[False]
            env["mma_sync_ldmatrix_peak_sustained"] = peak_sustained[True]
        for r in rows:  # the Ada family's distance from its own ceiling
            if r["kernel"].startswith("sm89.") and "tflops" in r:
                r["vs_mma_peak"] = r["tflops"] / peaks[r["accumulate"]]
    return {"environment": env, "rows": rows}


def _sustained_ceiling(seconds, ldmatrix_fed=False):
    """An f32-accumulating mma.sync ceiling loop run back to back for ~`seconds`
    (settled TFLOPS, SM clock, board power), as _sustained does for a row."""
    acc = _core.Accum.f32
    ms, flops = _core.time_mma_ceiling(acc, 3, ldmatrix_fed)
    return _sustained(lambda n: _core.time_mma_ceiling(acc, n, ldmatrix_fed)[0], float(np.median(ms)), seconds, flops)


def mma_sync_peaks():
    """TFLOPS of a register-only mma.sync m16n8k16 loop (f32 and f16 accumulation)
    and of the ldmatrix-fed loop (f32_ldmatrix), or None where the Ada family
    cannot run."""
    try:
        return {"f32": _core.mma_sync_peak(_core.Accum.f32), "f16": _core.mma_sync_peak(_core.Accum.f16),
                "f32_ldmatrix": _core.mma_sync_peak(_core.Accum.f32, ldmatrix_fed=True)}
    except (RuntimeError, ValueError):
        return None


def _native_err(a, b, c, layout, sample=256):
    (da, ha), (db, hb) = a[1], b[1]
    got = c[0].numpy()[:sample].astype(np.float64)
    A = ha[:sample].astype(np.float64)
    B = hb.astype(np.float64)
    ref = A @ (B.T if layout == "TN" else B)
    nonfinite = int((~np.isfinite(got)).sum())
    return float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) or 1.0)), nonfinite


# ---------------------------------------------------------------------------
# Feature rows (torch backend only: cuBLAS/cuBLASLt beside each):
#   epilogue  plain GEMM vs fused bias+GELU vs GEMM then torch ops (unfused),
#             with cuBLASLt's own fused bias+GELU (torch._addmm_activation)
#   batched   one batched launch vs a loop of launches vs torch.bmm
# Split-K vs data-parallel rows come from the main sweep (sm90.ws_splitk
# beside sm90.ws_persistent at the skinny shapes).
FEATURE_KERNELS = ("sm90.ws_persistent", "sm90.ws_pingpong", "sm90.ws_splitk", "sm89.mma_2blk.s3", "sm89.mma_iter.s3")


def run_features(epilogue_shapes=((4096, 4096, 4096), (8192, 8192, 8192)), batched_shapes=((16, 1024, 1024, 1024),
                 (128, 256, 256, 256)), dname="fp16", warmup=5, iters=30, kernel_names=FEATURE_KERNELS):
    backend = _backend()
    if not backend.name or not isinstance(backend, _TorchBackend):
        return []
    t = backend.torch
    dt = DTYPES[dname]
    cd = _core.DType.float16 if dt == float16 else _core.DType.bfloat16
    names = [k["name"] for k in kernels() if k["runnable"] and k["name"] in kernel_names]
    rows = []
    for M, N, K in epilogue_shapes:
        flops = 2.0 * M * N * K
        n_sets = max(1, min(16, math.ceil(2 * L2_BYTES / ((M * K + K * N) * 2))))
        sets = [(backend.alloc(M, K, dt), backend.alloc(N, K, dt), backend.alloc(M, N, dt, random=False))
                for _ in range(n_sets)]
        bias = t.empty(N, dtype=t.float32, device="cuda").uniform_(-1, 1)
        ptrs = [(a[2], b[2], c[2]) for a, b, c in sets]
        lda, ldb, ldc = sets[0][0][3], sets[0][1][3], sets[0][2][3]
        base = {"case": "epilogue", "batch": 1, "M": M, "N": N, "K": K, "dtype": dname, "layout": "TN"}
        rot = [(a[1], b[1].t()) for a, b, _ in sets]

        def add(variant, kernel, ms, ref_ms=None):
            r = dict(base, variant=variant, kernel=kernel, sm_clock_mhz=_sm_clock_mhz(), **_stats(ms, flops))
            if ref_ms is not None:
                r["vs_plain"] = r["median_ms"] / float(np.median(ref_ms))
            rows.append(r)
            return ms

        cub = add("plain", backend.name, backend.time(backend.mm, rot, warmup, iters))
        add("fused bias+GELU (cuBLASLt epilogue)", backend.name,
            backend.time(lambda a, b: t._addmm_activation(bias.to(a.dtype), a, b, use_gelu=True), rot, warmup, iters),
            cub)
        add("unfused: GEMM, then +bias, GELU", backend.name,
            backend.time(lambda a, b: t.nn.functional.gelu(t.mm(a, b) + bias, approximate="tanh"), rot, warmup,
                         iters), cub)
        for name in names:
            bias_only = dict(bias=bias.data_ptr(), bias_type=_core.BiasType.float32)
            opts = dict(bias_only, activation=_core.Activation.gelu)

            def timed(w, n, name=name, **kw):
                return _core.time_gemm(name, ptrs, M, N, K, lda, ldb, ldc, cd, _core.Layout.TN, _core.Accum.f32,
                                       True, w, n, 0, **kw)
            try:
                plain = add("plain", name, timed(warmup, iters))
                add("fused bias", name, timed(warmup, iters, **bias_only), plain)
                add("fused bias+GELU", name, timed(warmup, iters, **opts), plain)
                # The same two re-timed in alternating chunks (same clocks): the
                # ratio the <= 3% target is about.
                chunk, pl, fu = max(1, iters // 4), [], []
                for _ in range(4):
                    pl += timed(1, chunk)
                    fu += timed(1, chunk, **opts)
                rows[-1]["vs_plain_paired"] = float(np.median(fu)) / float(np.median(pl))

                def unfused(a, b, c, name=name):
                    _core.gemm(name, a, b, c, M, N, K, lda, ldb, ldc, cd, _core.Layout.TN, _core.Accum.f32, True, 0)
                    return t.nn.functional.gelu(sets[0][2][1] + bias, approximate="tanh")

                add("unfused: GEMM, then +bias, GELU (torch)", name, backend.time(unfused, ptrs, warmup, iters), plain)
            except Exception as e:
                rows.append(dict(base, variant="error", kernel=name, status=f"error: {e}"))
        del sets
        backend.free()
    for batch, M, N, K in batched_shapes:
        flops = 2.0 * batch * M * N * K
        a = t.empty((batch, M, K), dtype=backend.tdtype(dt), device="cuda").uniform_(-1, 1)
        b = t.empty((batch, K, N), dtype=backend.tdtype(dt), device="cuda").uniform_(-1, 1)
        c = t.empty((batch, M, N), dtype=backend.tdtype(dt), device="cuda")
        base = {"case": "batched", "batch": batch, "M": M, "N": N, "K": K, "dtype": dname, "layout": "NN"}
        ref = t.bmm(a.float(), b.float())

        def add(variant, kernel, ms, ref_ms=None):
            r = dict(base, variant=variant, kernel=kernel, sm_clock_mhz=_sm_clock_mhz(), **_stats(ms, flops))
            if ref_ms is not None:
                r["vs_cublas"] = float(np.median(ref_ms)) / r["median_ms"]
            rows.append(r)
            return ms

        cub = add("torch.bmm (cuBLAS batched)", backend.name, backend.time(lambda: t.bmm(a, b), [()], warmup, iters))
        for name in names:
            kw = dict(batch=batch, stride_a=M * K, stride_b=K * N, stride_c=M * N)
            args = (a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, K, N, N, cd, _core.Layout.NN, _core.Accum.f32,
                    True)
            try:
                c.fill_(float("nan"))
                _core.gemm(name, *args, 0, True, **kw)
                err = (c.float() - ref).norm().item() / ref.norm().item()
                ms = _core.time_gemm(name, [args[:3]], *args[3:], warmup, iters, 0, **kw)
                add("one batched launch", name, ms, cub)
                rows[-1]["rel_err"] = err
                rows[-1]["status"] = "ok" if err < 2e-2 else "WRONG"

                def loop(name=name):
                    for i in range(batch):
                        _core.gemm(name, a[i].data_ptr(), b[i].data_ptr(), c[i].data_ptr(), *args[3:], 0)

                add("a loop of launches", name, backend.time(loop, [()], warmup, iters), cub)
            except Exception as e:
                rows.append(dict(base, variant="error", kernel=name, status=f"error: {e}"))
        del a, b, c, ref
        backend.free()
    return rows


def features_markdown(rows) -> str:
    lines = ["", "## Fused epilogue and batched GEMM", "",
             "| case | batch x MxNxK | kernel | variant | TFLOPS | median ms | vs plain | vs plain, paired | vs cuBLAS "
             "| SM MHz | status |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        shape = f"{r['batch']} x {r['M']}x{r['N']}x{r['K']}"
        if "median_ms" not in r:
            lines.append(f"| {r['case']} | {shape} | {r['kernel']} | | | | | | | | {r.get('status', '')} |")
            continue
        vp = f"{r['vs_plain']:.3f}x" if r.get("vs_plain") else ""
        vpp = f"{r['vs_plain_paired']:.3f}x" if r.get("vs_plain_paired") else ""
        vc = f"{r['vs_cublas']:.2f}x" if r.get("vs_cublas") else ""
        lines.append(f"| {r['case']} | {shape} | {r['kernel']} | {r['variant']} | {r['tflops']:.1f} | "
                     f"{r['median_ms']:.3f} | {vp} | {vpp} | {vc} | {r.get('sm_clock_mhz') or ''} | "
                     f"{r.get('status', '')} |")
    return "\n".join(lines) + "\n"


def to_markdown(result) -> str:
    env = result["environment"]
    lines = ["# tcgemm benchmark", ""]
    for key in ("date", "gpu", "driver_version", "max_sm_clock", "power_limit", "cublas_via"):
        if env.get(key):
            lines.append(f"- {key.replace('_', ' ')}: {env[key]}")
    if env.get("mma_sync_peak_tflops"):
        pk = env["mma_sync_peak_tflops"]
        clk = env.get("mma_sync_peak_sm_clock_mhz")
        lines.append(f"- mma.sync m16n8k16 ceiling (register-only loop): {pk['f32']:.0f} TFLOPS f32 accumulate, "
                     f"{pk['f16']:.0f} f16 accumulate" + (f" (at {clk} MHz)" if clk else "")
                     + "; 'of peak' = an Ada kernel's share of it")
        if pk.get("f32_ldmatrix"):
            lines.append(f"- mma.sync fed by ldmatrix (the GEMMs' inner loop alone: 64x64 warp tiles from shared "
                         f"memory, no global loads): {pk['f32_ldmatrix']:.0f} TFLOPS f32 accumulate")
    for key, what in (("mma_sync_peak_sustained", "register-only ceiling"),
                      ("mma_sync_ldmatrix_peak_sustained", "ldmatrix-fed ceiling")):
        ps = env.get(key)
        if ps:
            lines.append(f"- the {what} sustained (back to back, settled half): {ps['tflops']:.0f} TFLOPS"
                         + (f" at {ps['sm_clock_mhz']} MHz" if ps.get("sm_clock_mhz") else "")
                         + (f", {ps['power_w']:.0f} W" if ps.get("power_w") else ""))
    tb = env.get("tcgemm", {})
    lines.append(f"- tcgemm {tb.get('version')}, built with CUDA {tb.get('cuda_version')} for {', '.join(tb.get('archs', []))}")
    paired = any("vs_cublas_paired" in r for r in result["rows"])
    if paired:
        lines.append("- paired: cuBLAS and the kernel re-timed in alternating chunks (same clocks), ratio of medians")
    sus = any("sustained" in r for r in result["rows"])
    if sus:
        lines.append(f"- sustained: each row also run back to back for ~{env.get('sustain_s', 1.0):g} s (the GPU settles "
                     "at its power limit); "
                     "TFLOPS of the settled half, its ratio to cuBLAS's sustained figure, then SM clock and board power")
    lines += ["", "| shape (MxNxK) | dtype | B | kernel | TFLOPS | median ms | min / max ms | vs cuBLAS | "
              + ("paired | " if paired else "") + "of peak | rel err | SM MHz | "
              + ("sustained TFLOPS | vs cuBLAS | MHz | W | " if sus else "") + "status |",
              "|---|---|---|---|---:|---:|---:|---:|" + ("---:|" if paired else "") + "---:|---:|---:|"
              + ("---:|---:|---:|---:|" if sus else "") + "---|"]
    cub_sus = {(r["M"], r["N"], r["K"], r["dtype"], r["layout"]): r["sustained"]["tflops"] for r in result["rows"]
               if r["kernel"].startswith("cuBLAS") and "sustained" in r}
    for r in result["rows"]:
        shape = (f"s{r['seed']}: " if "seed" in r else "") + f"{r['M']}x{r['N']}x{r['K']}"
        if "median_ms" not in r:
            lines.append(f"| {shape} | {r['dtype']} | {r['layout']} | {r['kernel']} | | | | | "
                         + ("| " if paired else "") + "| | | " + ("| | | | " if sus else "") + f"{r.get('status', '')} |")
            continue
        su = ""
        if sus:
            d = r.get("sustained")
            ref = cub_sus.get((r["M"], r["N"], r["K"], r["dtype"], r["layout"]))
            su = (f"{d['tflops']:.1f} | {d['tflops'] / ref:.2f}x | {d.get('sm_clock_mhz') or ''} | "
                  f"{d['power_w']:.0f} | " if d and d.get("power_w") and ref else
                  f"{d['tflops']:.1f} | | {d.get('sm_clock_mhz') or ''} | | " if d else "| | | | ")
        vs = f"{r['vs_cublas']:.2f}x" if r.get("vs_cublas") else "n/a"
        pv = (f"{r['vs_cublas_paired']:.2f}x | " if r.get("vs_cublas_paired") else " | ") if paired else ""
        err = f"{r['rel_err']:.1e}" if r.get("rel_err") is not None else ""
        peak = f"{r['vs_mma_peak']:.2f}" if r.get("vs_mma_peak") else ""
        kname = r["kernel"] + (f" → {r['picked']}" if r.get("picked") else "")
        lines.append(f"| {shape} | {r['dtype']} | {r['layout']} | {kname} | {r['tflops']:.1f} | "
                     f"{r['median_ms']:.3f} | {r['min_ms']:.3f} / {r['max_ms']:.3f} | {vs} | {pv}{peak} | {err} | "
                     f"{r.get('sm_clock_mhz') or ''} | {su}{r.get('status', 'reference')} |")
    summary = ratio_summary(result["rows"])
    if summary:
        lines += ["", "## Paired ratio to cuBLAS per kernel and seed", "",
                  "| seed | kernel | shapes | rows | geometric mean | worst | worst row |",
                  "|---|---|---|---:|---:|---:|---|"]
        for r in summary:
            lines.append(f"| {r['seed']} | {r['kernel']} | {r['subset']} | {r['rows']} | {r['geomean']:.3f}x | "
                         f"{r['min']:.3f}x | "
                         f"{r['worst']} |")
    if result.get("feature_rows"):
        lines.append(features_markdown(result["feature_rows"]))
    return "\n".join(lines) + "\n"


def ratio_summary(rows):
    """Per (seed, kernel) over rows with a paired ratio: geometric mean and
    minimum (the random preset's figures); rows without a seed count as
    seed '-' (fixed shapes)."""
    groups = {}
    for r in rows:
        v = r.get("vs_cublas_paired")
        if v and not r["kernel"].startswith("cuBLAS"):
            groups.setdefault((r.get("seed", "-"), r["kernel"], "all"), []).append(r)
            # cuBLAS (through torch) runs ragged shapes on slow paths (60-230
            # TFLOPS seen): the rows whose M, N, K are multiples of 8 apart.
            if "seed" in r and not (r["M"] % 8 or r["N"] % 8 or r["K"] % 8):
                groups.setdefault((r["seed"], r["kernel"], "multiples of 8"), []).append(r)
    out = []
    for (seed, kernel, subset), rs in groups.items():
        w = min(rs, key=lambda r: r["vs_cublas_paired"])
        out.append({"seed": seed, "kernel": kernel, "subset": subset, "rows": len(rs),
                    "geomean": geomean([r["vs_cublas_paired"] for r in rs]),
                    "min": w["vs_cublas_paired"],
                    "worst": f"{w['M']}x{w['N']}x{w['K']} {w['dtype']} {w['layout']}"
                             + (f" ({w['picked']})" if w.get("picked") else "")})
    return out


def _plot_ratio_vs_size(result, out_dir, plt) -> list:
    """The random preset's rows: each kernel's paired ratio to cuBLAS against
    the problem's FLOPs, one marker per seed (ratio_vs_size.png)."""
    rows = [r for r in result["rows"] if "seed" in r and r.get("vs_cublas_paired")]
    if not rows:
        return []
    fig, ax = plt.subplots(figsize=(11, 5.5))
    kernels_ = list(dict.fromkeys(r["kernel"] for r in rows))
    seeds = sorted({r["seed"] for r in rows})
    markers = "osD^vP*X"
    for i, name in enumerate(kernels_):
        for j, seed in enumerate(seeds):
            sel = [r for r in rows if r["kernel"] == name and r["seed"] == seed]
            if sel:
                ax.scatter([2.0 * r["M"] * r["N"] * r["K"] for r in sel], [r["vs_cublas_paired"] for r in sel],
                           marker=markers[j % len(markers)], color=plt.cm.tab10(i % 10), alpha=0.8,
                           label=f"{name}, seed {seed}")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("problem size, FLOPs (2MNK)")
    ax.set_ylabel("speed vs cuBLAS, paired (same clocks)")
    ax.set_title(f"{result['environment'].get('gpu')}: random shapes (M, N, K in 256-8192)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    path = os.path.join(out_dir, "ratio_vs_size.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def plot(result, out_dir) -> list:
    """TFLOPS vs size per kernel (squares), cuBLAS as the reference line; one PNG per dtype/layout.
    Each family gets its own colour map and the ladder steps of a family cycle line styles, so
    twenty lines stay tellable apart."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    written = _plot_ratio_vs_size(result, out_dir, plt)
    rows = [r for r in result["rows"] if "tflops" in r and r["M"] == r["N"] == r["K"] and "seed" not in r]
    cmaps = {"sm89": plt.cm.viridis, "sm90": plt.cm.autumn, "sm100": plt.cm.cool}
    styles = ["-", "--", "-.", ":"]
    for dname in sorted({r["dtype"] for r in rows}):
        for layout in sorted({r["layout"] for r in rows}):
            sel = [r for r in rows if r["dtype"] == dname and r["layout"] == layout]
            if not sel:
                continue
            # With paired re-timings, a second panel: each kernel's time against
            # cuBLAS's at the same clocks (the TFLOPS panel mixes clocks when the
            # GPU throttles between rows).
            paired = any(r.get("vs_cublas_paired") for r in sel)
            fig, axes = plt.subplots(1, 2 if paired else 1, figsize=(16 if paired else 11, 5.5), squeeze=False)
            ax = axes[0][0]
            names = list(dict.fromkeys(r["kernel"] for r in sel))
            for name in names:
                pts = sorted((r["M"], r["tflops"]) for r in sel if r["kernel"] == name)
                if name.startswith("cuBLAS"):
                    style = dict(color="black", linewidth=3, linestyle="-", marker="s")
                else:
                    fam = name.split(".")[0]
                    same = [n for n in names if n.split(".")[0] == fam]
                    i = same.index(name)
                    cmap = cmaps.get(fam, plt.cm.gray)
                    style = dict(color=cmap(0.1 + 0.75 * i / max(1, len(same) - 1)), linestyle=styles[i % 4],
                                 marker="o", linewidth=1.6)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, **style)
                if paired:
                    rp = sorted((r["M"], r["vs_cublas_paired"]) for r in sel
                                if r["kernel"] == name and r.get("vs_cublas_paired"))
                    if name.startswith("cuBLAS"):
                        rp = [(m, 1.0) for m, _ in pts]
                    axes[0][1].plot([p[0] for p in rp], [p[1] for p in rp], **style)
            for a in [x for x in axes[0]]:
                a.set_xscale("log", base=2)
                a.set_xticks(sorted({r["M"] for r in sel if r["M"] & (r["M"] - 1) == 0}) or sorted({r["M"] for r in sel}))
                a.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
                a.set_xlabel("M = N = K")
                a.grid(True, alpha=0.3)
            ax.set_ylabel("TFLOPS")
            ax.set_title(f"{result['environment'].get('gpu')}: {dname}, B {layout} (cuBLAS in black)")
            if paired:
                axes[0][1].set_ylabel("speed vs cuBLAS, paired (same clocks)")
                axes[0][1].set_title("ratio to cuBLAS timed in alternating chunks")
                axes[0][1].legend(handles=ax.get_lines(), fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
            else:
                ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
            path = os.path.join(out_dir, f"{dname}_{layout}.png")
            fig.tight_layout()
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
    return written


def write_results(res, args, to_markdown_fn, plot_fn, fresh=True) -> None:
    """A run's table (printed when `fresh`, and to --md), its JSON (--json, when
    `fresh`: a replot keeps the file it read) and its plots (--plot)."""
    md = to_markdown_fn(res)
    if fresh:
        print(md)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(res, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    if args.plot:
        for path in plot_fn(res, args.plot):
            print("wrote", path)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tcgemm bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", nargs="*", default=[], choices=sorted(PRESETS) + ["random"],
                   help="shape sets; 'random' draws --count jobs per --seed (M, N, K in 256-8192, half of each "
                        "a multiple of 8, dtype and layout drawn from --dtypes and --layouts)")
    p.add_argument("--seed", nargs="*", type=int, default=[], help="seeds of the random preset (default 0)")
    p.add_argument("--count", type=int, default=24, help="random jobs per seed")
    p.add_argument("--shapes", nargs="*", default=[], help="e.g. 4096 or 128x8192x8192 (MxNxK)")
    p.add_argument("--kernels", nargs="*", default=[], help="glob patterns over kernel names")
    p.add_argument("--dtypes", nargs="*", default=["fp16"], choices=sorted(DTYPES))
    p.add_argument("--layouts", nargs="*", default=["TN"], choices=["TN", "NN"])
    p.add_argument("--accumulate", default="f32", choices=["f32", "f16"])
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--no-cublas", action="store_true", help="skip torch/cupy even if installed")
    p.add_argument("--paired", type=int, default=4, metavar="ROUNDS",
                   help="re-time cuBLAS and each kernel in ROUNDS alternating chunks for the 'paired' ratio (0: off)")
    p.add_argument("--sustain", type=float, default=0.0, metavar="SECONDS",
                   help="also run each row back to back for SECONDS and record its settled TFLOPS, SM clock and "
                        "board power (what a long job sees at the power limit)")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--md", help="write a Markdown table here")
    p.add_argument("--plot", help="write PNG plots into this folder")
    p.add_argument("--features", action="store_true",
                   help="also time fused bias+GELU vs unfused and batched vs a loop (needs torch)")
    p.add_argument("--only-features", action="store_true", help="time only the --features rows")
    p.add_argument("--replot", metavar="JSON", help="only redraw the plots (--plot) and table (--md) of a saved JSON")
    p.add_argument("--user-path", action="store_true",
                   help="time what users get instead: tcgemm.matmul on torch tensors and NumPy arrays (host "
                        "overhead, new output / out=, CUDA-graph replay, NumPy round trips) against torch/cupy "
                        "(tcgemm/bench_user.py)")
    p.add_argument("--user-parts", nargs="*", choices=["overhead", "kernel", "graph", "numpy"],
                   help="with --user-path: which row kinds (default all)")
    args = p.parse_args(argv)
    if args.user_path:
        from . import bench_user
        return bench_user.main(args)
    if args.replot:
        with open(args.replot) as f:
            write_results(json.load(f), args, to_markdown, plot, fresh=False)
        return 0
    if _core.device_count() == 0:
        print("tcgemm bench: no CUDA device was found; nothing to time.", file=sys.stderr)
        return 1
    seeds = (args.seed or [0]) if "random" in args.preset else []
    shapes = parse_shapes([x for x in args.preset if x != "random"] + args.shapes)
    if not shapes and not seeds:
        shapes = PRESETS["quick"]
    if args.only_features:
        res = {"environment": _environment(_backend()), "rows": []}
    else:
        res = run(shapes, args.kernels, args.dtypes, args.layouts, args.accumulate, args.warmup, args.iters,
                  backend=_backend("none" if args.no_cublas else None), paired_rounds=args.paired,
                  sustain_s=args.sustain, seeds=seeds, count=args.count)
    if args.features or args.only_features:
        res["feature_rows"] = run_features(warmup=args.warmup, iters=args.iters)
    write_results(res, args, to_markdown, plot)
    return 1 if any(r.get("status", "").startswith(("WRONG", "error"))
                    for r in res["rows"] + res.get("feature_rows", [])) else 0


# ---------------------------------------------------------------------------
def selfcheck(shape=(1000, 1000, 1000), log=print) -> bool:
    """Every runnable kernel, both dtypes, both layouts, each accumulator it
    supports, against a float64 reference on fresh random data, poisoned output."""
    M, N, K = shape
    rng = np.random.default_rng()
    ok = True
    for dname, dt in DTYPES.items():
        a = rng.uniform(-1, 1, (M, K)).astype(dt)
        w = rng.uniform(-1, 1, (N, K)).astype(dt)
        for layout, b in (("NN", np.ascontiguousarray(w.T)), ("TN", w.T)):
            ref = a.astype(np.float64) @ b.astype(np.float64)
            for k in kernels():
                if not k["runnable"]:
                    continue
                for acc in k["accumulators"]:
                    if acc == "f16" and dt == bfloat16:
                        continue
                    with DeviceArray.empty((M, N), dt) as out:
                        out._buf.fill_bytes(0xFF)  # NaN poison
                        matmul(to_device(a), to_device(b), kernel=k["name"], out=out, accumulate=acc)
                        got = out.numpy().astype(np.float64)
                    err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
                    bound = 1e-2 if acc == "f16" else (8e-3 if dt == bfloat16 else 2e-3)
                    good = bool(np.isfinite(got).all() and err < bound)
                    ok &= good
                    log(f"  {k['name']:<22} {dname} {layout} acc={acc}: rel err {err:.2e} "
                        f"{'ok' if good else 'FAILED (bound %.0e)' % bound}")
    return ok


def selfcheck_and_table() -> int:
    info = build_info()
    dev = device_info()
    print(f"tcgemm {info['version']} (CUDA {info['cuda_version']}, built for {', '.join(info['archs'])})")
    if dev is None:
        print("No CUDA device was found: nothing can run here. Kernels in this build:")
        for k in kernels():
            print(f"  {k['name']:<22} {k['arch']:<8} {'built' if k['built'] else 'not built'}")
        return 1
    print(f"device: {dev['name']} (sm_{dev['cc']}, {dev['sm_count']} SMs)")
    print("self-check at 1000x1000x1000 against float64:")
    ok = selfcheck()
    print("self-check:", "PASSED" if ok else "FAILED")
    print("\nbenchmark, 4096^3 fp16, B K-major (TN) and row-major (NN):")
    res = run([(4096, 4096, 4096)], dtypes=("fp16",), layouts=("TN", "NN"), warmup=3, iters=15, progress=False)
    print(to_markdown(res))
    return 0 if ok else 1
