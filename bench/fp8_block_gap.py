"""Where the block-scaled entries lose to the same loop with tensor scales (bench/results/h100_fp8_block_gap.md).

  python bench/fp8_block_gap.py operands   # each kernel on both operand sets
  python bench/fp8_block_gap.py layouts    # A's block scales row-major and MN-major

Both parts time in CUDA-graph GPU time (graph_timing.timed: 10 calls a graph, 5 replays in alternating order,
the median per call), bf16 output, x @ w.T, operands torch.randn quantized by tcgemm.quantize_fp8, and print
TFLOPS with, in brackets, the ratio to sm90.ws_fp8.promoted.overlap with tensor scales in the same replays:
the block entries' loop is that kernel's plus the scales.

operands: bd = block-quantized bytes (x 1 x 128, w 128 x 128), td = tensor-quantized bytes. A tensor-scale
kernel on bd bytes takes scales of 1 and a block kernel on td bytes block scales of 1 (a timing, not a
product anyone wants): whether the gap follows the kernel or the data.
layouts: A's scales (M, ceil(K/128)) row-major as quantize_fp8 returns them (a stage's 128 row scales in 128
sectors) against the same values MN-major, strides (1, M) (DeepGEMM's layout: 512 contiguous bytes), for
every block entry; the two results are checked to be bit-identical."""
import sys

import torch

import tcgemm
from graph_timing import header, timed

S = "sm90.ws_fp8."
SHAPES = {"operands": [(4096, 7168, 16384), (4096, 4096, 4096), (6144, 5120, 3072), (7168, 2048, 9984)],
          "layouts": [(4096, 7168, 16384), (4096, 4096, 4096), (6144, 5120, 3072), (7168, 2048, 9984),
                      (2048, 7168, 16384)]}


def operands(M, N, K):
    x = torch.randn(M, K, device="cuda"); w = torch.randn(N, K, device="cuda")
    xb, sxb = tcgemm.quantize_fp8(x, block=(1, 128)); wb, swb = tcgemm.quantize_fp8(w, block=(128, 128))
    xt, sxt = tcgemm.quantize_fp8(x, block="tensor"); wt, swt = tcgemm.quantize_fp8(w, block="tensor")
    return (xb, wb, sxb, swb), (xt, wt, sxt, swt)


def main(part):
    print(header(), flush=True)
    for M, N, K in SHAPES[part]:
        torch.manual_seed(1)
        (xb, wb, sxb, swb), (xt, wt, sxt, swt) = operands(M, N, K)
        o = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)

        def f(a, b, sa, sb, k):
            return lambda: tcgemm.scaled_matmul(a, b.t(), sa, sb, out_dtype=torch.bfloat16, out=o, kernel=S + k)

        fs = {"td:promoted.overlap": f(xt, wt, sxt, swt, "promoted.overlap")}
        if part == "operands":
            one = torch.ones((), device="cuda")
            ones_a, ones_b = torch.ones_like(sxb), torch.ones_like(swb)
            fs["bd:promoted.overlap"] = f(xb, wb, one, one, "promoted.overlap")
            for k in ["block.overlap.scale_warp", "block"]:
                fs["bd:" + k] = f(xb, wb, sxb, swb, k)
                fs["td:" + k] = f(xt, wt, ones_a, ones_b, k)
        else:
            sxm = sxb.t().contiguous().t()
            for k in ["block.overlap.scale_warp", "block.overlap", "block", "block.wide"]:
                fs["rm:" + k] = f(xb, wb, sxb, swb, k)
                fs["mn:" + k] = f(xb, wb, sxm, swb, k)
                same = torch.equal(
                    tcgemm.scaled_matmul(xb, wb.t(), sxb, swb, out_dtype=torch.float32, kernel=S + k),
                    tcgemm.scaled_matmul(xb, wb.t(), sxm, swb, out_dtype=torch.float32, kernel=S + k))
                assert same, f"{k}: row-major and MN-major scales give different results at {M}x{N}x{K}"
        for r in range(2):
            m = timed(fs); fl = 2 * M * N * K; base = m["td:promoted.overlap"]
            print(f"r{r} {M}x{N}x{K}: " + "  ".join(f"{n} {fl / m[n] / 1e9:.0f} ({base / m[n]:.3f})" for n in m),
                  flush=True)


if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "operands"
    if part not in SHAPES:
        sys.exit(f"usage: python bench/fp8_block_gap.py [{'|'.join(SHAPES)}]")
    main(part)
