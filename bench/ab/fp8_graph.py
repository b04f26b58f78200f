"""FP8 fast-sum entries of one build beside torch._scaled_mm in CUDA-graph time (bench/ab/run.sh's script;
bench/results/h100_fp8_pingpong_uniform.md).

  python3 bench/ab/fp8_graph.py TAG

Ten shapes (six not powers of two), tensor scales from tcgemm.quantize_fp8, x @ w.T, bf16 output into out=.
Each entry's 10 calls are captured in a CUDA graph; 5 replays of every entry in alternating order with
torch._scaled_mm(use_fast_accum=True) on the same operands; the median per call. Prints TFLOPS and, in
brackets, the ratio to _scaled_mm in the same replays: what two builds are compared by."""
import os, sys
import torch, tcgemm
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from graph_timing import timed  # noqa: E402
tag = sys.argv[1]
torch.manual_seed(0)
for M, N, K in [(4096, 4096, 4096), (8192, 8192, 4096), (3000, 5008, 4112), (2048, 7168, 4096), (6144, 5120, 3072),
                (1000, 3008, 5120), (2304, 6144, 2944), (7168, 2048, 9984), (5120, 3584, 6144), (1536, 5376, 8192)]:
    x = torch.randn(M, K, device="cuda"); ww = torch.randn(N, K, device="cuda")
    xq, sx = tcgemm.quantize_fp8(x, block="tensor"); wq, sw = tcgemm.quantize_fp8(ww, block="tensor")
    o = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    fs = {k: (lambda k=k: tcgemm.scaled_matmul(xq, wq.t(), sx, sw, out_dtype=torch.bfloat16, out=o, kernel=k,
                                               use_fast_accum=True)) for k in ["auto", "sm90.ws_fp8.pingpong", "sm90.ws_fp8"]}
    fs["_scaled_mm"] = lambda: torch._scaled_mm(xq, wq.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=True)
    m = timed(fs); fl = 2 * M * N * K
    print(f"{tag} {M}x{N}x{K}: " + "  ".join(f"{n} {fl / m[n] / 1e9:.0f} ({m['_scaled_mm'] / m[n]:.3f})" for n in m), flush=True)
