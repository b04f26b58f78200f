"""One fp16 launch per (kernel, layout) at n^3, for ncu:
    ncu -k regex:mma_sync --set full -o prof python3 bench/profile_ada.py 4096 sm89.mma_iter.s3:TN ...
"""
import sys

import numpy as np
import tcgemm

n = int(sys.argv[1])
rng = np.random.default_rng()
a = rng.uniform(-1, 1, (n, n)).astype(tcgemm.float16)
w = rng.uniform(-1, 1, (n, n)).astype(tcgemm.float16)
for spec in sys.argv[2:]:
    name, layout = spec.split(":")
    b = w.T if layout == "TN" else np.ascontiguousarray(w.T)  # TN: a transposed view of (N, K) storage
    tcgemm.matmul(a, b, kernel=name)
    print("launched", name, layout, n, flush=True)
