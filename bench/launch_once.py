"""Launch kernels once each on device buffers of random data, for a profiler:

    ncu --clock-control none -k regex:ws_kernel --section SpeedOfLight \\
        python3 bench/launch_once.py sm90.ws_persistent:3072x5120x7000:TN:bf16 sm90.ws_persistent:4096:NN

Each argument is KERNEL:SHAPE[:LAYOUT][:DTYPE][:EPILOGUE] with SHAPE MxNxK (or one size for a
cube), LAYOUT TN (default) or NN, DTYPE fp16 (default) or bf16, EPILOGUE plain (default) or
bias_gelu. KERNEL `torch` launches torch.matmul on the same shape (cuBLAS's kernels, for a
profile beside tcgemm's; plain epilogue only). Every spec launches twice, in order (the first warms
up: module load, plan, caches); read the second launch of each pair in the profile.

FP8 (DTYPE e4m3): tcgemm.scaled_matmul(x, w.t(), sx, sw, out_dtype=bf16) on torch.randn operands
quantized by tcgemm.quantize_fp8, x @ w.T (TN only), with the options SCALES tensor (default),
row or block (x 1 x 128, w 128 x 128), mn (block: A's scales MN-major, strides (1, M)) and f32
(fp32 sums: use_fast_accum=False; block scales always promote). KERNEL `torch` launches
torch._scaled_mm (tensor or row scales) on the same operands. E.g.

    ncu --clock-control none -k regex:ws_scaled --metrics lts__t_requests.sum python3 bench/launch_once.py \
        sm90.ws_fp8.promoted.overlap:4096x7168x16384:e4m3:f32 \
        sm90.ws_fp8.block.overlap.scale_warp:4096x7168x16384:e4m3:block:mn
"""
import sys

import numpy as np

import tcgemm


def run_fp8(spec, kernel, M, N, K, opts):
    import torch

    scales = "block" if "block" in opts else "row" if "row" in opts else "tensor"
    if kernel == "torch" and scales == "block":
        sys.exit(f"{spec}: torch._scaled_mm is launched with tensor or row scales here")
    torch.manual_seed(0)
    x = torch.randn(M, K, device="cuda")
    w = torch.randn(N, K, device="cuda")
    xq, sx = tcgemm.quantize_fp8(x, block=(1, 128) if scales == "block" else scales)
    wq, sw = tcgemm.quantize_fp8(w, block=(128, 128) if scales == "block" else scales)
    if scales == "row":
        sw = sw.t()  # torch._scaled_mm's row-wise B scales: (1, N)
    if "mn" in opts:
        if scales != "block":
            sys.exit(f"{spec}: mn (MN-major A scales) is for block scales")
        sx = sx.t().contiguous().t()
    del x, w
    for _ in range(2):
        if kernel == "torch":
            torch._scaled_mm(xq, wq.t(), sx, sw, out_dtype=torch.bfloat16, use_fast_accum="f32" not in opts)
        else:
            tcgemm.scaled_matmul(xq, wq.t(), sx, sw, out_dtype=torch.bfloat16, kernel=kernel,
                                 use_fast_accum="f32" not in opts)
    torch.cuda.synchronize()
    print("launched", spec)


def run(spec: str) -> None:
    parts = spec.split(":")
    kernel, shape = parts[0], parts[1]
    opts = parts[2:]
    dims = [int(x) for x in shape.split("x")]
    M, N, K = dims * 3 if len(dims) == 1 else dims
    if "e4m3" in opts:
        if "NN" in opts:
            sys.exit(f"{spec}: FP8 takes x @ w.T (TN) only")
        return run_fp8(spec, kernel, M, N, K, opts)
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
