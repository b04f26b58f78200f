"""Named FP8 entries through tcgemm.scaled_matmul (torch) on small odd shapes, for compute-sanitizer:

  compute-sanitizer --tool memcheck python3 tests/sanitize_scaled.py sm90.ws_fp8.tile192:fast sm90.ws_fp8.splitk:fast

ENTRY:fast asks use_fast_accum=True (the unpromoted entries need it). Tensor and row-wise scales, bf16
output poisoned with NaN, against a float64 reference of the dequantized inputs; prints 'bad N', the
cases over 2e-2 relative Frobenius error (tests/sanitize.sh covers the C++ suites)."""
import sys, torch, tcgemm
torch.manual_seed(0)
bad = 0
shapes = [(1, 16, 128), (7, 32, 144), (127, 208, 400), (129, 400, 1008), (200, 392, 256), (400, 600, 784)]
for arg in sys.argv[1:]:
    name, _, fast = arg.partition(":")
    for M, N, K in shapes:
        for mode in ("tensor", "row"):
            x = torch.randn(M, K, device="cuda"); w = torch.randn(N, K, device="cuda")
            xq, sx = tcgemm.quantize_fp8(x, block=mode); wq, sw = tcgemm.quantize_fp8(w, block=mode)
            sb = sw.t() if mode == "row" else sw
            o = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            try:
                tcgemm.scaled_matmul(xq, wq.t(), sx, sb, out_dtype=torch.bfloat16, out=o, kernel=name,
                                     use_fast_accum=bool(fast))
            except ValueError as e:
                print(name, M, N, K, mode, "refused:", e); continue
            torch.cuda.synchronize()
            ref = (xq.double() * sx.double().reshape(-1, 1) if mode == "row" else xq.double() * sx.double()) @ \
                  (wq.double() * sw.double().reshape(-1, 1) if mode == "row" else wq.double() * sw.double()).t()
            err = ((o.double() - ref).norm() / ref.norm()).item()
            if not err < 2e-2:
                bad += 1; print("BAD", name, M, N, K, mode, err)
print("bad", bad)
