"""FP8 ping-pong and auto on large squares under sustained load (bench/ab/run.sh's script).

  python3 bench/ab/fp8_sustained.py TAG

As the fp8 preset times them: operand sets rotated past the L2, chunks of about 30 ms of calls timed with
CUDA events, six rounds alternating with torch._scaled_mm(use_fast_accum=True) on the same operands; the
median per call. Prints TFLOPS and, in brackets, the ratio to _scaled_mm: what two builds are compared by
(at 8192^3 and up the clocks sit at the power limit, so only same-run ratios mean anything)."""
import statistics as st, sys, torch, tcgemm
tag = sys.argv[1]
torch.manual_seed(0)
for M, N, K in [(8192, 8192, 8192), (16384, 16384, 16384), (4096, 4096, 4096), (8192, 8192, 4096)]:
    sets = []
    nsets = max(2, (200 << 20) // (M * K + N * K) + 1)
    for _ in range(nsets):
        x = torch.randn(M, K, device="cuda"); w = torch.randn(N, K, device="cuda")
        xq, sx = tcgemm.quantize_fp8(x, block="tensor"); wq, sw = tcgemm.quantize_fp8(w, block="tensor")
        sets.append((xq, wq, sx, sw)); del x, w
    o = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    fs = {"pingpong": lambda s: tcgemm.scaled_matmul(s[0], s[1].t(), s[2], s[3], out_dtype=torch.bfloat16, out=o,
                                                     kernel="sm90.ws_fp8.pingpong", use_fast_accum=True),
          "auto": lambda s: tcgemm.scaled_matmul(s[0], s[1].t(), s[2], s[3], out_dtype=torch.bfloat16, out=o,
                                                 use_fast_accum=True),
          "_scaled_mm": lambda s: torch._scaled_mm(s[0], s[1].t(), scale_a=s[2], scale_b=s[3], out_dtype=torch.bfloat16,
                                                   use_fast_accum=True)}
    calls = max(10, int(4e13 // (2 * M * N * K)))  # ~30 ms a chunk
    for f in fs.values():
        for s in sets: f(s)
    torch.cuda.synchronize()
    t = {n: [] for n in fs}
    for _ in range(6):
        for n, f in fs.items():
            a, z = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for i in range(calls): f(sets[i % len(sets)])
            z.record(); torch.cuda.synchronize(); t[n].append(a.elapsed_time(z) / calls)
    m = {n: st.median(v) for n, v in t.items()}; fl = 2 * M * N * K
    print(f"{tag} {M}x{N}x{K}: " + "  ".join(f"{n} {fl / m[n] / 1e9:.0f} ({m['_scaled_mm'] / m[n]:.3f})" for n in m), flush=True)
    del sets
