"""The benchmark's main loop: every selected kernel beside cuBLAS, job by job.

For each shape, dtype and B layout it allocates one set of operand buffers
(several copies, rotated so each launch reads inputs that are not in the
60 MB L2), checks each kernel's output against an fp32-accumulated
reference (a fast wrong kernel shows as wrong), then times it with CUDA
events after warm-up and reports the median, min and max, TFLOPS and the
ratio to cuBLAS timed on the same buffers in the same run, with the SM clock
seen.
"""
from __future__ import annotations

import fnmatch
import math
import sys

import numpy as np

from .. import _core
from .._api import float16, kernels
from .references import backend_for, native_err
from .shapes import DTYPES, L2_BYTES, jobs_for
from .timing import environment, mma_sync_peaks, paired, sm_clock_mhz, stats, sustained, sustained_ceiling


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



def run(shapes, kernel_patterns=None, dtypes=("fp16",), layouts=("TN",), accumulate="f32", warmup=5, iters=30,
        backend=None, progress=True, paired_rounds=4, sustain_s=0.0, seeds=(), count=24, aligned=0.5,
        timing="auto", checkpoint=None):
    """Benchmark; returns {"environment": ..., "rows": [...]}. Never asserts speed.
    `shapes` are crossed with `dtypes` and `layouts`; each of `seeds` adds
    `count` random jobs (shapes.random_jobs), whose rows carry the seed.
    `checkpoint(rows)` after each job (report.Checkpoint: a run cut off keeps its rows)."""
    backend = backend or backend_for()
    ks = select_kernels(kernel_patterns)
    # The Ada family's ceiling, measured first, on a GPU not yet heated by the
    # sweep (after 8192^3 rows its clock may sit ~30% lower), with its clock.
    peaks = mma_sync_peaks() if any(k["name"].startswith("sm89.") and k["runnable"] for k in ks) else None
    peak_clock = sm_clock_mhz() if peaks else None
    # The same loops run back to back: the ceilings at the power limit, which
    # is where long GEMMs run (bounds for the sustained rows below).
    peak_sustained = {fed: sustained_ceiling(sustain_s, fed) for fed in (False, True)} \
        if peaks and sustain_s > 0 else None
    rows = []
    jobs = jobs_for(shapes, dtypes, layouts, seeds, count, aligned)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(jobs) * (len(ks) + 1), desc="bench", file=sys.stderr)
        except Exception:
            bar = None
    # timing "launch": each call waited for, its host launch time inside the
    # window (torch's dispatch, tcgemm's plan lookup); "queued": GPU time only
    # (TorchBackend.time_queued), tcgemm called through _core.gemm on torch's
    # stream without waiting.
    if timing not in ("auto", "launch", "queued"):
        raise ValueError(f"timing must be 'auto', 'launch' or 'queued', got {timing!r}")
    if timing == "auto":
        timing = "queued" if hasattr(backend, "time_queued") else "launch"
    queued = timing == "queued"
    if queued and not hasattr(backend, "time_queued"):
        raise ValueError("timing='queued' needs torch (the cuBLAS column's backend)")
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

        def time_cublas(w, n):
            return (backend.time_queued if queued else backend.time)(backend.mm, rot, w, n)

        def time_kernel(name, w, n):
            if queued:
                stream = backend.torch.cuda.current_stream().cuda_stream
                return backend.time_queued(lambda a, b, c: _core.gemm(name, a, b, c, M, N, K, lda, ldb, ldc, cd, lt,
                                                                      acc, True, stream, False), ptrs, w, n)
            return _core.time_gemm(name, ptrs, M, N, K, lda, ldb, ldc, cd, lt, acc, True, w, n, 0)

        if backend.name:
            ref = backend.reference(a0[1], backend.operand_b(b0[1], layout))
            rot = [(a[1], backend.operand_b(b[1], layout)) for a, b, _ in sets]
            cub_out = backend.mm(*rot[0])
            cub_err, _ = backend.rel_err(cub_out, ref)
            del cub_out
            cublas_ms = time_cublas(warmup, iters)
            row = dict(base, kernel=backend.name, sm_clock_mhz=sm_clock_mhz(), rel_err=cub_err, **stats(cublas_ms, flops))
            row["vs_cublas"] = 1.0
            if sustain_s > 0:
                row["sustained"] = sustained(lambda n: backend.time(backend.mm, rot, 0, n), row["median_ms"],
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
            # (FP8 entries take neither fp16 nor bf16: the table skips them)
            if dname not in [{"float16": "fp16", "bfloat16": "bf16"}.get(x) for x in k["dtypes"]] or \
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
                    row["rel_err"], row["nonfinite"] = native_err(a0, b0, c0, layout)
                ms = time_kernel(k["name"], warmup, iters)
                row["sm_clock_mhz"] = sm_clock_mhz()
                row.update(stats(ms, flops))
                if cublas_ms:
                    row["vs_cublas"] = float(np.median(cublas_ms)) / row["median_ms"]
                    if paired_rounds:
                        cub, ker = paired(time_cublas, lambda w, n, name=k["name"]: time_kernel(name, w, n),
                                          paired_rounds, iters)
                        row["paired"] = {"rounds": paired_rounds, "cublas_median_ms": float(np.median(cub)),
                                         "median_ms": float(np.median(ker))}
                        row["vs_cublas_paired"] = row["paired"]["cublas_median_ms"] / row["paired"]["median_ms"]
                if sustain_s > 0:
                    row["sustained"] = sustained(lambda n, name=k["name"]: _core.time_gemm(
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
        if checkpoint:
            checkpoint(rows)
    if bar:
        bar.close()
    env = environment(backend)
    env["timing"] = timing
    if sustain_s > 0:
        env["sustain_s"] = sustain_s
    if seeds:
        env["random_aligned_share"] = aligned
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
