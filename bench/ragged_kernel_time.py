"""Ragged shapes through tcgemm.matmul -- auto (operands staged into padded buffers),
sm89.mma_ragged.s2 (read in place) and, on TN shapes, sm89.mma_skinny.s4 (decode-shaped, the
weight read in place by aligned loads) and the kernel auto takes with the weight copied (`staged`) -- against
torch.matmul (bench/results/h200_ragged_kernel.md, h100_skinny.md).

  python bench/ragged_kernel_time.py          # calls in a loop: what a Python caller waits for
  python bench/ragged_kernel_time.py graph    # the same calls captured in a CUDA graph: GPU time

fp16, out= preallocated, 7 alternating chunks of 20 (loop) or 10 (graph) calls, CUDA events, the
median per call; err: relative Frobenius error against a float64 product."""
import os, statistics, subprocess, sys, torch, tcgemm
K_RAG, K_SKINNY = "sm89.mma_ragged.s2", "sm89.mma_skinny.s4"
shapes = [(2247, 831, 671, "NN"), (729, 1871, 1358, "NN"), (1023, 1025, 1027, "TN"), (1, 4097, 4099, "TN"),
          (17, 4097, 4099, "TN"), (64, 4097, 4099, "TN"), (127, 4097, 4099, "TN"), (33, 11009, 4097, "TN"),
          (17, 4097, 14337, "TN"), (16, 4096, 4096, "TN"), (4095, 4097, 4093, "TN"), (1001, 1003, 1005, "NN"),
          (2048, 2048, 2048, "TN")]
if os.environ.get("RAGGED_SHAPES"):  # e.g. RAGGED_SHAPES="17x4097x4099TN 127x4097x4099TN"
    shapes = [(*map(int, s[:-2].split("x")), s[-2:]) for s in os.environ["RAGGED_SHAPES"].split()]
GRAPH = sys.argv[1:] == ["graph"]
commit = os.environ.get("TCGEMM_COMMIT") or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                                            text=True).stdout.strip()
print("commit", commit, torch.cuda.get_device_name(), "torch", torch.__version__, "graph" if GRAPH else "loop")
for M, N, K, lay in shapes:
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w = torch.randn(N, K, device="cuda", dtype=torch.float16) if lay == "TN" else torch.randn(K, N, device="cuda", dtype=torch.float16)
    b = w.t() if lay == "TN" else w
    o = torch.empty(M, N, device="cuda", dtype=torch.float16)
    fns = {"torch": lambda: torch.matmul(x, b, out=o), "auto": lambda: tcgemm.matmul(x, b, out=o),
           "ragged": lambda: tcgemm.matmul(x, b, out=o, kernel=K_RAG)}
    if os.environ.get("RAGGED_NO_GATHER"):  # leave out sm89.mma_ragged.s2 (0.1-0.6x the others: the long part)
        del fns["ragged"]
    if lay == "TN":
        fns["skinny"] = lambda: tcgemm.matmul(x, b, out=o, kernel=K_SKINNY)
        # What auto takes for the shape when w is copied (no b_ragged hint): the staged path.
        staged = tcgemm._call.plan(x.device.index, M, N, K, tcgemm.float16, True, "f32", True, 1, 0, "auto")[1]
        fns["staged"] = lambda: tcgemm.matmul(x, b, out=o, kernel=staged)
    ref = (x.double() @ b.double())
    res, runs = {}, {}
    calls = 10 if GRAPH else 20
    for n, f in fns.items():
        f(); f(); torch.cuda.synchronize()
        err = ((o.double() - ref).norm() / ref.norm()).item()
        res[n] = [err, []]
        if GRAPH:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(calls): f()
            runs[n] = g.replay
        else:
            runs[n] = lambda f=f: [f() for _ in range(calls)]
    for _ in range(7):
        for n, run in runs.items():
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            run()
            e1.record(); torch.cuda.synchronize()
            res[n][1].append(e0.elapsed_time(e1) / calls)
    med = {n: statistics.median(v[1]) for n, v in res.items()}
    fl = 2 * M * N * K
    print(f"{M}x{N}x{K} {lay}: " + "  ".join(f"{n} {med[n]*1e3:.1f}us {fl/med[n]/1e9:.0f}TF err {res[n][0]:.1e}" for n in fns)
          + "  " + "  ".join(f"torch/{n} {med['torch']/med[n]:.2f}x" for n in fns if n != "torch"), flush=True)
