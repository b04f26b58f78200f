"""FP8: ``tcgemm.scaled_matmul`` beside ``torch._scaled_mm`` in one run.

    python -m tcgemm bench --fp8 [--fp8-parts squares random llm decode deepgemm] [--fp8-kernels all]
                               --json r.json --md r.md

Every row is one shape, one scale mode, one tcgemm kernel (``auto``, and on
the squares each Hopper entry of the mode; ``--fp8-kernels all``: on every
part) and one way of summing (``accumulate``: ``fast``, torch's
``use_fast_accum=True``, or ``f32``; ``auto`` runs both for tensor-wise and
row-wise scales, a named entry the one it keeps), output bf16, operands e4m3 quantized from uniform(-1, 1) data by
``tcgemm.quantize_fp8`` (``x @ w.T``: the weight N x K, the TN layout FP8
wgmma takes). Timed in GPU time (each chunk of calls queued behind a spin
kernel, inputs rotated past the L2), in alternating rounds with, in the same
rounds and on the same buffers:

* ``torch._scaled_mm`` with ``use_fast_accum=True`` (``fast``: FP8 sums kept
  in the tensor core's accumulator, as ``sm90.ws_fp8`` does) and ``False``
  (``default``: cuBLASLt's promoted sums) -- tensor-wise and row-wise modes;
  torch has no block mode;
* ``tcgemm.matmul`` on the same shape in bf16 (the speed-up FP8 gives);
* with ``--fp8-deepgemm``, on block-scaled rows, DeepGEMM's ``fp8_gemm_nt`` where its package
  imports (``deep_gemm``, e.g. the ``sgl-deep-gemm`` wheel): the same operands, its scale layout
  prepared once per buffer set outside the timing (``transform_sf_into_required_layout``), its JIT
  compile inside the warm-up.

Each row also records the error against a float64 reference of the
dequantized inputs (relative Frobenius norm over up to 256 rows), tcgemm's
and torch's on the same inputs; the block rows the figure DeepGEMM publishes
for the shape (an H800's, its README); the decode rows the time the bytes
take at the device-to-device bandwidth measured in the run.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .._fp8 import BLOCK
from .references import TorchBackend
from .shapes import L2_BYTES, geomean

PARTS = ("squares", "random", "llm", "decode", "deepgemm")
SQUARES = [4096, 8192, 16384]
# x @ w.T against weights (N, K) of Llama-3-8B/70B-like layers.
LLM_WEIGHTS = [(4096, 4096), (6144, 4096), (14336, 4096), (4096, 14336), (28672, 8192), (8192, 28672)]
LLM_M = [16, 128, 4096]
DECODE_M = [1, 16, 64, 128]
DECODE_WEIGHTS = [(4096, 4096), (14336, 4096), (4096, 14336), (7168, 16384)]
# DeepGEMM's "normal GEMMs for dense models" table, block-scaled FP8 on an H800 SXM5 with NVCC 12.8:
# (M, N, K) -> TFLOPS, the last table its README published (github.com/deepseek-ai/DeepGEMM, README of
# 2025-04-09; later READMEs quote only a peak, 1550 TFLOPS, with no table).
DEEPGEMM_H800 = {
    (64, 2112, 7168): 206, (64, 24576, 1536): 289, (64, 32768, 512): 219, (64, 7168, 16384): 336,
    (64, 4096, 7168): 287, (64, 7168, 2048): 295,
    (128, 2112, 7168): 352, (128, 24576, 1536): 535, (128, 32768, 512): 358, (128, 7168, 16384): 645,
    (128, 4096, 7168): 533, (128, 7168, 2048): 510,
    (4096, 2112, 7168): 1127, (4096, 24576, 1536): 1212, (4096, 32768, 512): 775, (4096, 7168, 16384): 1520,
    (4096, 4096, 7168): 1410, (4096, 7168, 2048): 1168,
}
ADA = ["sm89.fp8_mma_8w.s4", "sm89.fp8_mma.s3"]
# The Hopper entries of each scale mode, timed beside auto on the squares (and on every part with
# --fp8-kernels all): where auto's FP8 rules (sm90/heuristics.cpp) come from.
_TENSOR_ROW = ["sm90.ws_fp8", "sm90.ws_fp8.mcast", "sm90.ws_fp8.wide", "sm90.ws_fp8.tile192", "sm90.ws_fp8.pingpong",
               "sm90.ws_fp8.splitk", "sm90.ws_fp8.dsmem",
               "sm90.ws_fp8.swap", "sm90.ws_fp8.promoted", "sm90.ws_fp8.promoted.dsmem", "sm90.ws_fp8.promoted.overlap",
               "sm90.ws_fp8.promoted.wide", "sm90.ws_fp8.promoted.mcast"]
HOPPER = {"tensor": _TENSOR_ROW, "rowwise": _TENSOR_ROW,
          "block": ["sm90.ws_fp8.block", "sm90.ws_fp8.block.dsmem", "sm90.ws_fp8.block.overlap", "sm90.ws_fp8.block.wide",
                    "sm90.ws_fp8.block.mcast", "sm90.ws_fp8.block.overlap.scale_warp"]}


def random_shapes(seed, count=8):
    """M, N, K uniform in 256-8192, each a multiple of 16 (what torch._scaled_mm takes)."""
    rng = np.random.default_rng(seed)
    return [tuple(int(v) for v in rng.integers(16, 513, size=3) * 16) for _ in range(count)]


def sums_fast(kernel):
    """Whether a named entry keeps the fast sum (use_fast_accum=True): the Hopper entries that do not
    promote. The promoting ones, block scales and Ada sum in fp32."""
    return kernel.startswith("sm90.") and "block" not in kernel and "promoted" not in kernel


def jobs(parts, seeds, every=False, sums=("fast", "f32"), modes=("tensor", "rowwise", "block")):
    """-> [(part, seed or None, M, N, K, mode, kernel, fast)]: what each part times. every: each Hopper
    entry of the mode (HOPPER) beside auto on every part, not only the squares. auto runs each of
    `sums` (fast: use_fast_accum=True, f32: False) for tensor-wise and row-wise scales; block scales
    always promote. modes: the scale modes timed."""
    for s in sums:
        if s not in ("fast", "f32"):
            raise ValueError(f"unknown FP8 sum '{s}' (fast or f32)")
    out = []

    def kernels(mode):
        return ["auto"] + (HOPPER[mode] if every else [])

    def runs(part, seed, M, N, K, mode, ks):
        if mode not in modes:
            return
        for k in ks:
            if k == "auto" and mode != "block":
                out.extend((part, seed, M, N, K, mode, k, s == "fast") for s in sums)
            else:
                out.append((part, seed, M, N, K, mode, k, sums_fast(k)))

    for part in parts:
        if part == "squares":
            for s in SQUARES:
                for mode in ("tensor", "rowwise", "block"):
                    runs(part, None, s, s, s, mode, ["auto"] + HOPPER[mode] + (ADA if mode != "block" and s <= 8192
                                                                               else []))
        elif part == "random":
            for seed in seeds:
                for M, N, K in random_shapes(seed):
                    for mode in ("tensor", "rowwise"):
                        runs(part, seed, M, N, K, mode, kernels(mode))
        elif part == "llm":
            for N, K in LLM_WEIGHTS:
                for M in LLM_M:
                    for mode in ("tensor", "rowwise", "block"):
                        runs(part, None, M, N, K, mode, kernels(mode))
        elif part == "decode":
            for N, K in DECODE_WEIGHTS:
                for M in DECODE_M:
                    for mode in ("rowwise", "block"):
                        runs(part, None, M, N, K, mode, kernels(mode))
        elif part == "deepgemm":
            for (M, N, K) in DEEPGEMM_H800:
                runs(part, None, M, N, K, "block", kernels("block"))
        else:
            raise ValueError(f"unknown FP8 part '{part}' (one of {', '.join(PARTS)})")
    return out


class _Operands:
    """Rotating sets of quantized operands for one shape and mode, and their
    float64 dequantized reference on a row sample (of the first set)."""

    def __init__(self, torch, M, N, K, mode):
        from .. import quantize_fp8

        t = torch
        self.t = t
        qa = {"tensor": "tensor", "rowwise": "row", "block": (1, BLOCK)}[mode]
        qb = {"tensor": "tensor", "rowwise": "row", "block": (BLOCK, BLOCK)}[mode]
        per = M * K + N * K + M * N * 2
        n = max(1, min(8, -(-3 * L2_BYTES // per)))
        self.sets = []
        for i in range(n):
            x = t.empty((M, K), device="cuda", dtype=t.float32).uniform_(-1, 1)
            w = t.empty((N, K), device="cuda", dtype=t.float32).uniform_(-1, 1)
            a, sa = quantize_fp8(x, block=qa)
            b, sb = quantize_fp8(w, block=qb)
            if mode == "rowwise":
                sb = sb.reshape(1, N)  # torch._scaled_mm's (1, N) for B = w.T
            out = t.empty((M, N), device="cuda", dtype=t.bfloat16)
            self.sets.append((a, b.t(), sa.contiguous(), sb.contiguous(), out))
            if i == 0:
                rows = min(M, 256)
                self.ref = (self._dequant(a[:rows], sa[:rows] if mode != "tensor" else sa, mode, "a")
                            @ self._dequant(b, sb, mode, "b").T)
            del x, w
        self.rows = min(M, 256)

    def _dequant(self, q, s, mode, which):
        t = self.t
        q = q.double()
        s = s.double()
        if mode == "tensor":
            return q * s
        if mode == "rowwise":
            return q * s.reshape(-1, 1)
        rows, cols = q.shape
        if which == "a":  # (rows, ceil(K/128)): one per row per 128 columns
            return q * s.repeat_interleave(BLOCK, dim=1)[:, :cols]
        return q * s.repeat_interleave(BLOCK, dim=0).repeat_interleave(BLOCK, dim=1)[:rows, :cols]

    def err(self, got):
        t = self.t
        g = got[: self.rows].double()
        if not bool(t.isfinite(g).all()):
            return float("inf")
        return float((t.linalg.vector_norm(g - self.ref) / t.linalg.vector_norm(self.ref)).item())


def _calls(M, N, K):
    return int(min(64, max(8, 3e13 / max(2.0 * M * N * K, 1.0))))  # ~15-30 ms of work per round


def d2d_bandwidth(torch, nbytes=1 << 30, reps=5):
    """Device-to-device copy rate (GB/s, bytes read + written): the yardstick of the decode rows."""
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record()
        dst.copy_(src)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return 2 * nbytes / (float(np.median(ts)) * 1e-3) / 1e9


def deepgemm_module():
    """-> (DeepGEMM's module, its version) where ``deep_gemm`` imports, else (None, why not): the error
    and the one it was raised from (``torch.ops.load_library`` says only "Could not load this library";
    the loader's own message, e.g. which shared library it did not find, is the cause)."""
    try:
        import deep_gemm
    except Exception as exc:  # not installed, or built for another torch / CUDA
        def line(e):
            return str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        why = f"deep_gemm does not import: {line(exc)}"
        if exc.__cause__ is not None:
            why += f" (from: {line(exc.__cause__)})"
        return None, why
    return deep_gemm, getattr(deep_gemm, "__version__", "unknown")


def _deepgemm_sets(dg, sets, M, N, K):
    """DeepGEMM's arguments per buffer set: A, W (N x K), the scales in its required layout (prepared
    here, outside the timing; as given where its transform is missing), the output."""
    out = []
    for a, b, sa, sb, o in sets:
        w = b.t()
        try:
            tsa = dg.transform_sf_into_required_layout(sa, M, K, (1, BLOCK, BLOCK), is_sfa=True)
            tsb = dg.transform_sf_into_required_layout(sb, N, K, (1, BLOCK, BLOCK), is_sfa=False)
        except Exception:
            tsa, tsb = sa, sb
        out.append((a, w, tsa, tsb, o))
    return out


def run_fp8(parts=PARTS, seeds=(51, 52), rounds=4, progress=True, bf16_baseline=True, every=False,
            sums=("fast", "f32"), modes=("tensor", "rowwise", "block"), deepgemm=False, checkpoint=None):
    import torch

    from .. import matmul, scaled_matmul

    be = TorchBackend(torch)
    bw = d2d_bandwidth(torch)
    rows = []
    cache = {}
    dg, dg_version = deepgemm_module() if deepgemm else (None, None)
    extra = {"d2d_gbps": bw}
    if deepgemm:
        extra["deepgemm"] = dg_version
    # After each job, the rows so far (report.Checkpoint: a run cut off keeps them).
    save = (lambda: checkpoint(rows, summary=summary(rows), **extra)) if checkpoint else (lambda: None)
    if deepgemm and progress:
        print(f"  DeepGEMM: {dg_version}", flush=True)
    for part, seed, M, N, K, mode, kernel, fast in jobs(parts, seeds, every, sums, modes):
        key = (M, N, K, mode)
        if key not in cache:
            cache.clear()
            torch.cuda.empty_cache()
            cache[key] = _Operands(torch, M, N, K, mode)
        ops = cache[key]
        sets = ops.sets
        flops = 2.0 * M * N * K
        row = dict(part=part, M=M, N=N, K=K, mode=mode, kernel=kernel, accumulate="fast" if fast else "f32",
                   out_dtype="bf16")
        if seed is not None:
            row["seed"] = seed

        def ours(a, b, sa, sb, out):
            scaled_matmul(a, b, sa, sb, out_dtype=torch.bfloat16, out=out, kernel=kernel, use_fast_accum=fast)

        fns = {"tcgemm": (ours, sets)}  # name -> (call, its rotation of argument sets)
        if mode != "block":
            for name, torch_fast in (("fast", True), ("default", False)):  # (not `fast`: ours reads that)
                fns[name] = ((lambda f: lambda a, b, sa, sb, out: torch._scaled_mm(
                    a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=f))(torch_fast), sets)
        if dg is not None and mode == "block" and kernel == "auto":
            fns["deepgemm"] = (lambda a, w, sa, sb, out: dg.fp8_gemm_nt((a, sa), (w, sb), out),
                               _deepgemm_sets(dg, sets, M, N, K))
        bf = None
        if bf16_baseline and mode == "tensor" and kernel == "auto" and (fast or "fast" not in sums):
            bf = [(a.to(torch.bfloat16), b.t().to(torch.bfloat16)) for a, b, *_ in sets]  # x, w (N x K)
            fns["bf16"] = (lambda x, w: matmul(x, w.T), bf)
        # Correctness first: a poisoned output, then each side's error on the same inputs.
        try:
            a, b, sa, sb, out = sets[0]
            out.fill_(float("nan"))
            ours(a, b, sa, sb, out)
            row["err"] = ops.err(out)
        except Exception as exc:  # an entry that refuses the mode: recorded, not timed
            row["status"] = f"error: {exc}"
            rows.append(row)
            save()
            if progress:
                print(f"  {part} {M}x{N}x{K} {mode} {kernel}: {row['status']}", flush=True)
            continue
        for name in ("fast", "default"):
            if name in fns:
                try:
                    row[f"torch_{name}_err"] = ops.err(fns[name][0](*sets[0]))
                except Exception as exc:
                    row[f"torch_{name}_error"] = str(exc).splitlines()[0][:200]
                    del fns[name]
        if "deepgemm" in fns:  # its own poisoned output, its error on the same inputs
            try:
                dga = fns["deepgemm"][1][0]
                dga[4].fill_(float("nan"))
                fns["deepgemm"][0](*dga)
                row["deepgemm_err"] = ops.err(dga[4])
            except Exception as exc:
                row["deepgemm_error"] = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                del fns["deepgemm"]
        calls = _calls(M, N, K)
        times = {name: [] for name in fns}
        for fn, rot in fns.values():  # warm-up
            be.time_queued(fn, rot, 2, 2)
        for _ in range(rounds):
            for name, (fn, rot) in fns.items():
                times[name] += be.time_queued(fn, rot, 0, calls)
        med = {name: float(np.median(v)) for name, v in times.items()}
        row["median_ms"] = med["tcgemm"]
        row["tflops"] = flops / (med["tcgemm"] * 1e-3) / 1e12
        for name in ("fast", "default"):
            if name in med:
                row[f"torch_{name}_ms"] = med[name]
                row[f"vs_torch_{name}"] = med[name] / med["tcgemm"]
        if "bf16" in med:
            row["bf16_ms"] = med["bf16"]
            row["speedup_over_bf16"] = med["bf16"] / med["tcgemm"]
        if (M, N, K) in DEEPGEMM_H800 and mode == "block":
            row["deepgemm_h800_tflops"] = DEEPGEMM_H800[(M, N, K)]
        if "deepgemm" in med:
            row["deepgemm_ms"] = med["deepgemm"]
            row["deepgemm_tflops"] = flops / (med["deepgemm"] * 1e-3) / 1e12
            row["vs_deepgemm"] = med["deepgemm"] / med["tcgemm"]
        if part == "decode":
            nbytes = M * K + N * K + M * N * 2 + 4 * (M + N) * math.ceil(K / BLOCK)
            row["bound_ms"] = nbytes / (bw * 1e9) * 1e3
            row["of_bound"] = row["bound_ms"] / med["tcgemm"]
        rows.append(row)
        save()
        if progress:
            print("  " + log_line(row), flush=True)
        del bf
    cache.clear()
    torch.cuda.empty_cache()
    return rows, extra


def log_line(r):
    s = f"{r['part']} {r['M']}x{r['N']}x{r['K']} {r['mode']} {r['kernel']} ({r.get('accumulate', 'f32')}): "
    if "tflops" not in r:
        return s + r.get("status", "")
    s += f"{r['tflops']:.0f} TFLOPS, err {r['err']:.2e}"
    for name in ("fast", "default"):
        if f"vs_torch_{name}" in r:
            s += f", vs _scaled_mm {name} {r[f'vs_torch_{name}']:.3f}x (err {r[f'torch_{name}_err']:.2e})"
    if "speedup_over_bf16" in r:
        s += f", {r['speedup_over_bf16']:.2f}x bf16"
    if "of_bound" in r:
        s += f", {r['of_bound']:.2f} of the memory bound"
    if "vs_deepgemm" in r:
        s += f", vs DeepGEMM {r['vs_deepgemm']:.3f}x ({r['deepgemm_tflops']:.0f} TFLOPS, err {r['deepgemm_err']:.2e})"
    elif "deepgemm_error" in r:
        s += f", DeepGEMM: {r['deepgemm_error']}"
    return s


def summary(rows):
    """Geomeans per part, mode, kernel and sum: tcgemm against torch._scaled_mm (fast and default
    accumulation; a fast row's pair is torch's fast, an f32 row's torch's default)."""
    out = []

    def key(r):
        return r["part"], r["mode"], r["kernel"], r.get("accumulate", "f32")

    for part, mode, kernel, acc in sorted({key(r) for r in rows if "tflops" in r}):
        sel = [r for r in rows if key(r) == (part, mode, kernel, acc) and "tflops" in r]
        d = dict(part=part, mode=mode, kernel=kernel, accumulate=acc, rows=len(sel))
        for name in ("fast", "default"):
            v = [r[f"vs_torch_{name}"] for r in sel if f"vs_torch_{name}" in r]
            if v:
                d[f"vs_torch_{name}_geomean"] = geomean(v)
                d[f"vs_torch_{name}_worst"] = min(v)
        v = [r["speedup_over_bf16"] for r in sel if "speedup_over_bf16" in r]
        if v:
            d["speedup_over_bf16_geomean"] = geomean(v)
        v = [r["of_bound"] for r in sel if "of_bound" in r]
        if v:
            d["of_bound_geomean"] = geomean(v)
        v = [r["vs_deepgemm"] for r in sel if "vs_deepgemm" in r]
        if v:
            d["vs_deepgemm_geomean"], d["vs_deepgemm_worst"] = geomean(v), min(v)
        out.append(d)
    return out


def _f(v, fmt):
    return "" if v is None else format(v, fmt)


def to_markdown(res) -> str:
    from .provenance import provenance_markdown
    from .report import environment_lines, partial_line

    env = res["environment"]
    lines = ["# tcgemm FP8 benchmark: scaled_matmul beside torch._scaled_mm", ""] + environment_lines(env)
    lines += partial_line(res)
    lines += provenance_markdown(env)
    if "deepgemm" in res:
        lines.append(f"- DeepGEMM (fp8_gemm_nt, timed beside the block rows): {res['deepgemm']}")
    lines += [f"- device-to-device copy: {res['d2d_gbps']:.0f} GB/s (the decode rows' memory bound)",
              "- operands e4m3 from uniform(-1, 1) by tcgemm.quantize_fp8, output bf16, x @ w.T (TN); GPU time per "
              "call (queued behind a spin kernel), inputs rotated past the L2; tcgemm, torch._scaled_mm (fast = "
              "use_fast_accum=True, default = False) and tcgemm's bf16 matmul timed in alternating rounds on the same "
              "buffers; a ratio above 1 means tcgemm is faster",
              "- err: relative Frobenius error against a float64 reference of the dequantized inputs (up to 256 rows)",
              "", "## Summary", "",
              "- sums: fast = use_fast_accum=True (FP8 wgmma's accumulator over the whole K), f32 = False (fp32 "
              "sums: promoted on Hopper); compare a fast row with _scaled_mm fast, an f32 row with default",
              "", "| part | mode | kernel | sums | rows | vs _scaled_mm fast (geomean, worst) | vs default (geomean, worst) "
              "| FP8 / bf16 | of memory bound | vs DeepGEMM here (geomean, worst) |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for d in res["summary"]:
        def pair(name):
            g = d.get(f"vs_{name}_geomean")
            return "" if g is None else f"{g:.3f}x, {d[f'vs_{name}_worst']:.3f}x"
        lines.append(f"| {d['part']} | {d['mode']} | {d['kernel']} | {d['accumulate']} | {d['rows']} | "
                     f"{pair('torch_fast')} | {pair('torch_default')} | "
                     f"{_f(d.get('speedup_over_bf16_geomean'), '.2f')} | {_f(d.get('of_bound_geomean'), '.2f')} | "
                     f"{pair('deepgemm')} |")
    lines += ["", "## Rows", "",
              "| part | shape (MxNxK) | mode | kernel | sums | TFLOPS | ms | err | vs fast | fast err | vs default | "
              "default err | FP8 / bf16 | DeepGEMM H800 TFLOPS | DeepGEMM here TFLOPS | vs it | its err | "
              "of memory bound | status |",
              "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in res["rows"]:
        shape = (f"s{r['seed']}: " if "seed" in r else "") + f"{r['M']}x{r['N']}x{r['K']}"
        lines.append(
            f"| {r['part']} | {shape} | {r['mode']} | {r['kernel']} | {r.get('accumulate', 'f32')} | "
            f"{_f(r.get('tflops'), '.0f')} | "
            f"{_f(r.get('median_ms'), '.4f')} | {_f(r.get('err'), '.2e')} | {_f(r.get('vs_torch_fast'), '.3f')} | "
            f"{_f(r.get('torch_fast_err'), '.2e')} | {_f(r.get('vs_torch_default'), '.3f')} | "
            f"{_f(r.get('torch_default_err'), '.2e')} | {_f(r.get('speedup_over_bf16'), '.2f')} | "
            f"{_f(r.get('deepgemm_h800_tflops'), '.0f')} | {_f(r.get('deepgemm_tflops'), '.0f')} | "
            f"{_f(r.get('vs_deepgemm'), '.3f')} | {_f(r.get('deepgemm_err'), '.2e')} | {_f(r.get('of_bound'), '.2f')} | "
            f"{r.get('status', 'ok')} |")
    return "\n".join(lines) + "\n"


def plot(res, out_dir) -> list:
    """Two panels against problem size (2MNK): `auto`'s paired ratio to torch._scaled_mm for tensor-wise and
    row-wise scales (a fast row against torch's fast sums, an f32 row against its default), and the
    block-scaled rows' TFLOPS beside DeepGEMM's (its published H800 table, and a build timed here where there
    is one). A colour per scale mode and sums, a marker per part (fp8_vs_size.png)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    os.makedirs(out_dir, exist_ok=True)
    rows = [r for r in res["rows"] if r["kernel"] == "auto" and "tflops" in r]
    parts = list(dict.fromkeys(r["part"] for r in rows))
    markers = dict(zip(parts, "osD^vP*X"))
    flops = lambda r: 2.0 * r["M"] * r["N"] * r["K"]  # noqa: E731
    block = [r for r in rows if r["mode"] == "block"]
    # A run with no block-scaled rows (--fp8-modes tensor rowwise) draws the left panel alone: the right one
    # would have nothing to put on its log axis.
    if block:
        fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    else:
        fig, left = plt.subplots(1, 1, figsize=(8, 5.5))
    series = [(m, a) for m in ("tensor", "rowwise") for a in ("fast", "f32")]
    colours = {key: plt.cm.tab10(i) for i, key in enumerate(series)}
    handles = []
    for mode, acc in series:
        pair = "vs_torch_fast" if acc == "fast" else "vs_torch_default"
        sel = [r for r in rows if r["mode"] == mode and r.get("accumulate") == acc and pair in r]
        for part in parts:
            mine = [r for r in sel if r["part"] == part]
            if mine:
                left.scatter([flops(r) for r in mine], [r[pair] for r in mine], marker=markers[part],
                             color=colours[(mode, acc)], s=26, alpha=0.85)
        if sel:
            handles.append(Line2D([], [], marker="o", linestyle="", color=colours[(mode, acc)],
                                  label=f"{mode}, {acc} sums (vs torch {'fast' if acc == 'fast' else 'default'})"))
    left.axhline(1.0, color="black", linewidth=1)
    left.set_ylabel("tcgemm auto vs torch._scaled_mm, paired (above 1: faster)")
    if block:
        for part in parts:
            mine = [r for r in block if r["part"] == part]
            if mine:
                right.scatter([flops(r) for r in mine], [r["tflops"] for r in mine], marker=markers[part],
                              color="tab:red", s=26, alpha=0.85)
        for key, colour, label in (("deepgemm_h800_tflops", "black", "DeepGEMM, published (H800)"),
                                   ("deepgemm_tflops", "tab:blue", "DeepGEMM, timed here")):
            mine = [r for r in block if r.get(key)]
            if mine:
                right.scatter([flops(r) for r in mine], [r[key] for r in mine], marker="_", color=colour, s=120)
                right.scatter([], [], marker="_", color=colour, label=label)
        right.scatter([], [], marker="o", color="tab:red", label="tcgemm auto, block scales")
        right.set_yscale("log")
        right.set_ylabel("TFLOPS, block scales (1 x 128 / 128 x 128)")
        right.legend(fontsize=7, loc="lower right")
    handles += [Line2D([], [], marker=markers[p], linestyle="", color="grey", label=p) for p in parts]
    left.legend(handles=handles, fontsize=7, loc="best")
    for ax in (left, right) if block else (left,):
        ax.set_xscale("log")
        ax.set_xlabel("problem size, FLOPs (2MNK)")
        ax.grid(True, alpha=0.3)
    env = res["environment"]
    fig.suptitle(f"{env.get('gpu')}: tcgemm.scaled_matmul, FP8 e4m3, bf16 output, GPU time")
    path = os.path.join(out_dir, "fp8_vs_size.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def main(args) -> int:
    import json

    from .references import backend_for
    from .report import Checkpoint, write_results
    from .timing import environment

    if args.replot:  # the table and plot of a saved run, no GPU needed
        with open(args.replot) as f:
            write_results(json.load(f), args, to_markdown, plot, fresh=False)
        return 0
    parts = args.fp8_parts or list(PARTS)
    ckpt = Checkpoint(args.json) if args.json else None
    rows, extra = run_fp8(parts, seeds=args.seed or (51, 52), rounds=max(1, args.paired or 4),
                          every=getattr(args, "fp8_kernels", "auto") == "all",
                          sums=getattr(args, "fp8_sums", None) or ("fast", "f32"),
                          modes=getattr(args, "fp8_modes", None) or ("tensor", "rowwise", "block"),
                          deepgemm=bool(getattr(args, "fp8_deepgemm", False)), checkpoint=ckpt)
    res = {"environment": environment(backend_for()), "rows": rows, "summary": summary(rows), **extra}
    write_results(res, args, to_markdown, plot)
    if ckpt:
        ckpt.done()
    bad = [r for r in rows if r.get("status", "").startswith("error") or not (r.get("err", 0) < 1e-2)]
    return 1 if bad else 0
