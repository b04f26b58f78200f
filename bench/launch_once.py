"""Launch kernels once each on device buffers of random data, for a profiler:

    ncu --clock-control none -k regex:ws_kernel --section SpeedOfLight \\
        python3 bench/launch_once.py sm90.ws_persistent:3072x5120x7000:TN:bf16 sm90.ws_persistent:4096:NN

Each argument is KERNEL:SHAPE[:LAYOUT][:DTYPE][:EPILOGUE] with SHAPE MxNxK (or one size for a
cube), LAYOUT TN (default) or NN, DTYPE fp16 (default) or bf16, EPILOGUE plain (default) or
bias_gelu. KERNEL `torch` launches torch.matmul on the same shape (cuBLAS's kernels, for a
profile beside tcgemm's; plain epilogue only). Every spec launches twice, in order (the first warms
up: module load, plan, caches); read the second launch of each pair in the profile.
"""
import sys

import numpy as np

import tcgemm


def run(spec: str) -> None:
    parts = spec.split(":")
    kernel, shape = parts[0], parts[1]
    opts = parts[2:]
    dims = [int(x) for x in shape.split("x")]
    M, N, K = dims * 3 if len(dims) == 1 else dims
    layout = "NN" if "NN" in opts else "TN"
    dt = tcgemm.bfloat16 if "bf16" in opts else tcgemm.float16
    rng = np.random.default_rng()
    if kernel == "torch":
        import torch

        tdt = torch.bfloat16 if "bf16" in opts else torch.float16
        x = torch.rand(M, K, device="cuda", dtype=tdt) * 2 - 1
        w = torch.rand(N, K, device="cuda", dtype=tdt) * 2 - 1
        wl = w.T if layout == "TN" else w.T.contiguous()  # TN: x @ w.T; NN: a row-major K x N operand
        for _ in range(2):
            torch.matmul(x, wl)
        torch.cuda.synchronize()
        print("launched", spec)
        return
    a = tcgemm.to_device(rng.uniform(-1, 1, (M, K)).astype(dt))
    w = rng.uniform(-1, 1, (N, K)).astype(dt)
    b = tcgemm.to_device(w.T if layout == "TN" else np.ascontiguousarray(w.T))
    kw = {}
    if "bias_gelu" in opts:
        kw = dict(bias=rng.uniform(-1, 1, N).astype(np.float32), activation="gelu")
    out = tcgemm.DeviceArray.empty((M, N), dt)
    for _ in range(2):
        tcgemm.matmul(a, b, kernel=kernel, out=out, **kw)
    out.numpy()
    print("launched", spec)


if __name__ == "__main__":
    for s in sys.argv[1:]:
        run(s)
