"""The benchmark: every registered kernel beside cuBLAS in one run, and what
users get through `tcgemm.matmul`.

    shapes      the shape sets: presets, llm widths, seeded random shapes
    references  buffers and cuBLAS (through torch), or tcgemm alone
    timing      medians, the paired ratio, sustained runs, clocks, environment
    harness     the main loop: correctness first, then timing, per job
    features    fused epilogue and batched rows
    report      Markdown tables, the per-seed summary, the files a run writes
    plots       TFLOPS / ratio against size
    user        the user path: host overhead, graphs, NumPy round trips
    user_report its table and plot
    cli         `python -m tcgemm bench ...` and `python -m tcgemm`'s self-check

    python -m tcgemm bench --preset squares --json out.json --md out.md --plot out_dir
"""
from .cli import main, selfcheck, selfcheck_and_table
from .harness import run, select_kernels
from .report import ratio_summary, to_markdown
from .shapes import DTYPES, PRESETS, parse_shapes

__all__ = ["DTYPES", "PRESETS", "main", "parse_shapes", "ratio_summary", "run", "select_kernels", "selfcheck",
           "selfcheck_and_table", "to_markdown"]
