"""The user path's tables and plot (user.py measures): one line per row for
the log, the Markdown table, the ratio plot."""
from __future__ import annotations

from .provenance import provenance_markdown

def _shape(r):
    return f"{r['M']}x{r['N']}x{r['K']}"


def log_line(r):
    ratio = r["ref_ms"] / r["tcgemm_ms"] if r["tcgemm_ms"] else float("nan")
    v = f" {r['variant']}" if r.get("variant") else ""
    extra = f" bound {r['bound_ms']:.2f} ms" if "bound_ms" in r else ""
    if "kernel_ms" in r:
        extra += f" kernel alone {r['kernel_ms']:.4f} ms, eager {r['eager_ms']:.4f} ms"
    return (f"{r['path']}{v} {_shape(r)} {r['dtype']}: tcgemm {r['tcgemm_ms']:.4f} ms, {r['ref']} {r['ref_ms']:.4f} ms "
            f"({ratio:.2f}x){extra}")


def to_markdown(res) -> str:
    env = res["environment"]
    bw = env.get("pcie", {})
    prov = provenance_markdown(env)
    lines = [f"# tcgemm: the user path on {env.get('gpu')}", "",
             f"{env.get('date')}; driver {env.get('driver_version')}, {env.get('cublas_via')}, tcgemm "
             f"{env.get('tcgemm', {}).get('version')} built for {','.join(env.get('tcgemm', {}).get('archs', []))}; "
             f"max SM clock {env.get('max_sm_clock')}, power limit {env.get('power_limit')}.", ""] + \
        (prov + [""] if prov else []) + [
             "Host-device bandwidth measured in this run (GB/s): " +
             ", ".join(f"{k.replace('_gbps', '')} {v:.1f}" for k, v in bw.items()), "",
             "`ratio` is the reference's time over tcgemm's (above 1: tcgemm is faster); each pair was timed in "
             "alternating rounds. `overhead` rows are host time per call (ms) in a loop of calls; `torch_*` and "
             "`graph` rows GPU time per call (CUDA events around a loop, inputs rotated past the L2); `numpy` rows "
             "wall time of one NumPy-in, NumPy-out call, with `bound` the time its bytes take through one cudaMemcpy each "
             "way at the bandwidth above (pageable: the driver's own staging, which tcgemm's ring of pinned slots, "
             "filled by several threads while the GEMM runs, can beat); "
             "`ragged` rows: shapes with no dimension a multiple of 8, `out=`, per call in a loop (`loop`: what a Python "
             "caller waits for, host time included) and under graph replay (`graph`: GPU time); "
             "`graph` rows also give the kernel alone (`kernel ms`: raw pointers, CUDA events per launch) and the "
             "eager call in the same loop.",
             "", "| path | variant | M x N x K | dtype | tcgemm ms | reference | ref ms | ratio | TFLOPS | bound ms | "
                 "kernel ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        ratio = r["ref_ms"] / r["tcgemm_ms"] if r["tcgemm_ms"] else float("nan")
        tf = f"{r['tflops']:.0f}" if "tflops" in r else ""
        bd = f"{r['bound_ms']:.2f}" if "bound_ms" in r else ""
        km = f"{r['kernel_ms']:.4f}" if "kernel_ms" in r else ""
        lines.append(f"| {r['path']} | {r.get('variant', '')} | {_shape(r)} | {r['dtype']} | {r['tcgemm_ms']:.4f} | "
                     f"{r['ref']} | {r['ref_ms']:.4f} | {ratio:.2f} | {tf} | {bd} | {km} |")
    return "\n".join(lines) + "\n"


def plot(res, out_dir) -> list:
    """One figure: each row's ratio to its reference (above 1: tcgemm faster),
    grouped by path; NumPy rows also against their bandwidth bound."""
    import os
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = res["rows"]
    groups = [("overhead", "host time per call vs torch.matmul"), ("torch_new", "new output vs torch.matmul"),
              ("torch_out", "out= vs torch.matmul"), ("graph", "CUDA-graph replay vs torch's"),
              ("ragged", "no dimension a multiple of 8 (staged): loop and graph vs torch.matmul"),
              ("numpy", "NumPy round trip vs cupy/torch")]
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, 2.6 * len(groups)))
    for ax, (path, title) in zip(axes, groups):
        rs = [r for r in rows if r["path"] == path]
        labels = [f"{r['M']}x{r['N']}x{r['K']} {r['dtype']} {r.get('variant', '')} {r['ref'].split()[0]}".strip()
                  for r in rs]
        ratios = [r["ref_ms"] / r["tcgemm_ms"] for r in rs]
        ax.bar(range(len(rs)), ratios, color=["tab:green" if x >= 0.95 else "tab:orange" for x in ratios])
        if path == "numpy":
            ax.plot(range(len(rs)), [r["bound_ms"] / r["tcgemm_ms"] for r in rs], "k_", markersize=18,
                    label="bound / tcgemm (above 1: faster than the bytes at the measured bandwidth)")
            ax.legend(fontsize=7, loc="upper left")
        ax.axhline(1.0, color="k", lw=0.8)
        target = {"overhead": (1 / 1.5, "target: at most 1.5x torch's host time"),
                  "numpy": (2.0, "target: 2x faster than cupy's round trip")}.get(path)
        if target:
            ax.axhline(target[0], color="tab:red", lw=0.8, ls="--", label=target[1])
            ax.legend(fontsize=7, loc="upper right")
        ax.set_title(title, fontsize=9)
        ax.set_xticks(range(len(rs)))
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=6)
        ax.set_ylabel("ratio", fontsize=8)
    fig.suptitle(f"tcgemm.matmul as users call it, {res['environment'].get('gpu')} "
                 f"({res['environment'].get('date')}); ratio = reference time / tcgemm time", fontsize=10)
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "user_path.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]
