"""The benchmark's plots: TFLOPS and paired ratio against size for squares,
and the ratio to cuBLAS against problem size for the random preset."""
from __future__ import annotations

import os


def _plot_ratio_vs_size(result, out_dir, plt) -> list:
    """The random preset's rows: each kernel's paired ratio to cuBLAS against
    the problem's FLOPs, a colour per kernel and a marker per seed
    (ratio_vs_size.png). With several kernels `auto` is drawn on top and the
    named configurations faded behind it, so the plot reads as "what auto
    gets, and what else was on offer"."""
    from matplotlib.lines import Line2D

    # Random rows, and rows of a listed set of shapes that are not cubes (the
    # cubes get the TFLOPS plot below): both read as ratio against size.
    rows = [r for r in result["rows"] if r.get("vs_cublas_paired") and
            ("seed" in r or not r["M"] == r["N"] == r["K"])]
    if not rows:
        return []
    random_rows = any("seed" in r for r in rows)

    def group(r):  # a marker per seed; listed shapes share one
        return r.get("seed", "listed")

    fig, ax = plt.subplots(figsize=(11, 5.5))
    kernels_ = list(dict.fromkeys(r["kernel"] for r in rows))
    kernels_.sort(key=lambda k: k == "auto")  # auto last: drawn on top
    seeds = sorted({group(r) for r in rows}, key=str)
    markers = "osD^vP*X"
    many = len(kernels_) > 1 and "auto" in kernels_
    handles = []
    for i, name in enumerate(kernels_):
        colour = plt.cm.tab10(i % 10)
        lead = name == "auto" or not many
        for j, seed in enumerate(seeds):
            sel = [r for r in rows if r["kernel"] == name and group(r) == seed]
            if sel:
                ax.scatter([2.0 * r["M"] * r["N"] * r["K"] for r in sel], [r["vs_cublas_paired"] for r in sel],
                           marker=markers[j % len(markers)], color="black" if many and lead else colour,
                           alpha=0.9 if lead else 0.3, s=36 if lead else 18, zorder=3 if lead else 2)
        handles.append(Line2D([], [], marker="o", linestyle="", color="black" if many and lead else colour,
                              alpha=0.9 if lead else 0.5, label=name))
    handles += [Line2D([], [], marker=markers[j % len(markers)], linestyle="", color="grey",
                       label="listed shapes" if seed == "listed" else f"seed {seed}")
                for j, seed in enumerate(seeds)]
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("problem size, FLOPs (2MNK)")
    ax.set_ylabel("speed vs cuBLAS, paired (same clocks)")
    share = result["environment"].get("random_aligned_share", 0.5)
    timing = "GPU time" if result["environment"].get("timing") == "queued" else "launch included"
    what = (f"random shapes (M, N, K in 256-8192, {share:.0%} of dimensions multiples of 8; {timing})"
            if random_rows else f"listed shapes ({timing})")
    ax.set_title(f"{result['environment'].get('gpu')}: {what}")
    ax.grid(True, alpha=0.3)
    ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
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
