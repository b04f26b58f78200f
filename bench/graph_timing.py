"""CUDA-graph GPU time of several callables side by side: what the bench scripts beside this one time with
(fp8_entries_graph.py, fp8_block_gap.py, ab/fp8_graph.py), and the line naming what they measured.

Each callable's `calls` calls are captured in one CUDA graph (after two warm-up calls); `replays` rounds
replay every graph in turn, each replay timed with CUDA events; the result is the median time per call in
ms, by name. Replaying in alternating order puts every callable under the same clocks."""
import statistics

import torch


def capture(f, calls):
    """`calls` calls of f in one CUDA graph, after two warm-up calls."""
    f(); f(); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            f()
    return g


def timed(fs, calls=10, replays=5):
    graphs = {name: capture(f, calls) for name, f in fs.items()}
    times = {name: [] for name in graphs}
    for _ in range(replays):
        for name, g in graphs.items():
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); z.record(); torch.cuda.synchronize()
            times[name].append(a.elapsed_time(z) / calls)
    return {name: statistics.median(v) for name, v in times.items()}


def header():
    """The first line a script prints: the commit, GPU and torch it measured, as the result files name
    them (tcgemm.bench.provenance: TCGEMM_COMMIT, else the checkout's HEAD, else the installed build's own)."""
    from tcgemm.bench.provenance import provenance

    p = provenance(torch)
    dirty = " (uncommitted changes)" if p["commit_dirty"] else ""
    return f"commit {p['commit'] or 'unknown'}{dirty} {p['gpu']} torch {p['torch']}"
