"""Clock, power and energy per flop of tcgemm beside cuBLAS under sustained load
(bench/results/<gpu>_fp8_power.md).

  python bench/fp8_power.py [--seconds 1.0] [--rounds 2] [--shapes MxNxK ...]

Why: at the power limit (700 W) the SM clock is whatever the kernel's power leaves, so a kernel can lose
to cuBLAS in two ways that a time alone does not tell apart -- its loop does less per clock, or it spends
more energy per flop and runs at a lower clock. This prints both, per shape and callable:

  TFLOPS      sustained throughput (GPU time of SECONDS of back-to-back CUDA-graph replays)
  MHz         mean SM clock over that time (NVML, sampled every 10 ms)
  W           mean board power: NVML's energy counter over the same time
  TFLOPS/GHz  throughput per clock: the loop, clock taken out
  pJ/flop     energy per flop

Callables: tcgemm.scaled_matmul (auto, tensor scales, fp32 sums and FP8 wgmma's own), torch._scaled_mm
(use_fast_accum False / True) on the same operands, and bf16 tcgemm.matmul / torch.matmul of the same
shape. Operand sets are rotated past the L2 inside each graph; every callable is warmed for half of
SECONDS before its measured SECONDS, in alternating order over ROUNDS (the median of the rounds)."""
import argparse
import statistics
import threading
import time

import pynvml
import torch

import tcgemm
from graph_timing import capture, header

SHAPES = [(4096, 7168, 16384), (8192, 8192, 4096), (3000, 1536, 7168), (4096, 4096, 4096)]


def callables(M, N, K):
    nsets = max(2, -(-(200 << 20) // (M * K + N * K)))
    sets = []
    for _ in range(nsets):
        x = torch.randn(M, K, device="cuda"); w = torch.randn(N, K, device="cuda")
        xq, sx = tcgemm.quantize_fp8(x, block="tensor"); wq, sw = tcgemm.quantize_fp8(w, block="tensor")
        sets.append((xq, wq, sx, sw, x.bfloat16(), w.bfloat16()))
        del x, w
    o = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    i = [0]

    def rot():
        i[0] = (i[0] + 1) % nsets
        return sets[i[0]]

    def tc(fast):
        def f():
            x, w, sx, sw = rot()[:4]
            tcgemm.scaled_matmul(x, w.t(), sx, sw, out_dtype=torch.bfloat16, out=o, use_fast_accum=fast)
        return f

    def cu(fast):
        def f():
            x, w, sx, sw = rot()[:4]
            torch._scaled_mm(x, w.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16, use_fast_accum=fast)
        return f

    def tc16():
        s = rot()
        tcgemm.matmul(s[4], s[5].t(), out=o)

    def cu16():
        s = rot()
        torch.matmul(s[4], s[5].t(), out=o)

    return {"tcgemm fp8 f32": tc(False), "_scaled_mm f32": cu(False), "tcgemm fp8 fast": tc(True),
            "_scaled_mm fast": cu(True), "tcgemm bf16": tc16, "torch bf16": cu16}, nsets


class Clocks:
    """Mean SM clock (MHz) from NVML samples every 10 ms while running."""

    def __init__(self, h):
        self.h, self.samples, self.on = h, [], False

    def __enter__(self):
        self.on = True
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()
        return self

    def _run(self):
        while self.on:
            self.samples.append(pynvml.nvmlDeviceGetClockInfo(self.h, pynvml.NVML_CLOCK_SM))
            time.sleep(0.01)

    def __exit__(self, *exc):
        self.on = False
        self.t.join()

    def mean(self):
        return statistics.fmean(self.samples) if self.samples else float("nan")


def sustained(h, g, per_replay_ms, seconds):
    reps = max(2, int(seconds * 1e3 / per_replay_ms))
    for _ in range(max(1, reps // 2)):
        g.replay()
    torch.cuda.synchronize()
    a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with Clocks(h) as c:
        e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(h)  # mJ
        a.record()
        for _ in range(reps):
            g.replay()
        z.record()
        torch.cuda.synchronize()
        e1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(h)
    ms = a.elapsed_time(z)
    return ms / reps, (e1 - e0) / ms, c.mean()  # ms per replay, W (mJ / ms), MHz


def power_limit_mw(h):
    """The enforced limit where this pynvml has it (nvidia-ml-py), else the management limit (older pynvml)."""
    f = getattr(pynvml, "nvmlDeviceGetEnforcedPowerManagementLimit", None) or pynvml.nvmlDeviceGetPowerManagementLimit
    return f(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--shapes", nargs="*", default=None)
    args = ap.parse_args()
    shapes = [tuple(map(int, s.split("x"))) for s in args.shapes] if args.shapes else SHAPES
    pynvml.nvmlInit()
    h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    print(header(), flush=True)
    print(f"power limit {power_limit_mw(h) / 1e3:.0f} W, max SM clock "
          f"{pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM)} MHz; {args.seconds} s per callable "
          f"per round, {args.rounds} rounds", flush=True)
    print("| shape | callable | TFLOPS | MHz | W | TFLOPS/GHz | pJ/flop |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for M, N, K in shapes:
        torch.manual_seed(0)
        fs, nsets = callables(M, N, K)
        flop = 2.0 * M * N * K
        calls = max(nsets, int(5e13 // flop))  # about 50 ms a replay at 1000 TFLOPS
        calls -= calls % nsets
        graphs = {n: capture(f, calls) for n, f in fs.items()}
        # A first short replay of each sizes the sustained runs.
        per = {}
        for n, g in graphs.items():
            g.replay(); torch.cuda.synchronize()
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); z.record(); torch.cuda.synchronize()
            per[n] = a.elapsed_time(z)
        rows = {n: [] for n in graphs}
        for _ in range(args.rounds):
            for n, g in graphs.items():
                rows[n].append(sustained(h, g, per[n], args.seconds))
        for n, r in rows.items():
            ms = statistics.median(x[0] for x in r) / calls
            watts = statistics.median(x[1] for x in r)
            mhz = statistics.median(x[2] for x in r)
            tflops = flop / ms / 1e9
            # W / (TFLOPS * 1e12) J per flop is W / TFLOPS pJ per flop.
            print(f"| {M}x{N}x{K} | {n} | {tflops:.0f} | {mhz:.0f} | {watts:.0f} | {tflops / mhz * 1e3:.0f} | "
                  f"{watts / tflops:.3f} |", flush=True)
        del graphs, fs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
