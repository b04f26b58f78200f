"""The GPU side of one call, kernel by kernel, for tcgemm and for torch (cuBLAS):

    python3 bench/profile_calls.py 16x4096x4096 1024 1792x2320x5464:bf16 [--kernels auto sm90.ws_splitk@8]

For every shape (MxNxK or one size for a cube; ``x @ w.T``, fp16 unless
``:bf16``) and every implementation, ten calls are queued behind a spin kernel
and traced with torch.profiler (CUPTI): each call's kernels, their median
durations, and the call's span from its first kernel's start to its last
kernel's end (so the gap between a GEMM and its split-K reduction shows).
Inputs rotate over enough sets to miss the L2, as in the benchmark.
"""
import argparse
import statistics

import torch
from torch.profiler import ProfilerActivity, profile

import tcgemm


def parse(spec):
    shape, _, dt = spec.partition(":")
    dims = [int(x) for x in shape.split("x")]
    M, N, K = dims * 3 if len(dims) == 1 else dims
    return M, N, K, torch.bfloat16 if dt == "bf16" else torch.float16


def trace(fn, sets, calls=10):
    for s in sets[:3]:
        fn(*s)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        torch.cuda._sleep(50_000_000)  # ~25 ms: every call below is queued before the GPU reaches it
        for i in range(calls):
            fn(*sets[i % len(sets)])
        torch.cuda.synchronize()
    ks = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA and "spin_kernel" not in e.name]
    ks.sort(key=lambda e: e.time_range.start)
    per = len(ks) // calls
    if per == 0 or per * calls != len(ks):
        return [f"{len(ks)} kernels for {calls} calls: {[e.name[:40] for e in ks[:6]]}"]
    spans = [ks[(c + 1) * per - 1].time_range.end - ks[c * per].time_range.start for c in range(calls)]
    gaps = [ks[(c + 1) * per].time_range.start - ks[(c + 1) * per - 1].time_range.end for c in range(calls - 1)]
    out = [f"call span {statistics.median(spans):7.1f} us  (gap to the next call {statistics.median(gaps):.1f} us)"]
    for j in range(per):
        d = [ks[c * per + j].time_range.elapsed_us() for c in range(calls)]
        out.append(f"    {statistics.median(d):7.1f} us  {ks[j].name[:110]}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes", nargs="+")
    ap.add_argument("--kernels", nargs="+", default=["auto"])
    args = ap.parse_args()
    for spec in args.shapes:
        M, N, K, dt = parse(spec)
        per = (M * K + N * K + M * N) * 2
        n = max(2, min(16, -(-3 * 60 * 2**20 // per)))
        sets = [(torch.randn(M, K, device="cuda", dtype=dt), torch.randn(N, K, device="cuda", dtype=dt),
                 torch.empty(M, N, device="cuda", dtype=dt)) for _ in range(n)]
        print(f"== {M}x{N}x{K} {dt}")
        impls = {"torch.matmul": lambda x, w, y: torch.matmul(x, w.T, out=y)}
        for spec_k in args.kernels:  # NAME or NAME@SPLITS (split_k= forced)
            k, _, sp = spec_k.partition("@")
            kw = {"split_k": int(sp)} if sp else {}
            impls[spec_k] = lambda x, w, y, k=k, kw=kw: tcgemm.matmul(x, w.T, out=y, kernel=k, **kw)
        for name, fn in impls.items():
            print(f"  {name}")
            for line in trace(fn, sets):
                print("    " + line)


if __name__ == "__main__":
    main()
