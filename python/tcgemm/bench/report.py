"""The benchmark's tables: a run's Markdown (environment, one row per job and
kernel, the per-seed summary, the feature rows) and the JSON/Markdown/plot
files a run writes."""
from __future__ import annotations

import json
import os

from .features import features_markdown
from .provenance import provenance_markdown
from .shapes import geomean


def environment_lines(env) -> list:
    """A result file's header bullets: date, GPU, driver, clocks, power limit, the reference's backend."""
    return [f"- {key.replace('_', ' ')}: {env[key]}"
            for key in ("date", "gpu", "driver_version", "max_sm_clock", "power_limit", "cublas_via") if env.get(key)]


def to_markdown(result) -> str:
    env = result["environment"]
    lines = ["# tcgemm benchmark", ""] + environment_lines(env) + partial_line(result)
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
    lines += provenance_markdown(env)
    if env.get("timing") == "queued":
        lines.append("- timing: GPU time per call (each chunk of calls enqueued behind a spin kernel, then run back to "
                     "back between their events)")
    elif env.get("timing") == "launch":
        lines.append("- timing: each call between two events and waited for: the host's launch time (torch's "
                     "dispatch, tcgemm's plan lookup) is inside each window")
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
    minimum (the random preset's figures), over all rows and apart over the
    rows whose M, N, K are all multiples of 8 and those with one that is not;
    rows without a seed count as seed '-' (fixed shapes, all rows only)."""
    groups = {}
    for r in rows:
        v = r.get("vs_cublas_paired")
        if v and not r["kernel"].startswith("cuBLAS"):
            groups.setdefault((r.get("seed", "-"), r["kernel"], "all"), []).append(r)
            # cuBLAS (through torch) runs ragged shapes on slow paths (60-230
            # TFLOPS seen): the rows whose M, N, K are multiples of 8 apart
            # from those with a dimension that is not.
            if "seed" in r:
                aligned = not (r["M"] % 8 or r["N"] % 8 or r["K"] % 8)
                groups.setdefault((r["seed"], r["kernel"], "multiples of 8" if aligned else "not multiples of 8"),
                                  []).append(r)
    out = []
    for (seed, kernel, subset), rs in groups.items():
        w = min(rs, key=lambda r: r["vs_cublas_paired"])
        out.append({"seed": seed, "kernel": kernel, "subset": subset, "rows": len(rs),
                    "geomean": geomean([r["vs_cublas_paired"] for r in rs]),
                    "min": w["vs_cublas_paired"],
                    "worst": f"{w['M']}x{w['N']}x{w['K']} {w['dtype']} {w['layout']}"
                             + (f" ({w['picked']})" if w.get("picked") else "")})
    return out



class Checkpoint:
    """The rows a run has measured so far, rewritten after each job to `<--json>.partial` (its
    environment, the rows, `"partial": true`, and whatever the caller adds): a run stopped at a time
    limit keeps what it finished, and `--replot FILE.partial --md F.md` makes its table. Removed once
    the whole file is written. The writes fall between jobs, outside every timed window."""

    def __init__(self, json_path):
        self.path = json_path + ".partial"
        self.env = None

    def __call__(self, rows, **extra) -> None:
        if self.env is None:
            from .references import backend_for
            from .timing import environment
            self.env = environment(backend_for())
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"environment": self.env, "rows": rows, "partial": True, **extra}, f, indent=1)
        os.replace(tmp, self.path)  # a reader never sees half a file

    def done(self) -> None:
        for p in (self.path, self.path + ".tmp"):
            if os.path.exists(p):
                os.remove(p)


def partial_line(res) -> list:
    """A partial file's warning line for its table's header."""
    return ["- partial: the run stopped before its last job; these are the rows it finished"] \
        if res.get("partial") else []


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
