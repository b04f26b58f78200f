"""What users get: ``tcgemm.matmul`` as it is called, beside torch and cupy.

    python -m tcgemm bench --user-path --json r.json --md r.md

Five kinds of row (``path``), each set against a reference timed in the
same run, in alternating rounds (so both see the same clocks):

* ``overhead``  host time per call in a loop of small calls (64^3, 256^3,
                16x4096x4096, 1024^3), ``x @ w.T`` with ``out=`` and with a
                new output, against ``torch.matmul`` called the same way;
* ``torch_new`` ``y = tcgemm.matmul(x, w.T)`` against ``torch.matmul(x, w.T)``
                per call (CUDA events around a loop; inputs rotated past the
                L2), squares 1024^3-8192^3 and decode shapes, fp16 and bf16;
* ``torch_out`` the same with ``out=``;
* ``graph``     per call under CUDA-graph replay (a graph of many calls);
* ``ragged``    shapes with no dimension a multiple of 8 (every operand and
                the output staged: docs/call_path.md, "Layouts"), NN and TN
                with ``out=``: per call in a loop of calls (what a Python
                caller waits for: CUDA events around the loop) and under
                CUDA-graph replay (GPU time); the shapes of
                bench/results/h100_ragged_staging.md and ``RAGGED_UNTUNED``
                more drawn from seed ``RAGGED_SEED`` in every run;
* ``numpy``     NumPy in, NumPy out (pageable, and ``empty_pinned`` arrays)
                against cupy's and torch's round trips, with ``bound_ms``: the
                time the bytes (A and B up, D down) take at the host-device
                bandwidth measured in this run for that kind of host memory.
"""
from __future__ import annotations

import time

import numpy as np

from .. import _core
from .._api import empty_pinned, matmul
from .shapes import L2_BYTES
from .user_report import log_line, plot, to_markdown

SQUARES = [1024, 2048, 4096, 8192]
DECODE = [(1, 4096, 4096), (16, 4096, 4096), (64, 8192, 8192), (256, 4096, 4096), (16, 14336, 4096),
          (32, 4096, 14336), (128, 14336, 4096)]
OVERHEAD = [(64, 64, 64), (256, 256, 256), (16, 4096, 4096), (1024, 1024, 1024)]
GRAPH = [(16, 4096, 4096), (64, 8192, 8192), (1024, 1024, 1024), (4096, 4096, 4096)]
NUMPY = [4096, 8192]
RAGGED = [(2247, 831, 671), (729, 1871, 1358), (1023, 1025, 1027), (17, 4097, 4099), (127, 4097, 4099),
          (4095, 4097, 4093)]
RAGGED_SEED, RAGGED_UNTUNED = 71, 4


def ragged_shapes():
    """RAGGED, then RAGGED_UNTUNED shapes drawn from RAGGED_SEED: each dimension in 100..4999, none a
    multiple of 8."""
    rng = np.random.default_rng(RAGGED_SEED)
    out = list(RAGGED)
    while len(out) < len(RAGGED) + RAGGED_UNTUNED:
        M, N, K = (int(v) for v in rng.integers(100, 5000, 3))
        if M % 8 and N % 8 and K % 8:
            out.append((M, N, K))
    return out


def _torch():
    import torch
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    return torch


def _sets(torch, M, N, K, tdt, with_out):
    """Enough (x, w, out) sets that consecutive calls do not find their inputs in L2."""
    per = (M * K + N * K + M * N) * 2
    n = max(1, min(8, -(-3 * L2_BYTES // per)))
    return [(torch.empty((M, K), dtype=tdt, device="cuda").uniform_(-1, 1),
             torch.empty((N, K), dtype=tdt, device="cuda").uniform_(-1, 1),
             torch.empty((M, N), dtype=tdt, device="cuda") if with_out else None) for _ in range(n)]


def _event_ms(torch, fn, sets, calls):
    """Per-call ms of `calls` calls cycling through `sets`, between two events."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(calls):
        fn(*sets[i % len(sets)])
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / calls


def _graph_of(torch, fn, sets, calls):
    """`calls` calls of `fn` cycling through `sets`, captured in one CUDA graph (after a warm-up
    on a side stream, as torch's docs ask)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for st in sets:
            fn(*st)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(*sets[i % len(sets)])
    return g


def _replay_ms(torch, g, calls):
    """Per-call ms of one replay of `g` (of `calls` calls), after one untimed replay."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    g.replay()
    s.record()
    g.replay()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / calls


def _alternate(measure_a, measure_b, rounds):
    a, b = [], []
    for _ in range(rounds):
        a.append(measure_a())
        b.append(measure_b())
    return float(np.median(a)), float(np.median(b))


def _calls_for(M, N, K):
    flops = 2.0 * M * N * K
    return int(min(200, max(10, 2e13 / max(flops, 1.0))))  # ~30 ms of work at 700 TFLOPS, 10..200 calls


def overhead_rows(torch, rounds):
    rows = []
    for M, N, K in OVERHEAD:
        x, w = torch.randn(M, K, device="cuda", dtype=torch.float16), torch.randn(N, K, device="cuda", dtype=torch.float16)
        o = torch.empty(M, N, device="cuda", dtype=torch.float16)
        n = 300
        for variant, ours, ref in (("out", lambda: matmul(x, w.T, out=o), lambda: torch.matmul(x, w.T, out=o)),
                                   ("new", lambda: matmul(x, w.T), lambda: torch.matmul(x, w.T))):
            def host_us(fn):
                fn()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                t1 = time.perf_counter()
                torch.cuda.synchronize()
                return (t1 - t0) / n * 1e3
            t, r = _alternate(lambda: host_us(ours), lambda: host_us(ref), rounds)
            rows.append(dict(path="overhead", variant=variant, M=M, N=N, K=K, dtype="fp16", tcgemm_ms=t,
                             ref="torch.matmul", ref_ms=r))
    return rows


def kernel_rows(torch, rounds, dtypes=("fp16", "bf16")):
    rows = []
    shapes = [(s, s, s) for s in SQUARES] + DECODE
    for dts in dtypes:
        tdt = torch.float16 if dts == "fp16" else torch.bfloat16
        for M, N, K in shapes:
            for path in ("torch_new", "torch_out"):
                sets = _sets(torch, M, N, K, tdt, path == "torch_out")
                if path == "torch_new":
                    ours, ref = (lambda x, w, o: matmul(x, w.T)), (lambda x, w, o: torch.matmul(x, w.T))
                else:
                    ours, ref = (lambda x, w, o: matmul(x, w.T, out=o)), (lambda x, w, o: torch.matmul(x, w.T, out=o))
                y = ours(*sets[0])
                ok = float(((y.float() - torch.matmul(sets[0][0].float(), sets[0][1].float().T)).norm()
                            / torch.matmul(sets[0][0].float(), sets[0][1].float().T).norm()).item())
                calls = _calls_for(M, N, K)
                for fn in (ours, ref):
                    _event_ms(torch, fn, sets, max(3, calls // 4))  # warm-up
                t, r = _alternate(lambda: _event_ms(torch, ours, sets, calls), lambda: _event_ms(torch, ref, sets, calls),
                                  rounds)
                rows.append(dict(path=path, M=M, N=N, K=K, dtype=dts, tcgemm_ms=t, ref="torch.matmul", ref_ms=r,
                                 tflops=2.0 * M * N * K / (t * 1e-3) / 1e12, rel_err=ok))
                del sets
    return rows


def graph_rows(torch, rounds, dtypes=("fp16",)):
    rows = []
    for dts in dtypes:
        tdt = torch.float16 if dts == "fp16" else torch.bfloat16
        for M, N, K in GRAPH:
            sets = _sets(torch, M, N, K, tdt, True)
            calls = max(20, min(100, _calls_for(M, N, K)))

            g_ours = _graph_of(torch, lambda x, w, o: matmul(x, w.T, out=o), sets, calls)
            g_ref = _graph_of(torch, lambda x, w, o: torch.matmul(x, w.T, out=o), sets, calls)
            t, r = _alternate(lambda: _replay_ms(torch, g_ours, calls), lambda: _replay_ms(torch, g_ref, calls), rounds)
            eager = _event_ms(torch, lambda x, w, o: matmul(x, w.T, out=o), sets, calls)
            # The kernel alone on the same buffers (raw pointers, one event pair per launch):
            # under replay a call should cost what its kernel costs.
            rot = [(x.data_ptr(), w.data_ptr(), o.data_ptr()) for x, w, o in sets]
            kms = _core.time_gemm("auto", rot, M, N, K, K, K, N, _core.DType.float16 if dts == "fp16" else
                                  _core.DType.bfloat16, _core.Layout.TN, _core.Accum.f32, True, 3, calls, 0)
            rows.append(dict(path="graph", M=M, N=N, K=K, dtype=dts, tcgemm_ms=t, ref="torch.matmul (graph)",
                             ref_ms=r, eager_ms=eager, kernel_ms=float(np.median(kms)),
                             tflops=2.0 * M * N * K / (t * 1e-3) / 1e12))
            del g_ours, g_ref, sets
    return rows


def ragged_rows(torch, rounds, dtypes=("fp16",)):
    rows = []
    for dts in dtypes:
        tdt = torch.float16 if dts == "fp16" else torch.bfloat16
        for M, N, K in ragged_shapes():
            for layout in ("NN", "TN"):
                # x @ w (w: K x N, ld N) or x @ w.T (w: N x K, ld K); out= M x N, ld N
                sets = [(x, w if layout == "TN" else w.T.contiguous(), o) for x, w, o in _sets(torch, M, N, K, tdt, True)]
                b_of = (lambda w: w.T) if layout == "TN" else (lambda w: w)
                ours = lambda x, w, o: matmul(x, b_of(w), out=o)  # noqa: E731
                ref = lambda x, w, o: torch.matmul(x, b_of(w), out=o)  # noqa: E731
                x, w, o = sets[0]
                ours(x, w, o)
                want = torch.matmul(x.double(), b_of(w).double())
                err = float(((o.double() - want).norm() / want.norm()).item())
                calls = max(10, min(100, _calls_for(M, N, K)))
                for fn in (ours, ref):
                    _event_ms(torch, fn, sets, 3)  # warm-up
                t, r = _alternate(lambda: _event_ms(torch, ours, sets, calls), lambda: _event_ms(torch, ref, sets, calls),
                                  rounds)
                rows.append(dict(path="ragged", variant=f"{layout} loop", M=M, N=N, K=K, dtype=dts, tcgemm_ms=t,
                                 ref="torch.matmul", ref_ms=r, tflops=2.0 * M * N * K / (t * 1e-3) / 1e12, rel_err=err))
                g_ours, g_ref = _graph_of(torch, ours, sets, calls), _graph_of(torch, ref, sets, calls)
                t, r = _alternate(lambda: _replay_ms(torch, g_ours, calls), lambda: _replay_ms(torch, g_ref, calls),
                                  rounds)
                rows.append(dict(path="ragged", variant=f"{layout} graph", M=M, N=N, K=K, dtype=dts, tcgemm_ms=t,
                                 ref="torch.matmul (graph)", ref_ms=r, tflops=2.0 * M * N * K / (t * 1e-3) / 1e12,
                                 rel_err=err))
                del g_ours, g_ref, sets
    return rows


def bandwidth(torch, nbytes=256 << 20, reps=5):
    """Host <-> device GB/s of one cudaMemcpy, for pageable (NumPy) and pinned
    host memory, into and out of buffers already touched: the machine's rate
    for each kind of host memory, the yardstick of the `numpy` rows."""
    dev = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    out = {}
    for kind, host in (("pageable", np.ones(nbytes, np.uint8)), ("pinned", empty_pinned(nbytes, np.uint8))):
        host[...] = 1
        hp = host.__array_interface__["data"][0]
        for direction in ("h2d", "d2h"):
            dst, src = (dev.data_ptr(), hp) if direction == "h2d" else (hp, dev.data_ptr())
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                _core.copy_bytes(dst, src, nbytes, 0)
                ts.append(time.perf_counter() - t0)
            out[f"{kind}_{direction}_gbps"] = nbytes / float(np.median(ts)) / 1e9
    return out


def numpy_rows(torch, rounds, bw):
    rows = []
    try:
        import cupy as cp
    except Exception:
        cp = None
    rng = np.random.default_rng(1)
    for S in NUMPY:
        a = rng.uniform(-1, 1, (S, S)).astype(np.float16)
        b = rng.uniform(-1, 1, (S, S)).astype(np.float16)
        up, down = 2 * S * S * 2, S * S * 2
        bound_pageable = (up / bw["pageable_h2d_gbps"] + down / bw["pageable_d2h_gbps"]) / 1e6
        bound_pinned = (up / bw["pinned_h2d_gbps"] + down / bw["pinned_d2h_gbps"]) / 1e6
        ref64 = None

        def wall_ms(fn, reps=3):
            fn()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
            return float(np.median(ts)) * 1e3

        y = matmul(a, b)
        sample = slice(0, 256)
        ref64 = a[sample].astype(np.float64) @ b.astype(np.float64)
        err = float(np.linalg.norm(y[sample].astype(np.float64) - ref64) / np.linalg.norm(ref64))
        refs = [("torch round trip", lambda: (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy())]
        if cp is not None:
            refs.insert(0, ("cupy round trip", lambda: cp.asnumpy(cp.asarray(a) @ cp.asarray(b))))
        for name, ref in refs:
            t, r = _alternate(lambda: wall_ms(lambda: matmul(a, b)), lambda: wall_ms(ref), rounds)
            rows.append(dict(path="numpy", variant="pageable", M=S, N=S, K=S, dtype="fp16", tcgemm_ms=t, ref=name,
                             ref_ms=r, bound_ms=bound_pageable, rel_err=err))
        pa, pb, pc = empty_pinned((S, S), np.float16), empty_pinned((S, S), np.float16), empty_pinned((S, S), np.float16)
        pa[...], pb[...] = a, b
        ta, tb = torch.from_numpy(pa), torch.from_numpy(pb)
        tc = torch.from_numpy(pc)

        def torch_pinned():
            tc.copy_(ta.cuda(non_blocking=True) @ tb.cuda(non_blocking=True))

        t, r = _alternate(lambda: wall_ms(lambda: matmul(pa, pb, out=pc)), lambda: wall_ms(torch_pinned), rounds)
        rows.append(dict(path="numpy", variant="pinned", M=S, N=S, K=S, dtype="fp16", tcgemm_ms=t,
                         ref="torch round trip (pinned)", ref_ms=r, bound_ms=bound_pinned))
        del pa, pb, pc, ta, tb, tc
    return rows


def run(rounds=5, parts=("overhead", "kernel", "graph", "ragged", "numpy"), log=print):
    torch = _torch()
    from .timing import environment

    class _B:
        version = f"torch {torch.__version__}, CUDA {torch.version.cuda}"

    res = {"environment": environment(_B()), "rows": []}
    bw = bandwidth(torch)
    res["environment"]["pcie"] = bw
    log(f"host<->device: {bw}")
    for part, fn in (("overhead", lambda: overhead_rows(torch, rounds)), ("kernel", lambda: kernel_rows(torch, rounds)),
                     ("graph", lambda: graph_rows(torch, rounds)), ("ragged", lambda: ragged_rows(torch, rounds)),
                     ("numpy", lambda: numpy_rows(torch, rounds, bw))):
        if part in parts:
            rows = fn()
            for r in rows:
                log(log_line(r))
            res["rows"] += rows
    return res


def main(args) -> int:
    import json
    from .report import write_results
    if args.replot:
        with open(args.replot) as f:
            write_results(json.load(f), args, to_markdown, plot, fresh=False)
        return 0
    if _core.device_count() == 0:
        print("tcgemm bench --user-path: no CUDA device was found; nothing to time.")
        return 1
    parts = tuple(args.user_parts) if getattr(args, "user_parts", None) else ("overhead", "kernel", "graph", "ragged",
                                                                             "numpy")
    res = run(rounds=args.paired or 5, parts=parts)
    write_results(res, args, to_markdown, plot)
    return 0


def profile_call(M=64, N=64, K=64, calls=2000, top=18):
    """Where the host time of a small torch call goes: per-call host µs of
    tcgemm.matmul and torch.matmul (out= and new output), then cProfile's
    top entries for tcgemm.matmul(x, w.T, out=o)."""
    import cProfile
    import pstats
    torch = _torch()
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = torch.randn(N, K, device="cuda", dtype=torch.float16)
    o = torch.empty(M, N, device="cuda", dtype=torch.float16)
    for name, fn in (("tcgemm out=", lambda: matmul(x, w.T, out=o)), ("torch out=", lambda: torch.matmul(x, w.T, out=o)),
                     ("tcgemm new", lambda: matmul(x, w.T)), ("torch new", lambda: torch.matmul(x, w.T))):
        best = []
        for _ in range(5):
            fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls // 5):
                fn()
            best.append((time.perf_counter() - t0) / (calls // 5) * 1e6)
            torch.cuda.synchronize()
        print(f"{name}: {min(best):.1f} us/call (median {float(np.median(best)):.1f})")
    y = matmul(x, w.T)
    print("max |tcgemm - torch|:", float((y.float() - torch.matmul(x, w.T).float()).abs().max()))
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        matmul(x, w.T, out=o)
    pr.disable()
    torch.cuda.synchronize()
    pstats.Stats(pr).sort_stats("tottime").print_stats(top)
    print(f"one tensor-map encode: {_core.time_tensor_map_encode(2000):.0f} ns")
