"""`python -m tcgemm bench ...`: the benchmark's command line; and the
self-check that `python -m tcgemm` runs (every kernel against float64, then a
short table)."""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .. import _core
from .._api import DeviceArray, bfloat16, build_info, device_info, kernels, matmul, to_device
from .features import run_features
from .harness import run
from .plots import plot
from .references import backend_for
from .report import Checkpoint, to_markdown, write_results
from .shapes import DTYPES, PRESETS, parse_shapes
from .timing import environment

_DESCRIPTION = """Every registered kernel beside cuBLAS, in one run (see tcgemm/bench/harness.py
for how it times), or with --user-path what users get through tcgemm.matmul.

    python -m tcgemm bench --preset squares --json out.json --md out.md --plot out_dir
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tcgemm bench", description=_DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", nargs="*", default=[], choices=sorted(PRESETS) + ["random"],
                   help="shape sets; 'random' draws --count jobs per --seed (M, N, K in 256-8192, half of each "
                        "a multiple of 8, dtype and layout drawn from --dtypes and --layouts)")
    p.add_argument("--seed", nargs="*", type=int, default=[], help="seeds of the random preset (default 0)")
    p.add_argument("--count", type=int, default=24, help="random jobs per seed")
    p.add_argument("--aligned-share", type=float, default=0.5, metavar="P",
                   help="random preset: the share of dimensions rounded to a multiple of 8 (1: every shape "
                        "aligned; the same draws per seed whatever P is)")
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
    p.add_argument("--timing", default="auto", choices=["auto", "launch", "queued"],
                   help="queued: GPU time only, calls enqueued behind a spin kernel (needs torch); launch: each "
                        "call waited for, its host launch time in the window (biased: torch's dispatch is longer "
                        "than tcgemm's); auto (default): queued where torch is, else launch")
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
                        "(tcgemm/bench/user.py)")
    p.add_argument("--user-parts", nargs="*", choices=["overhead", "kernel", "graph", "ragged", "numpy"],
                   help="with --user-path: which row kinds (default all)")
    p.add_argument("--fp8", action="store_true",
                   help="time FP8 instead: tcgemm.scaled_matmul beside torch._scaled_mm and tcgemm's bf16 matmul "
                        "(tcgemm/bench/fp8.py); --seed gives the random part's seeds (default 51 52), --paired its "
                        "rounds")
    p.add_argument("--fp8-parts", nargs="*", choices=["squares", "random", "llm", "decode", "deepgemm"],
                   help="with --fp8: which shape sets (default all)")
    p.add_argument("--fp8-kernels", choices=["auto", "all"], default="auto",
                   help="with --fp8: time auto only (the squares also time each Hopper entry), or every Hopper "
                        "FP8 entry of the mode on every part")
    p.add_argument("--fp8-sums", nargs="*", choices=["fast", "f32"],
                   help="with --fp8: the sums auto runs with for tensor-wise and row-wise scales (fast: "
                        "use_fast_accum=True; default both); block scales always promote")
    p.add_argument("--fp8-modes", nargs="*", choices=["tensor", "rowwise", "block"],
                   help="with --fp8: which scale modes (default all)")
    p.add_argument("--fp8-deepgemm", action="store_true",
                   help="with --fp8: also time DeepGEMM's fp8_gemm_nt beside the block-scaled auto rows, where the "
                        "deep_gemm package imports (else each row says why not)")
    args = p.parse_args(argv)
    if args.user_path:
        from . import user
        return user.main(args)
    if args.fp8:
        if _core.device_count() == 0 and not args.replot:
            print("tcgemm bench: no CUDA device was found; nothing to time.", file=sys.stderr)
            return 1
        from . import fp8
        return fp8.main(args)
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
    ckpt = Checkpoint(args.json) if args.json and not args.only_features else None
    if args.only_features:
        res = {"environment": environment(backend_for()), "rows": []}
    else:
        res = run(shapes, args.kernels, args.dtypes, args.layouts, args.accumulate, args.warmup, args.iters,
                  backend=backend_for("none" if args.no_cublas else None), paired_rounds=args.paired,
                  sustain_s=args.sustain, seeds=seeds, count=args.count,
                  aligned=args.aligned_share, timing=args.timing, checkpoint=ckpt)
    if args.features or args.only_features:
        res["feature_rows"] = run_features(warmup=args.warmup, iters=args.iters)
    write_results(res, args, to_markdown, plot)
    if ckpt:
        ckpt.done()
    return 1 if any(r.get("status", "").startswith(("WRONG", "error"))
                    for r in res["rows"] + res.get("feature_rows", [])) else 0



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
                if not k["runnable"] or np.dtype(dt).name not in k["dtypes"]:  # FP8 entries: no fp16/bf16
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
