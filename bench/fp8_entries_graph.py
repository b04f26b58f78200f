"""FP8 entries side by side in CUDA-graph GPU time (bench/results/h200_fp8_entries_graph.md).

  python bench/fp8_entries_graph.py [PART [ARGS]]   (PARTS below; default tuning; `tiles` takes seeds)

Each entry's 10 calls (tcgemm.scaled_matmul with out=, bf16 output, x @ w.T) are captured in a CUDA
graph; 5 replays of every entry in alternating order; the median per call. torch._scaled_mm with the
same use_fast_accum is the reference (block rows: the first entry)."""
import random, sys
import torch, tcgemm
from graph_timing import header, timed
dev = "cuda"
CALLS = 10  # calls per captured graph; a rotated case makes as many operand sets, one per call
print(header(), flush=True)
def case(M, N, K, mode, fast, kernels, ref, rotate=False):
    """rotate: the graph's CALLS calls read as many different copies of the operands (together past twice the L2),
    so that what a call reads comes from HBM as in a model's layers, not hot from the L2 of the call before."""
    tcgemm._call._PLANS.clear()  # (so that the one plan of this shape auto makes is this mode's)
    blk = {"tensor": ("tensor", "tensor"), "rowwise": ("row", "row"), "block": ((1, 128), (128, 128))}[mode]
    sets = []
    for _ in range(CALLS if rotate else 1):
        x = torch.randn(M, K, device=dev); w = torch.randn(N, K, device=dev)
        xq, sx = tcgemm.quantize_fp8(x, block=blk[0]); wq, sw = tcgemm.quantize_fp8(w, block=blk[1])
        sets.append((xq, wq, sx, sw if mode == "block" else (sw.t() if mode == "rowwise" else sw)))
    del x, w
    if rotate and CALLS * (M + N) * K < 2 * torch.cuda.get_device_properties(0).L2_cache_size:
        print(f"{M}x{N}x{K}: {CALLS} copies of the operands do not pass twice the L2", flush=True)
    o = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
    turn = [0]
    def operands():  # the next set of operands; during capture each call takes its own
        turn[0] += 1
        return sets[turn[0] % len(sets)]
    def ours(k):
        xq, wq, sx, sb = operands()
        return tcgemm.scaled_matmul(xq, wq.t(), sx, sb, out_dtype=torch.bfloat16, out=o, kernel=k, use_fast_accum=fast)
    def theirs():
        xq, wq, sx, sb = operands()
        return torch._scaled_mm(xq, wq.t(), scale_a=sx.reshape(sx.shape if mode == "rowwise" else ()),
                                scale_b=sb.reshape(sb.shape if mode == "rowwise" else ()), out_dtype=torch.bfloat16,
                                use_fast_accum=fast)
    fs = {k: (lambda k=k: ours(k)) for k in kernels}
    if ref:
        fs["_scaled_mm"] = theirs
    m = timed(fs, calls=CALLS); fl = 2 * M * N * K
    base = m.get("_scaled_mm", m[kernels[0]])
    pick = next((p[1] for k, p in tcgemm._call._PLANS.items()
                 if k[-1] == "scaled" and k[1:4] == (M, N, K) and k[9] == "auto"), "?")  # the entry auto took
    print(f"{M}x{N}x{K} {mode} {'fast' if fast else 'f32'}{' rotated' if rotate else ''} (auto: {pick}): " + "  ".join(
        f"{n} {fl / m[n] / 1e9:.0f}TF ({base / m[n]:.3f}x)" for n in m), flush=True)
def block_case(M, N, K):
    """The block-scale entries beside `.promoted.overlap` and `.promoted.mcast` with tensor scales (the
    same loops with no scale loads) on the same shape, in the same replays: the cost of the block
    scales' loads, and what the 2-CTA clusters give each."""
    tcgemm._call._PLANS.clear()
    x = torch.randn(M, K, device=dev); w = torch.randn(N, K, device=dev)
    xb, sxb = tcgemm.quantize_fp8(x, block=(1, 128)); wb, swb = tcgemm.quantize_fp8(w, block=(128, 128))
    xt, sxt = tcgemm.quantize_fp8(x, block="tensor"); wt, swt = tcgemm.quantize_fp8(w, block="tensor")
    o = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
    fs = {k: (lambda k=k: tcgemm.scaled_matmul(xb, wb.t(), sxb, swb, out_dtype=torch.bfloat16, out=o, kernel=k))
          for k in ["auto", B, BO, BO + ".scale_warp", "sm90.ws_fp8.block.dsmem", BW, "sm90.ws_fp8.block.mcast"]}
    for k in [PO, "sm90.ws_fp8.promoted.mcast"]:
        fs["tensor " + k] = (lambda k=k: tcgemm.scaled_matmul(xt, wt.t(), sxt, swt, out_dtype=torch.bfloat16, out=o,
                                                              kernel=k))
    m = timed(fs); fl = 2 * M * N * K; base = m["tensor " + PO]
    print(f"{M}x{N}x{K} block f32: " + "  ".join(f"{n} {fl / m[n] / 1e9:.0f}TF ({base / m[n]:.3f}x)" for n in m),
          flush=True)
P, PO, PD = "sm90.ws_fp8.promoted", "sm90.ws_fp8.promoted.overlap", "sm90.ws_fp8.promoted.dsmem"
PW, B, BO, BW = "sm90.ws_fp8.promoted.wide", "sm90.ws_fp8.block", "sm90.ws_fp8.block.overlap", "sm90.ws_fp8.block.wide"
FAST = ["auto", "sm90.ws_fp8", "sm90.ws_fp8.wide", "sm90.ws_fp8.pingpong"]
T192 = "sm90.ws_fp8.tile192"
# Each part: why it exists (the rule it answers), then its runs: (shapes, what each shape runs) with
# ("block",) for block_case, or (mode, fast sums, entries, _scaled_mm beside them).
PARTS = {
    "block": ("The block-scale entries: tuning shapes first, then shapes no block rule was fitted on.",
              [([(4096, 7168, 16384), (4096, 4096, 4096), (2048, 7168, 4096), (512, 7168, 16384), (6144, 5120, 3072),
                 (1000, 3008, 5120), (3000, 1536, 7168), (2304, 6144, 2944), (7168, 2048, 9984)], [("block",)])]),
    "wide": ("auto's .promoted.wide rule (rows 16 bytes into a sector, K % 32 == 16) on shapes it was not fitted on.",
             [([(2000, 5008, 3088), (4096, 4096, 4112), (1536, 6144, 6160), (3000, 3008, 1040), (800, 7008, 2064),
                (3000, 1536, 7184), (2200, 3840, 4112), (1200, 2560, 8208), (640, 8192, 2576), (5000, 1024, 3600),
                (3000, 4000, 528), (6000, 6016, 2096)], [("tensor", False, ["auto", PO, PW], True)]),
              ([(2000, 5008, 3088), (1536, 6144, 6160)], [("rowwise", False, ["auto", PO, PW], True)])]),
    "fast_wide": ("FP8 wgmma's own sums on rows 16 bytes into a sector (K % 32 == 16) where the 128x256 tiles' "
                  "rounds of clusters cost more than 1.2x the 128x128 tiles' rounds.",
                  [([(2400, 2400, 4112), (1800, 3312, 5200), (4200, 2000, 3088), (3600, 2208, 6160), (6000, 1008, 4112),
                     (3000, 1536, 7184), (800, 7008, 2064), (5000, 1024, 3600)], [("tensor", True, FAST, True)])]),
    "wide_fit": ("Rows 16 bytes into a sector where the 128x256 tiles' rounds of clusters cost 1.33-2x the "
                 "128x128 tiles' rounds: where the wide tile stops paying, both sums.",
                 [([(6080, 544, 3600), (368, 2416, 2192), (1000, 1008, 4112), (2000, 800, 5200), (3000, 640, 3088),
                    (4400, 1200, 2576)], [("tensor", True, FAST, True), ("tensor", False, ["auto", PO, PW], True)])]),
    "split_f32": ("fp32 sums, fewer 128x128 tiles than half the SMs, 32-63 K stages of 128: the cluster split "
                  "(.promoted.dsmem) beside the unsplit .overlap; 64 stages and more for contrast.",
                  [([(16, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096), (1000, 1008, 4112), (256, 2048, 6144),
                     (64, 7168, 8192), (16, 4096, 8192), (128, 4096, 14336)], [("tensor", False, ["auto", PD, PO], True)])]),
    "part_lines": ("Rows whole sectors (K % 32 == 0) but not whole 128-byte lines (K % 128 != 0): every entry, "
                   "both sums.",
                   [([(3000, 2560, 2400), (5000, 4096, 3104), (2048, 6144, 4160), (6000, 3008, 2592), (1500, 5120, 5216),
                      (4096, 4096, 6208), (7000, 2000, 2336), (3500, 7168, 3680), (4000, 4000, 1376), (6000, 2048, 1632)],
                     [("tensor", True, ["auto", "sm90.ws_fp8", "sm90.ws_fp8.mcast", "sm90.ws_fp8.wide",
                                        "sm90.ws_fp8.pingpong"], True), ("tensor", False, ["auto", PO, PW], True)])]),
    "part_lines_check": ("The part-lines rules' first form (ping-pong to K = 3072 with fast sums, .promoted.wide "
                         "past it with fp32 sums) on shapes they were not fitted on.",
                         [([(2500, 3504, 2208), (4500, 2496, 2848), (3300, 5008, 2976), (1800, 2800, 2720),
                            (2600, 4608, 3424), (5200, 3600, 4448), (1800, 6400, 5600), (3800, 3008, 7264)],
                           [("tensor", True, ["auto", "sm90.ws_fp8.wide", "sm90.ws_fp8.pingpong"], True),
                            ("tensor", False, ["auto", PO, PW], True)])]),
    "part_lines_check2": ("The part-lines rules as they stand (ping-pong to K = 2816 and past it where the wide "
                          "tiles do not fit, .promoted.wide past K = 2816 where they fit) on shapes no rule was "
                          "fitted on.",
                          [([(3200, 4400, 2464), (5600, 2800, 2656), (2200, 5408, 2912), (4200, 3600, 3232),
                             (1200, 7200, 4000), (2900, 2000, 6112), (6400, 5008, 2208), (900, 3600, 5344)],
                            [("tensor", True, FAST, True), ("tensor", False, ["auto", PO, PW], True)])]),
    "part_lines_check3": ("The part-lines rules as they stand (fast sums: ping-pong to K = 2816, past it the wide "
                          "tiles where their rounds of clusters cost no more than the square tiles' rounds; fp32 "
                          "sums: .promoted.wide past K = 2048 where they cost no more) on shapes no rule was "
                          "fitted on, at 1.0-1.25x the rounds.",
                          [([(1600, 5600, 3488), (5400, 2400, 2272), (2800, 6000, 4768), (3600, 2608, 2528),
                             (7000, 3008, 5024), (1000, 6608, 3296), (4400, 4400, 2144), (2400, 3200, 6560),
                             (3000, 3808, 2336), (6200, 2608, 3872)],
                            [("tensor", True, FAST, True), ("tensor", False, ["auto", PO, PW], True)])]),
    "decode_f32_check": ("auto's fp32-sum decode rule (.promoted.swap for M <= 128) on shapes it was not fitted "
                         "on, tensor and row-wise scales.",
                         [([(8, 8192, 8192), (48, 1008, 4112), (100, 14336, 4096), (128, 7168, 16384),
                            (96, 5120, 3072), (4, 57344, 8192), (24, 3072, 5120), (112, 2048, 8192)],
                           [(mode, False, ["auto", "sm90.ws_fp8.promoted.swap", PO, PD], True)
                            for mode in ("tensor", "rowwise")])]),
    "decode_f32": ("fp32 sums at decode (use_fast_accum=False, torch's default): the promoted swap beside the "
                   "128x128 entries, tensor and row-wise scales; what auto's fp32-sum rule for M <= 64 (and "
                   "65-128) rests on.",
                   [([(1, 4096, 4096), (16, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096), (16, 14336, 4096),
                      (16, 4096, 14336), (64, 7168, 16384), (32, 28672, 8192)],
                     [(mode, False, ["auto", "sm90.ws_fp8.promoted.swap", PO, PD], True)
                      for mode in ("tensor", "rowwise")])]),
    "tuning": ("The shapes the promoting, block and swap rules were tuned on.",
               [([(4096, 4096, 4096), (4096, 7168, 16384), (8192, 8192, 4096), (2048, 2048, 8192)],
                 [("tensor", False, ["auto", P, PO, PW], True)]),
                ([(4096, 7168, 16384), (4096, 4096, 4096), (2048, 7168, 4096)],
                 [("block", False, ["auto", B, BO, BW], False)]),
                ([(16, 7168, 16384), (64, 7168, 16384), (16, 4096, 4096), (128, 4096, 4096)],
                 [("rowwise", True, ["auto", "sm90.ws_fp8.swap"], True)])]),
    "unseen": ("Shapes none of those rules was tuned on.",
               [([(1000, 3008, 5008), (3000, 1536, 7168), (512, 7168, 16384), (6144, 5120, 3072)],
                 [("tensor", False, ["auto", P, PO, PD, PW], True)]),
                ([(1000, 3008, 5120), (512, 7168, 16384), (6144, 5120, 3072)],
                 [("block", False, ["auto", B, BO, "sm90.ws_fp8.block.dsmem", BW], False)]),
                ([(1, 7168, 16384), (32, 8192, 8192), (100, 14336, 4096), (128, 7168, 16384), (48, 1008, 4112)],
                 [("rowwise", True, ["auto", "sm90.ws_fp8.swap"], True)]),
                ([(8, 4096, 14336), (64, 28672, 4096)], [("tensor", True, ["auto", "sm90.ws_fp8.swap"], True)])]),
    "lines": ("Rows not whole 128-byte lines apart (K % 128 != 0): the .lines entries (operands copied to whole "
              "lines first) beside the same kernels reading the rows in place, both sums (seeds 71, 72).",
              [([(2896, 4416, 5328), (6784, 320, 2416), (1520, 6976, 6448), (1888, 2400, 960), (1888, 4448, 704),
                 (5120, 1840, 4384), (448, 6912, 5920), (4560, 3248, 7872), (6928, 4000, 6480), (1312, 3104, 5552),
                 (1616, 544, 3104), (5216, 496, 3424), (128, 3840, 6736), (256, 3536, 7072), (128, 6768, 6704),
                 (256, 2928, 4128)],
                [("tensor", True, FAST[:1] + FAST[2:] + [L + ".lines" for L in FAST[2:]], True),
                 ("tensor", False, ["auto", PO, PW, PO + ".lines", PW + ".lines"], True)])]),
    "lines_check": ("The .lines entries on the rows of part lines of bench/results/h100_fp8.md's random seeds (51, "
                    "52), which no rule was fitted on, both sums.",
                    [([(2688, 2976, 2272), (2768, 2016, 6800), (6496, 7264, 1968), (3344, 6656, 3312),
                       (6080, 544, 3600), (1712, 4160, 1808), (7472, 4000, 6544), (7920, 5152, 2288),
                       (4816, 3968, 4384), (6544, 304, 3008), (4624, 2224, 7952), (7408, 3408, 1120),
                       (368, 2416, 2192), (7504, 7776, 4576), (7376, 752, 4016)],
                      [("tensor", True, FAST[:1] + FAST[2:] + [L + ".lines" for L in FAST[2:]], True),
                       ("tensor", False, ["auto", PO, PW, PO + ".lines", PW + ".lines"], True)])]),
    "lines_rotated": ("The .lines entries beside the same kernels in place and _scaled_mm with operands rotated past "
                      "the L2 (the copy reads HBM, as in a model's layers): rows of part lines of seeds 51, 52 (those "
                      "of lines_check) and of random.Random(73), (74): randrange(256, 8193, 16), K % 128 != 0, both "
                      "sides >= 512; fast and fp32 sums.",
                      [([(2688, 2976, 2272), (2768, 2016, 6800), (6496, 7264, 1968), (3344, 6656, 3312),
                         (1712, 4160, 1808), (7472, 4000, 6544), (7920, 5152, 2288), (4816, 3968, 4384),
                         (4624, 2224, 7952), (7408, 3408, 1120), (7504, 7776, 4576), (7376, 752, 4016),
                         (2544, 1248, 4368), (4176, 4864, 1744), (4032, 2688, 5056), (848, 4240, 3552),
                         (7296, 5248, 4464), (7360, 1184, 2864), (1232, 6800, 2784), (1744, 7424, 7264)],
                        [("tensor", True, ["auto", "sm90.ws_fp8.pingpong", "sm90.ws_fp8.pingpong.mcast",
                                           "sm90.ws_fp8.pingpong.lines"], True, True),
                         ("tensor", False, ["auto", PO, PW, PO + ".lines"], True, True)])]),
    "lines_rotated_check": ("auto's rules for rows not whole lines apart (.pingpong.lines for rows 16 bytes into a "
                            "sector, .pingpong.mcast for part lines) on shapes no rule was fitted on: random.Random(75), "
                            "(76) as lines_rotated's, operands rotated past the L2, fast sums.",
                            [([(3936, 5040, 3824), (3968, 592, 6224), (7232, 5744, 7840), (5808, 7472, 7184),
                               (1072, 7600, 5920), (2848, 7840, 928), (6448, 2304, 2496), (5696, 3104, 5216),
                               (3280, 4048, 8032), (3440, 1888, 7696), (2688, 688, 3680), (2720, 6416, 7136),
                               (3840, 4256, 2144), (928, 2992, 7184), (2720, 2112, 2976), (6720, 4608, 736)],
                              [("tensor", True, FAST + ["sm90.ws_fp8.pingpong.lines", "sm90.ws_fp8.pingpong.mcast",
                                                        T192, "sm90.ws_fp8.splitk"], True, True)])]),
    "tile192": ("The 192x192 tiles (.tile192, cuBLASLt's FP8 tile) and the 128x256 tiles without a cluster, the "
                "last wave split along K (.splitk), beside the 128x128 (ping-pong) and 128x256 (.wide) ones and "
                "auto, operands rotated past the L2, fast sums: shapes that are whole waves of 192x192 tiles on "
                "132 SMs, squares, then the random rows of the fp8 preset's seeds 51, 52.",
                [([(3000, 1536, 7184), (3072, 1536, 7168), (2304, 4224, 4096), (8192, 8192, 8192), (4096, 4096, 4096),
                   (4608, 4224, 2048), (3312, 7744, 7680), (2688, 2976, 2272), (2768, 2016, 6800), (6496, 7264, 1968),
                   (3344, 6656, 3312), (6080, 544, 3600), (1712, 4160, 1808), (7472, 4000, 6544), (7920, 5152, 2288),
                   (4816, 3968, 4384), (6544, 304, 3008), (4624, 2224, 7952), (7408, 3408, 1120), (368, 2416, 2192),
                   (7504, 7776, 4576)],
                  [("tensor", True, FAST + ["sm90.ws_fp8.pingpong.lines", T192, "sm90.ws_fp8.splitk"], True, True)])]),
    "mcast": ("Ping-pong in 2-CTA clusters along M with B multicast (.pingpong.mcast) beside ping-pong alone and "
              "copied to whole lines, fast sums: rows 16 bytes into a sector, rows of part lines, whole lines "
              "(the lines part's seeds 71, 72 and shapes of neither).",
              [([(2896, 4416, 5328), (1520, 6976, 6448), (5120, 1840, 4384), (4560, 3248, 7872), (6928, 4000, 6480),
                 (1312, 3104, 5552), (448, 6912, 5920), (6784, 320, 2416), (1888, 2400, 960), (4096, 4096, 4112),
                 (3000, 5008, 3088), (4096, 4096, 4096), (8192, 8192, 4096), (6144, 5120, 3072), (2048, 7168, 4096)],
                [("tensor", True, ["auto", "sm90.ws_fp8.pingpong", "sm90.ws_fp8.pingpong.mcast",
                                   "sm90.ws_fp8.pingpong.lines"], True)])]),
}
# Part `tiles`: random rows as the fp8 preset's (M, N, K each randrange(256, 8193, 16)), 12 a seed, every
# fast-sum entry auto chooses among, rotated: `tiles [rowwise] SEED...` (bench/results/h100_fp8_tiles.md:
# seeds 77-81 fitted beside the parts tile192 and lines_rotated_check; 82-84 and row-wise scales checked).
_args = sys.argv[2:]
_mode = "rowwise" if "rowwise" in _args else "tensor"
_seeds = [int(x) for x in _args if x != "rowwise"] or [77, 78]
PARTS["tiles"] = ("auto's FP8 fast-sum tiles on random rows of seeds " + ", ".join(map(str, _seeds)) + f", {_mode} "
                  "scales, operands rotated past the L2.",
                  [([tuple(g.randrange(256, 8193, 16) for _ in range(3)) for g in map(random.Random, _seeds)
                     for _ in range(12)],
                    [(_mode, True, FAST + ["sm90.ws_fp8.pingpong.lines", "sm90.ws_fp8.pingpong.mcast", T192,
                                           "sm90.ws_fp8.splitk", "sm90.ws_fp8.wide.tma_store"], True, True)])])
part = (sys.argv[1:] or ["tuning"])[0]
if part not in PARTS:
    sys.exit(f"fp8_entries_graph.py: no part {part!r}; parts: {', '.join(PARTS)}")
# torch._scaled_mm takes N and K in multiples of 16 only: refuse such a shape before any timing starts.
odd = [s for shapes, _ in PARTS[part][1] for s in shapes if s[1] % 16 or s[2] % 16]
if odd:
    sys.exit(f"fp8_entries_graph.py: {part}: N and K must be multiples of 16 (torch._scaled_mm): {odd}")
for shapes, runs in PARTS[part][1]:
    for s in shapes:
        for run in runs:
            if run == ("block",):
                block_case(*s)
            else:
                case(*s, *run)
