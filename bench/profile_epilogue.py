"""One plain and one fused (bias + GELU) launch of a kernel at 4096^3, for ncu:
    ncu -k regex:ws_kernel --set full -o prof python3 bench/profile_epilogue.py sm90.ws_persistent
"""
import sys

import numpy as np
import tcgemm

name = sys.argv[1] if len(sys.argv) > 1 else "sm90.ws_persistent"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
rng = np.random.default_rng()
a = rng.uniform(-1, 1, (n, n)).astype(tcgemm.float16)
b = rng.uniform(-1, 1, (n, n)).astype(tcgemm.float16).T  # a transposed view: the TN layout
bias = rng.uniform(-1, 1, n).astype(np.float32)
tcgemm.matmul(a, b, kernel=name)
tcgemm.matmul(a, b, kernel=name, bias=bias, activation="gelu")
print("done", name, n)
