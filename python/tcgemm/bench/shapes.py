"""The benchmark's shape sets: fixed presets, the x @ w.T shapes of common
model widths ("llm"), and seeded random shapes ("random").

A job is (M, N, K, dtype, layout); fixed presets are crossed with the
--dtypes and --layouts asked for, the random preset draws its own per shape.
"""
from __future__ import annotations

import numpy as np

from .._api import bfloat16, float16

DTYPES = {"fp16": float16, "bf16": bfloat16}
L2_BYTES = 60 * 1024 * 1024  # the H200's L2: operand sets rotate past it

PRESETS = {
    "quick": [(4096, 4096, 4096)],
    "squares": [(s, s, s) for s in (1024, 2048, 4096, 8192, 16384)],
    # x @ w.T decode shapes: few rows against 8192 x 8192 weights
    "skinny": [(m, 8192, 8192) for m in (16, 64, 128, 512)],
    "short_k": [(8192, 8192, k) for k in (128, 512)],
    "odd": [(4000, 4000, 4000), (4095, 4097, 4093), (1000, 1000, 1000)],
}
PRESETS["all"] = PRESETS["squares"] + PRESETS["skinny"] + PRESETS["short_k"] + PRESETS["odd"]

# (N, K) of the weights of a transformer layer, x @ w.T: Llama-3-8B-like
# (hidden 4096, GQA qkv 6144, MLP 14336) and 70B-like (hidden 8192, qkv 10240,
# MLP 28672); fused gate+up as one weight.
LLM_WEIGHTS = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
               (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672)]
LLM_ROWS = (1, 16, 64, 128, 256, 4096)  # decode batches (one token to 256) and a prefill chunk
PRESETS["llm"] = [(m, n, k) for m in LLM_ROWS for n, k in LLM_WEIGHTS]
# Decode and small-batch shapes against common weights (x @ w.T or x @ w):
# where the split-K, swap and cluster-split kernels take over from the tiles.
PRESETS["decode"] = [(1, 4096, 4096), (7, 2048, 4096), (16, 4096, 4096), (32, 4096, 4096), (64, 4096, 4096),
                     (16, 14336, 4096), (32, 4096, 14336), (48, 1000, 4104), (64, 8192, 8192), (8, 8192, 28672),
                     (96, 4096, 4096), (128, 4096, 4096), (128, 14336, 4096), (128, 8192, 8192)]
# Every dimension not a multiple of 8 (rows start misaligned; cuBLAS through
# torch takes slower paths on them): squares, a decode row, thin and deep.
PRESETS["ragged"] = [(1023, 1025, 1021), (2047, 2049, 2051), (4095, 4097, 4093), (8191, 8193, 8189),
                     (17, 4097, 4099), (127, 8191, 8193), (3001, 5003, 2999), (6143, 1531, 7001)]
# A last wave of tiles less than half full with K long enough for the split
# tail to pay (sched::choose_split_plan): what ws_splitk's tail is for.
PRESETS["split_tail"] = [(600, 752, 4832), (1696, 5448, 3968), (1696, 5448, 3976), (2024, 1360, 2432),
                         (2360, 3440, 3424), (2384, 1792, 4096), (2384, 1792, 4184), (2448, 2816, 7952),
                         (2504, 1896, 7136), (4056, 3120, 6640), (4608, 6648, 7064)]

LOW, HIGH = 256, 8192


def random_jobs(seed: int, count: int, dtypes=("fp16", "bf16"), layouts=("TN", "NN"), aligned=0.5):
    """`count` jobs (M, N, K, dtype, layout) drawn from `seed`: each dimension
    uniform in [256, 8192], a share `aligned` of them rounded down to a multiple
    of 8 and the rest any integer (ragged), the dtype and layout drawn per job
    from those given. The draws do not depend on `aligned`: aligned=1 gives the
    same seed's shapes, every dimension rounded to a multiple of 8."""
    rng = np.random.default_rng(seed)
    jobs = []
    for _ in range(count):
        dims = []
        for _ in range(3):
            v = int(rng.integers(LOW, HIGH + 1))
            if rng.random() < aligned:
                v = max(LOW, v // 8 * 8)
            dims.append(v)
        jobs.append((*dims, str(rng.choice(list(dtypes))), str(rng.choice(list(layouts)))))
    return jobs


def parse_shapes(items):
    """Preset names and MxNxK strings (or one size for a square) -> shapes."""
    shapes = []
    for it in items:
        if it in PRESETS:
            shapes += PRESETS[it]
            continue
        parts = [int(x) for x in it.lower().split("x")]
        shapes.append(tuple(parts * 3) if len(parts) == 1 else tuple(parts))
    return shapes


def jobs_for(shapes, dtypes, layouts, seeds=(), count=24, aligned=0.5):
    """Fixed shapes crossed with dtypes and layouts, then each seed's random
    jobs; -> [(M, N, K, dtype, layout, seed or None)]."""
    jobs = [(*s, d, l, None) for s in shapes for d in dtypes for l in layouts]
    for seed in seeds:
        jobs += [(*j, seed) for j in random_jobs(seed, count, dtypes, layouts, aligned)]
    return jobs


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return float(np.exp(np.mean(np.log(xs)))) if xs else None
