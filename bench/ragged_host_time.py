"""Host time of a ragged call against an aligned one (tiny shapes: the GPU idles) and where it goes
(bench/results/h100_ragged_staging.md).

  python bench/ragged_host_time.py

fp16 torch tensors; microseconds per call over 3000 calls after 50 warm-up calls, one synchronize at
each end; then _core.run alone (the staging copies and the GEMM: three launches, or one) and a
cProfile of the ragged call."""
import time, cProfile, pstats, io, torch, tcgemm
from tcgemm import _core, _call
dev = "cuda"
def per_call(f, n=3000):
    for _ in range(50): f()
    torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): f()
    torch.cuda.synchronize(); return (time.perf_counter() - t) / n * 1e6
h = lambda *s: torch.randn(*s, device=dev, dtype=torch.float16)
xa, wa, oa = h(64, 64), h(64, 64), h(64, 64)
xr, wr, orr = h(64, 65), h(65, 63), h(64, 63)
xt, wt = h(64, 65), h(63, 65)
ot = h(64, 63)
cases = {"aligned out=": lambda: tcgemm.matmul(xa, wa, out=oa), "aligned new": lambda: tcgemm.matmul(xa, wa),
         "ragged NN out=": lambda: tcgemm.matmul(xr, wr, out=orr), "ragged NN new": lambda: tcgemm.matmul(xr, wr),
         "ragged TN out=": lambda: tcgemm.matmul(xt, wt.t(), out=ot),
         "torch ragged out=": lambda: torch.matmul(xr, wr, out=orr), "torch aligned out=": lambda: torch.matmul(xa, wa, out=oa)}
for n, f in cases.items():
    print(f"{n}: {per_call(f):.1f} us/call", flush=True)
# the pieces of a ragged call
f = cases["ragged NN out="]
f()
p = _call._PLANS
rec = []
orig = _core.run
def timed_run(r):
    t = time.perf_counter(); orig(r); rec.append(time.perf_counter() - t)
_core.run = timed_run
per_call(f, 2000)
_core.run = orig
rec.sort(); print(f"_core.run (3 launches) median {rec[len(rec)//2]*1e6:.1f} us", flush=True)
rec.clear()
_core.run = timed_run
per_call(cases["aligned out="], 2000)
_core.run = orig
rec.sort(); print(f"_core.run aligned (1 launch) median {rec[len(rec)//2]*1e6:.1f} us", flush=True)
pr = cProfile.Profile(); pr.enable()
for _ in range(3000): f()
pr.disable(); torch.cuda.synchronize()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(16); print(s.getvalue())
