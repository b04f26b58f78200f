"""Ragged shapes through tcgemm.matmul -- auto (operands staged into padded buffers) and
sm89.mma_ragged.s2 (read in place) -- against torch.matmul (bench/results/h200_ragged_kernel.md).

  python bench/ragged_kernel_time.py          # calls in a loop: what a Python caller waits for
  python bench/ragged_kernel_time.py graph    # the same calls captured in a CUDA graph: GPU time

fp16, out= preallocated, 7 alternating chunks of 20 (loop) or 10 (graph) calls, CUDA events, the
median per call; err: relative Frobenius error against a float64 product."""
import os, statistics, subprocess, sys, torch, tcgemm
K_RAG = "sm89.mma_ragged.s2"
shapes = [(2247, 831, 671, "NN"), (729, 1871, 1358, "NN"), (1023, 1025, 1027, "TN"), (17, 4097, 4099, "TN"),
          (127, 4097, 4099, "TN"), (4095, 4097, 4093, "TN"), (1001, 1003, 1005, "NN"), (2048, 2048, 2048, "TN")]
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
          + f"  torch/ragged {med['torch']/med['ragged']:.2f}x torch/auto {med['torch']/med['auto']:.2f}x", flush=True)
