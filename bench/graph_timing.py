"""CUDA-graph GPU time of several callables side by side: what the bench scripts beside this one time with
(fp8_entries_graph.py, ab/fp8_graph.py).

Each callable's `calls` calls are captured in one CUDA graph (after two warm-up calls); `replays` rounds
replay every graph in turn, each replay timed with CUDA events; the result is the median time per call in
ms, by name. Replaying in alternating order puts every callable under the same clocks."""
import statistics

import torch


def timed(fs, calls=10, replays=5):
    graphs = {}
    for name, f in fs.items():
        f(); f(); torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                f()
        graphs[name] = g
    times = {name: [] for name in graphs}
    for _ in range(replays):
        for name, g in graphs.items():
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); z.record(); torch.cuda.synchronize()
            times[name].append(a.elapsed_time(z) / calls)
    return {name: statistics.median(v) for name, v in times.items()}
