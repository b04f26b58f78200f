"""SASS checks. The Hopper swap's NN kernels (sm_90a) carry wgmma's transpose-A
bit, stream-K's kernels the release and acquire its fix-up rests on, and the Ada
FP8 kernels the FP8 tensor-core instruction on sm_89 and its fp16 form on sm_90a (the
end of this file). The Blackwell (sm_100a) kernels: no sm_100 GPU is available, so
the proof that they contain the tcgen05 MMA, TMEM load and TMA instructions is
the compiled code itself (tests/sass/check_sass.py against the committed
tests/sass/sm100_sass_counts.json). Runs when cuobjdump is available and the
built library holds sm_100a code; skips with the reason otherwise. The library
is $TCGEMM_LIB, else build/libtcgemm.a (where `pip install .` builds it)."""
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "sass"))
import check_sass  # noqa: E402


def _library():
    lib = Path(os.environ.get("TCGEMM_LIB", ROOT / "build" / "libtcgemm.a"))
    tool = check_sass.find_cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump not found: the sm_100a SASS check needs it (CUDA toolkit or nvidia-cuda-cuobjdump)")
    if not lib.exists():
        pytest.skip(f"{lib} not found: build the library (pip install .) or set TCGEMM_LIB")
    if not check_sass.has_sm100a(lib, tool):
        pytest.skip(f"{lib} holds no sm_100a code (TCGEMM_CUDA_ARCHS without 100a)")
    return lib, tool


@functools.lru_cache(maxsize=None)
def _counts(lib, tool):
    """One disassembly for all the tests of this file."""
    return check_sass.count(check_sass.dump_sass(lib, tool))


def test_sm100_kernels_contain_tcgen05_tmem_and_tma_instructions():
    lib, tool = _library()
    got = _counts(lib, tool)
    assert got, "no sm_100a kernels found in the library"
    for name, c in got.items():
        assert c["mma"] > 0, f"{name}: no tcgen05.mma (UTC*MMA)"
        assert c["ldtm"] > 0, f"{name}: no tcgen05.ld (LDTM)"
        assert c["utmaldg"] > 0, f"{name}: no TMA load (UTMALDG)"


def test_sm100_v8_epilogue_is_a_tma_store():
    """v8's one idea is the TMA-store epilogue: its kernels must contain UTMASTG
    (cp.async.bulk.tensor shared -> global). Only v8: the other steps store C
    from registers."""
    lib, tool = _library()
    got = _counts(lib, tool)
    v8 = {k: c for k, c in got.items() if k.startswith("sm100.v8_tma_store.")}
    assert set(v8) == {"sm100.v8_tma_store.NN", "sm100.v8_tma_store.TN"}, sorted(got)
    for name, c in v8.items():
        assert c["utmastg"] > 0, f"{name}: no TMA store (UTMASTG)"


def test_sm100_counts_match_committed_file():
    lib, tool = _library()
    want = json.loads(check_sass.COUNTS.read_text())["kernels"]
    got = _counts(lib, tool)
    assert check_sass.compare(got, want) == []


def test_every_sm100_registry_entry_is_in_the_counts_file():
    """Needs neither a GPU nor cuobjdump: the committed counts cover every registered step."""
    import tcgemm
    counts = json.loads(check_sass.COUNTS.read_text())["kernels"]
    steps = {k.split(".")[1] for k in counts}
    sm100 = [k for k in tcgemm.kernels() if k["family"] == "sm100"]
    assert sm100, "the sm100 family registers its ladder"
    for k in sm100:
        assert k["name"].split(".")[1] in steps, k["name"]
        for layout in ("NN", "TN"):
            assert f'{k["name"]}.{layout}' in counts, k["name"]


def _member_sass(member, tmp_path, arch="sm_90a"):
    """The sm_90a (or `arch`) SASS of one object file of the library (ar x: one member
    disassembles in about a second, the whole Hopper family takes minutes)."""
    lib = Path(os.environ.get("TCGEMM_LIB", ROOT / "build" / "libtcgemm.a"))
    tool, ar = check_sass.find_cuobjdump(), shutil.which("ar")
    if tool is None or ar is None:
        pytest.skip("cuobjdump and ar are needed to read one object file's SASS")
    if not lib.exists():
        pytest.skip(f"{lib} not found: build the library (pip install .) or set TCGEMM_LIB")
    if subprocess.run([ar, "x", str(lib), member], cwd=tmp_path, capture_output=True).returncode != 0:
        pytest.skip(f"{lib} has no {member} (built without its family's targets?)")
    r = subprocess.run([tool, "--dump-sass", "-arch", arch, str(tmp_path / member)], capture_output=True,
                       text=True, env=check_sass._env_for(tool))
    if r.returncode != 0 or "Function" not in r.stdout:
        pytest.skip(f"{member} holds no {arch} code")
    return r.stdout


def _hgmma_by_kernel(sass):
    """{kernel: [HGMMA operand strings]} for every function of a SASS dump."""
    out, cur = {}, None
    for line in sass.splitlines():
        if (m := check_sass._FUNC.match(line)):
            cur = out.setdefault(m.group("name"), [])
        elif cur is not None and "HGMMA" in line:
            cur.append(line.split("HGMMA", 1)[1].split(";")[0])
    return {k: v for k, v in out.items() if v}


def test_sm90_swapped_nn_kernels_read_the_weight_mn_major(tmp_path):
    """sm90.ws_splitk.swap.dsmem on NN (x @ w, the weight K x N) computes
    D^T = W^T x^T with the weight as an MN-major A: every wgmma of those
    kernels must carry the transpose-A bit (HGMMA ....tnspA) and a K-major B
    (no .tnspB); the TN kernels of the same entry neither. This shows what
    the compiler emitted, not that the results are right: the GPU suites do
    that (test_swap_cluster_split_tile_heights and every NN split-K test)."""
    nn = _hgmma_by_kernel(_member_sass("ws_splitk_swap_dsmem_nn.cu.o", tmp_path))
    tn = _hgmma_by_kernel(_member_sass("ws_splitk_swap_dsmem.cu.o", tmp_path))
    # 2 dtypes x (n16, n32, n64, n128) x (64- and 128-row weight tiles)
    assert len(nn) == 16 and len(tn) == 16, (len(nn), len(tn))
    for name, ops in nn.items():
        assert all(".tnspA" in o and ".tnspB" not in o for o in ops), (name, ops)
    for name, ops in tn.items():
        assert not any(".tnsp" in o for o in ops), (name, ops)


def test_compare_sass_reads_both_spellings_of_a_configuration():
    """tests/sass/compare_sass.py keys a warp-specialized kernel by its configuration's named
    fields, whichever way the mangled name spells it (needs neither a GPU nor cuobjdump)."""
    import compare_sass

    positional = ("void tcgemm::sm90::ws_kernel<tcgemm::sm90::WsConfig<256, 4, true, 2, 8, true, 2, true, false, 2, "
                  "false, false>, (tcgemm::DType)0, (tcgemm::Layout)1>(CUtensorMap_st, CUtensorMap_st, "
                  "CUtensorMap_st, tcgemm::sm90::Params)")
    named = ("void tcgemm::sm90::ws_kernel<tcgemm::sm90::WsTraits<tcgemm::sm90::WsConfig{256, 4, 2, "
             "(tcgemm::sm90::Math)0, 2, 2, (tcgemm::sm90::Schedule)2, 8, (tcgemm::sm90::Store)1, "
             "(tcgemm::sm90::Operands)0}>, (tcgemm::DType)0, (tcgemm::Layout)1>(CUtensorMap_st, CUtensorMap_st, "
             "CUtensorMap_st, tcgemm::sm90::Params)")
    key = compare_sass.canonical_name(positional)
    assert key == compare_sass.canonical_name(named)
    assert "cluster_n=2, schedule=split_k" in key and "store=tma" in key, key
    # Trailing zero-valued fields may be left out of a mangled class-type argument.
    short = named.replace(", (tcgemm::sm90::Operands)0}", "}")
    assert compare_sass.canonical_name(short) == key
    # A different configuration is a different kernel.
    assert compare_sass.canonical_name(named.replace("{256, 4,", "{256, 5,")) != key


def _ops_by_kernel(sass, marker):
    """{kernel: [instruction text]} for every function of a SASS dump whose name holds `marker`."""
    out, cur = {}, None
    for line in sass.splitlines():
        if (m := check_sass._FUNC.match(line)):
            cur = out.setdefault(m.group("name"), []) if marker in m.group("name") else None
        elif cur is not None and (m := check_sass._INSTR.match(line)):
            cur.append(line.split("*/", 1)[1].split(";")[0].strip())
    return out


def test_sm90_streamk_kernels_hold_the_fixup_release_and_acquire(tmp_path):
    """sm90.ws_streamk publishes a partial tile with red.release.gpu and waits for
    one with ld.acquire.gpu (ptx/flag.h; PTX ISA memory consistency model). On
    sm_90a the release is MEMBAR.ALL.GPU then a strong GPU-scope REDG, the
    acquire a strong GPU-scope 32-bit LDG then CCTL.IVALL (L1 invalidated, so
    the peer's partial is read from L2). Each of the entry's four kernels (two
    dtypes, two layouts) must hold both, and the wait must back off
    (NANOSLEEP). What the compiler emitted, not that the fix-up is right: the
    GPU suites check the results (test_call_path.py:
    test_stream_k_is_bit_identical_across_calls_and_replays)."""
    kernels = _ops_by_kernel(_member_sass("ws_streamk.cu.o", tmp_path), "ws_streamk_kernel")
    assert len(kernels) == 4, sorted(kernels)
    for name, ops in kernels.items():
        red = [i for i, o in enumerate(ops) if o.startswith("REDG.E.ADD.S32.STRONG.GPU")]
        assert red, f"{name}: no GPU-scope red (the release)"
        assert all("MEMBAR.ALL.GPU" in ops[max(0, i - 4):i] for i in red), f"{name}: a red without the release fence"
        acq = [i for i, o in enumerate(ops) if o.startswith("LDG.E.STRONG.GPU ")]
        assert acq, f"{name}: no GPU-scope 32-bit load (the acquire)"
        assert all("CCTL.IVALL" in ops[i + 1:i + 4] for i in acq), f"{name}: an acquire load without CCTL.IVALL"
        assert any(o.startswith("NANOSLEEP") for o in ops), f"{name}: the flag wait does not back off"


def _res_usage_by_kernel(member, tmp_path):
    """{kernel: 'REG:.. STACK:.. SHARED:.. LOCAL:..'} of one object file the _member_sass call extracted."""
    tool = check_sass.find_cuobjdump()
    r = subprocess.run([tool, "-res-usage", str(tmp_path / member)], capture_output=True, text=True,
                       env=check_sass._env_for(tool))
    out, name = {}, None
    for line in r.stdout.splitlines():
        if line.strip().startswith("Function "):
            name = line.strip()[len("Function "):].rstrip(":")
        elif name and "REG:" in line:
            out[name] = line.strip()
            name = None
    return out


# Each Hopper FP8 entry's object file: its wgmma widths, the stack it may use (8 bytes where 2-CTA
# clusters multicast B: the producer keeps one word there across a tile, as ws_mcast's 16-bit producer
# does, with 40 registers after setmaxnreg.dec; so does the scale-warp entry's producer warpgroup
# around the scheduler's 64-bit division, once a tile, and ping-pong's consumers in clusters, a word
# saved before the roles split and read in the scheduler's arithmetic, once a tile, outside the K
# loop; 24 for wide.tma_store, whose consumers keep six words of a tile's epilogue state in local
# memory across its boxes' TMA stores, after the K loop; 80
# for promoted.wide, whose fp32-output
# kernels keep 19 values of a finished tile in local memory in its epilogue, after the K loop), its
# kernels (three operand pairs x bf16, fp16, fp32 output; 16-bit output only: six; the swap: x 4
# widths x 2 weight-tile heights) and the wgmmas in its code (four k32 steps per m64 row block per
# place a stage is issued: ping-pong's consumer owns two blocks; the overlapped promotion issues from
# three places, its loop unrolled by two; the wide promoting entries issue a stage as two 128-column
# parts; the waiting block-scale entries' loops go two blocks a round, their scales in two sets).
_SM90_FP8 = {"ws_fp8.cu.o": ({128}, 0, 9, 4), "ws_fp8_block.cu.o": ({128}, 0, 9, 8),
             "ws_fp8_mcast.cu.o": ({128}, 8, 9, 4), "ws_fp8_wide.cu.o": ({256}, 8, 9, 4),
             "ws_fp8_tile192.cu.o": ({192}, 8, 9, 4),
             "ws_fp8_splitk.cu.o": ({256}, 0, 6, 4), "ws_fp8_wide_tma_store.cu.o": ({256}, 24, 6, 4),
             "ws_fp8_dsmem.cu.o": ({128}, 0, 9, 4), "ws_fp8_block_dsmem.cu.o": ({128}, 0, 9, 8),
             "ws_fp8_pingpong.cu.o": ({128}, 0, 6, 8), "ws_fp8_swap.cu.o": ({16, 32, 64, 128}, 0, 48, 4),
             "ws_fp8_promoted_swap.cu.o": ({16, 32, 64, 128}, 0, 48, 4),
             "ws_fp8_promoted.cu.o": ({128}, 0, 9, 4), "ws_fp8_promoted_dsmem.cu.o": ({128}, 0, 9, 4),
             "ws_fp8_promoted_overlap.cu.o": ({128}, 0, 9, 12), "ws_fp8_block_overlap.cu.o": ({128}, 0, 9, 12),
             "ws_fp8_promoted_wide.cu.o": ({128}, 80, 9, 8), "ws_fp8_block_wide.cu.o": ({128}, 8, 9, 16),
             "ws_fp8_promoted_mcast.cu.o": ({128}, 8, 9, 12), "ws_fp8_block_mcast.cu.o": ({128}, 8, 9, 12),
             "ws_fp8_block_overlap_scale_warp.cu.o": ({128}, 8, 9, 12),
             "ws_fp8_pingpong_mcast.cu.o": ({128}, 8, 6, 8)}


# The entries that promote (fp32 accumulation): each 128-K stage's first wgmma starts a fresh sum
# (scale-d = 0: QGMMA ... RZ, !UPT; one per place a stage is issued) that is added into fp32
# registers; the others accumulate in the wgmma's registers over the whole K and start none fresh
# (their accumulators are zeroed once).
_SM90_FP8_PROMOTING = {"ws_fp8_block.cu.o", "ws_fp8_block_dsmem.cu.o", "ws_fp8_promoted.cu.o",
                       "ws_fp8_promoted_swap.cu.o", "ws_fp8_promoted_dsmem.cu.o", "ws_fp8_promoted_overlap.cu.o", "ws_fp8_block_overlap.cu.o",
                       "ws_fp8_promoted_wide.cu.o", "ws_fp8_block_wide.cu.o", "ws_fp8_promoted_mcast.cu.o",
                       "ws_fp8_block_mcast.cu.o", "ws_fp8_block_overlap_scale_warp.cu.o"}


def _k_loop_local_accesses(sass, marker):
    """{kernel: LDL / STL instructions in its K loop} for the functions whose name holds `marker`: the
    loop runs from the last mbarrier wait before its first wgmma to the first branch after its last
    wgmma that jumps back before the first (a loop whose wgmmas are all issued inside it)."""
    out = {}
    for fn in sass.split("Function : ")[1:]:
        name = fn.split("\n", 1)[0].strip()
        if marker not in name:
            continue
        ins = [(int(m.group(1), 16), m.group(2).strip()) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", fn)]
        gmma = [a for a, t in ins if "GMMA" in t]
        start = max(a for a, t in ins if a < gmma[0] and "TRYWAIT" in t)
        end = next(a for a, t in ins if a > gmma[-1] and (b := re.search(r"BRA (?:\S+ )?0x([0-9a-f]+)", t))
                   and int(b.group(1), 16) < gmma[0])
        out[name] = [t for a, t in ins if start <= a <= end and re.match(r"(@\S+ )?(LDL|STL)", t)]
    return out


# The 256-wide entries whose stack (above) holds epilogue values: outside the K loop only.
_SM90_FP8_WIDE_PROMOTING = {"ws_fp8_promoted_wide.cu.o", "ws_fp8_block_wide.cu.o"}
_SM90_FP8_WIDE_STACK = _SM90_FP8_WIDE_PROMOTING | {"ws_fp8_wide_tma_store.cu.o"}


@pytest.mark.parametrize("member", sorted(_SM90_FP8_WIDE_STACK))
def test_sm90_fp8_wide_keeps_its_k_loop_in_registers(member, tmp_path):
    """The 256-wide promoting entries keep 128 accumulators and one 128-column part's 64-register fresh
    sum per consumer thread (sm90/ws_config.cuh, FRESH_N); wide.tma_store keeps 128 accumulators beside
    its TMA store's state: every kernel's K loop -- the wgmmas, their waits and adds -- touches no local
    memory (no LDL / STL between the slot's wait and the loop's back branch), whatever its epilogue
    keeps on the stack."""
    loops = _k_loop_local_accesses(_member_sass(member, tmp_path), "ws_scaled_kernel")
    assert len(loops) == _SM90_FP8[member][2], sorted(loops)
    for name, local in loops.items():
        assert local == [], (name, local)


def _k_loops(sass, marker):
    """{kernel: its K loop's instructions, predicates dropped} for the functions whose name holds
    `marker`: the shortest span from a backward branch's target to the branch that holds an MMA."""
    out = {}
    for fn in sass.split("Function : ")[1:]:
        name = fn.split("\n", 1)[0].strip()
        if marker not in name:
            continue
        ins = [(int(m.group(1), 16), m.group(2).strip()) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", fn)]
        spans = [(int(b.group(1), 16), a) for a, t in ins
                 if (b := re.search(r"BRA (?:\S+ )?0x([0-9a-f]+)", t)) and int(b.group(1), 16) <= a]
        start, end = min(((t, a) for t, a in spans if any(t <= x <= a and "MMA" in y for x, y in ins)),
                         key=lambda s: s[1] - s[0])
        out[name] = [re.sub(r"^@!?U?P\w+\s+", "", t) for a, t in ins if start <= a <= end]
    return out


def _k_loop_load_gaps(sass, marker):
    """{kernel: [(load, its first reader, the instructions between)]} for the functions whose name
    holds `marker`: each global load in the K loop (_k_loops) and the next instruction, in loop order
    round the back branch, that reads or overwrites its register. That instruction waits for the
    load's L2 round trip: what lies between is what the round trip can hide behind."""
    out = {}
    regs = lambda s: set(re.findall(r"(?<![\w.])R(\d+)\b", s))
    for name, loop in _k_loops(sass, marker).items():
        gaps = []
        for i, t in enumerate(loop):
            if not t.startswith("LDG"):
                continue
            dst = regs(t.split(",")[0])
            for k in range(1, len(loop)):
                u = loop[(i + k) % len(loop)]
                if dst & regs(u):
                    gaps.append((t, u, [loop[(i + j) % len(loop)] for j in range(1, k)]))
                    break
        out[name] = gaps
    return out


# The block-scale entries: scales loaded in the K loop (sm90/ws_kernel_body.inc, two sets).
_SM90_FP8_BLOCK = {"ws_fp8_block.cu.o", "ws_fp8_block_dsmem.cu.o", "ws_fp8_block_overlap.cu.o",
                   "ws_fp8_block_wide.cu.o", "ws_fp8_block_mcast.cu.o"}


@pytest.mark.parametrize("member", sorted(_SM90_FP8_BLOCK))
def test_sm90_fp8_block_scales_land_before_they_are_used(member, tmp_path):
    """A block's scales are loaded in the K loop a block or two before its promotion reads them
    (sm90/epilogue_scales.cuh, load_block_scales): no instruction in the loop -- a product, a copy,
    a move to a uniform register -- reads or overwrites a just-loaded scale before the next wgmma
    wait. One that did would hold the consumer for the L2 round trip among the block's wgmma issues
    (the loop had three such products per block, and copies between three rotating scale sets)."""
    loops = _k_loop_load_gaps(_member_sass(member, tmp_path), "ws_scaled_kernel")
    assert len(loops) == 9, sorted(loops)
    for name, gaps in loops.items():
        assert gaps, name  # (the scales are loaded in the loop)
        early = [(load, use) for load, use, between in gaps if not any("WARPGROUP.DEPBAR" in t for t in between)]
        assert early == [], (name, early)


# The block-scale entries whose scales the scale warp brings (BlockScaleLoads::scale_warp).
_SM90_FP8_SCALE_WARP = {"ws_fp8_block_overlap_scale_warp.cu.o"}


@pytest.mark.parametrize("member", sorted(_SM90_FP8_SCALE_WARP))
def test_sm90_fp8_scale_warp_brings_the_scales_and_the_k_loop_reads_them_after_its_waits(member, tmp_path):
    """The scale warp copies each stage's scales with cp.async (LDGSTS) and arrives on the stage's full
    barrier when they land (ARRIVES.LDGSTSBAR); the consumers' K loop then loads nothing from global
    memory, and reads each block's scales from shared memory only after a wgmma wait -- no LDS between
    a block's first wgmma and the wait, where its product would hold the next wgmma's issue (read
    before the wgmmas, ptxas put the product between two of them)."""
    sass = _member_sass(member, tmp_path)
    kernels = _ops_by_kernel(sass, "ws_scaled_kernel")
    assert len(kernels) == 9, sorted(kernels)
    for name, ops in kernels.items():
        assert any("LDGSTS" in o for o in ops), name
        assert any("ARRIVES.LDGSTSBAR" in o for o in ops), name
    for name, loop in _k_loops(sass, "ws_scaled_kernel").items():
        assert not [t for t in loop if t.startswith("LDG")], name
        reads = [i for i, t in enumerate(loop) if t.startswith("LDS")]
        assert reads, name  # (the scales are read in the loop)
        for i in reads:
            last = next(t for t in reversed(loop[:i]) if "GMMA" in t or "WARPGROUP.DEPBAR" in t)
            assert "WARPGROUP.DEPBAR" in last, (name, loop[i], last)


@pytest.mark.parametrize("member", sorted(_SM90_FP8))
def test_sm90_fp8_kernels_hold_fp8_wgmma_and_no_local_memory(member, tmp_path):
    """The Hopper FP8 entries (sm90.ws_fp8*): every kernel of an entry must issue the FP8 wgmma of its
    pair at the entry's widths (QGMMA.64x<N>x32.F32.<A>.<B>), as many per stage as its tile needs,
    and keep every value in registers (LOCAL:0; STACK:0, or with multicast clusters at most the
    producer's 8 bytes). What the compiler emitted: tests/cpp/test_gpu_fp8.cpp runs them
    (docs/fp8.md)."""
    widths, stack_bytes, count, in_code = _SM90_FP8[member]
    sass = _member_sass(member, tmp_path)
    kernels = _ops_by_kernel(sass, "ws_scaled_kernel")
    assert len(kernels) == count, sorted(kernels)
    pairs = {"Fp8E1": "E4M3.E4M3", "Fp8E2": "E4M3.E5M2", "Fp8E3": "E5M2.E4M3"}
    seen, seen_widths = set(), set()
    for name, ops in kernels.items():
        pair = next(v for k, v in pairs.items() if k in name)
        seen.add(pair)
        mma = [o for o in ops if "GMMA" in o]
        assert len(mma) == in_code, (name, mma)
        kernel_widths = {int(o.split("x")[1]) for o in mma}
        assert len(kernel_widths) == 1 and kernel_widths <= widths, (name, mma)
        seen_widths |= kernel_widths
        assert all(o.startswith(f"QGMMA.64x{min(kernel_widths)}x32.F32.{pair} ") for o in mma), (name, mma)
        fresh = [o for o in mma if "RZ, !UPT" in o]
        assert len(fresh) == (len(mma) // 4 if member in _SM90_FP8_PROMOTING else 0), (name, mma)
        if "overlap" in member:
            # One group left in flight while the other sum is added: a wait down to 1 pending group
            # after each of the loop's two issues (the others wait for none: WARPGROUP.DEPBAR.LE gsb0, 0x0).
            # And no more waits for none than the two last blocks' adds: the wgmma asm does not name
            # the sums' registers to the wait, so were an add moved above its wait, ptxas would guard it
            # with a wait of its own and the overlap would quietly become waiting.
            waits = [o for o in ops if o.startswith("WARPGROUP.DEPBAR.LE gsb0")]
            assert sum(o.endswith("0x1") for o in waits) == 2, (name, waits)
            assert sum(o.endswith("0x0") for o in waits) == 2, (name, waits)
    assert seen == set(pairs.values()) and seen_widths == widths
    res = _res_usage_by_kernel(member, tmp_path)
    for name in kernels:
        stack = int(res[name].split("STACK:")[1].split()[0])
        assert "LOCAL:0 " in res[name] and stack <= stack_bytes, (name, res[name])


# The Ada FP8 entries (sm89.fp8_*): fp8_<part>.cu.o holds operand pair <part> of every entry.
_FP8_PARTS = {"fp8_0.cu.o": "E4M3.E4M3", "fp8_1.cu.o": "E4M3.E5M2", "fp8_2.cu.o": "E5M2.E4M3"}


@pytest.mark.parametrize("member", sorted(_FP8_PARTS))
def test_sm89_fp8_kernels_use_the_fp8_tensor_core_on_sm89_and_fp16_on_sm90(member, tmp_path):
    """sm_89 SASS of the Ada FP8 kernels: mma.sync m16n8k32 .e4m3/.e5m2 is QMMA.16832.F32.<A>.<B>,
    the FP8 tensor-core instruction, and no HMMA. sm_90a has no FP8 mma.sync in hardware: the same
    kernels convert each FP8 pair to f16x2 (F2FP.F16.E4M3/E5M2.UNPACK_B) and issue two
    HMMA.16816.F32 per m16n8k32 -- twice the sm_89 kernel's QMMA count, no QMMA. Neither spills
    (no local memory: LDL/STL). Each part: 2 entries x 3 outputs, block scales on fp8_mma: 9 kernels.
    What the compiler emitted, not that the results are right: tests/cpp/test_gpu_fp8.cpp does that."""
    pair = _FP8_PARTS[member]
    sm89 = _ops_by_kernel(_member_sass(member, tmp_path, "sm_89"), "mma_fp8_gemm_kernel")
    assert len(sm89) == 9, sorted(sm89)
    qmma = {}
    for name, ops in sm89.items():
        qmma[name] = sum(o.startswith(f"QMMA.16832.F32.{pair} ") for o in ops)
        assert qmma[name] > 0, f"{name}: no QMMA.16832.F32.{pair}"
        assert not any(o.startswith("HMMA") for o in ops), f"{name}: an HMMA on sm_89"
        assert not any(o.startswith(("LDL", "STL")) for o in ops), f"{name}: local memory (a spill) on sm_89"
    sm90 = _ops_by_kernel(_member_sass(member, tmp_path, "sm_90a"), "mma_fp8_gemm_kernel")
    assert set(sm90) == set(sm89), sorted(set(sm90) ^ set(sm89))
    for name, ops in sm90.items():
        assert not any(o.startswith("QMMA") for o in ops), f"{name}: a QMMA on sm_90a"
        assert sum(o.startswith("HMMA.16816.F32 ") for o in ops) == 2 * qmma[name], name
        assert any(o.startswith("F2FP.F16.") and ".UNPACK_B" in o for o in ops), f"{name}: no FP8 -> f16x2 unpack"
        assert not any(o.startswith(("LDL", "STL")) for o in ops), f"{name}: local memory (a spill) on sm_90a"


# The Ada ladder's 8-warp 128x256 steps: instructions per MMA in the innermost mainloop
# (tests/sass/loop_mix.py). CUTLASS sm80's 128x256x32 4-stage kernel, compiled for sm_90a in
# bench/cutlass's binary and read the same way, issues 2.38 (TN) and 2.19 (NN); these issue
# 1.9-2.2: what the family issues per MMA is not where it trails CUTLASS, if it does.
# Per member: the tiles of its 8-warp steps (Config<MmaConfig{bm, bn, bk, ...}>: the tile leads).
_SM89_8W = {"ladder_4.cu.o": ["128, 256, 64,"], "ladder_5.cu.o": ["128, 256, 64,"],
            "ladder_6.cu.o": ["128, 256, 32,"], "ladder_7.cu.o": ["128, 256, 32,", "128, 256, 64,"],
            "ladder_8.cu.o": ["128, 256, 32,", "128, 256, 64,"]}


def _sm89_loops(member, tmp_path, tile):
    import loop_mix
    loops = loop_mix.innermost_mma_loops(_member_sass(member, tmp_path))
    labels = check_sass.demangle(sorted(loops))
    mine = {labels[n]: lp for n, lp in loops.items() if f"MmaConfig{{{tile}" in labels[n]}
    # bf16 / fp16 x TN / NN, fp16 also with fp16 accumulation (ladder.cuh's instantiations)
    assert len(mine) == 6, sorted(labels.values())
    return mine


@pytest.mark.parametrize("member", sorted(_SM89_8W))
def test_sm89_8warp_mainloops_issue_at_most_cutlass_instructions_per_mma(member, tmp_path):
    for tile in _SM89_8W[member]:
        for name, lp in _sm89_loops(member, tmp_path, tile).items():
            assert lp.mma in (64, 128) and lp.per_mma <= 2.2, (name, lp.instructions, lp.mma, lp.ops.most_common(6))


def test_sm89_ldsm_first_runs_fragment_loads_further_ahead(tmp_path):
    """sm89.mma_ldsm_first_8w_k32.s4 issues step kk+1's ldmatrix ahead of the step's copies
    (SpreadOrder::ldsm_first), so ptxas need not keep them behind the cp.async: in the loop each
    ldmatrix runs further ahead of the first MMA reading it (loop_mix's lead) than in
    sm89.mma_spread_8w_k32.s4, the same tile with the copies first, on every instantiation; on TN
    at least 16 MMAs ahead, as CUTLASS sm80's 128x256x32 4-stage loop (16 on TN and NN; the
    copies-first loop 12 on TN, 6 on NN)."""
    first = _sm89_loops("ladder_6.cu.o", tmp_path, "128, 256, 32,")
    ldsm = _sm89_loops("ladder_7.cu.o", tmp_path, "128, 256, 32,")
    # the same instantiation on both sides: the label past the configuration (dtype, accumulator, layout)
    rest = lambda label: label.split("}>", 1)[1]
    before = {rest(n): lp for n, lp in first.items()}
    for name, lp in ldsm.items():
        old = before[rest(name)]
        # a lead as long as the loop would mean no MMA read the load: the measure found nothing
        assert max(lp.lead) < lp.mma and max(old.lead) < old.mma, (name, max(lp.lead), max(old.lead))
        assert min(lp.lead) > min(old.lead), (name, sorted(lp.lead), sorted(old.lead))
        if "(tcgemm::Layout)1" in rest(name):  # Layout::TN
            assert min(lp.lead) >= 16, (name, sorted(lp.lead))


def test_sm89_ragged_kernel_moves_elements_not_chunks(tmp_path):
    """sm89.mma_ragged.s2 (mma_ragged_gemm.cuh) takes rows that start at any 2-byte boundary, so none
    of its global accesses may assume more: no cp.async (LDGSTS), no global load or store wider than
    32 bits (the 32-bit loads are the f32 bias's, which check_args holds 4-byte aligned), C stored
    16 bits at a time. The gathered slices reach shared memory as 16-byte stores and the fragments
    come by ldmatrix, as in the other Ada kernels; nothing in local memory. What the compiler
    emitted: test_gpu_gemm.cpp (run_any_rows_case) runs it."""
    member = "mma_ragged.cu.o"
    kernels = _ops_by_kernel(_member_sass(member, tmp_path), "mma_ragged_gemm_kernel")
    assert len(kernels) == 6, sorted(kernels)  # f16 / f16-accumulating f16 / bf16, NN and TN
    for name, ops in kernels.items():
        bare = [re.sub(r"^@!?U?P\w+\s+", "", o).split()[0] for o in ops]
        glob = [o for o in bare if o.startswith(("LDG", "STG", "ATOMG", "REDG"))]
        assert "LDGSTS" not in {o.split(".")[0] for o in glob}, name
        assert not [o for o in glob if ".64" in o or ".128" in o], (name, sorted(set(glob)))
        assert {o for o in glob if o.startswith("STG")} == {"STG.E.U16"}, (name, sorted(set(glob)))
        assert "LDG.E.U16" in glob and "STS.128" in bare, (name, sorted(set(bare)))
        assert any(o.startswith("LDSM") for o in bare) and any(o.startswith("HMMA.16816") for o in bare), name
    res = _res_usage_by_kernel(member, tmp_path)
    for name in kernels:
        assert "LOCAL:0 " in res[name] and "STACK:0 " in res[name], (name, res[name])


def test_sm89_skinny_kernel_copies_whole_granules(tmp_path):
    """sm89.mma_skinny.s4 (mma_skinny.cu) reads a weight whose rows start anywhere by aligned 16-byte
    copies: every cp.async (LDGSTS) moves 128 bits past L1 (.cg), some with a source size (ZFILL: a
    row's end); the other global loads are 16-bit (the granules gathered at the matrix's edges, the
    epilogue's source) or the f32 bias's 32 bits, none wider; C is stored 16 bits at a time. Fragments
    come from shared memory by LDS (no ldmatrix: the K order is the kernel's own), and a stage's MMAs
    are two HMMA.16816.F32 per n8 tile of x rows, as written; nothing in local memory. What the
    compiler emitted: test_gpu_gemm.cpp (run_any_rows_case) runs it."""
    member = "mma_skinny.cu.o"
    kernels = _ops_by_kernel(_member_sass(member, tmp_path), "mma_skinny_kernel")
    assert len(kernels) == 6, sorted(kernels)  # fp16 / bf16 x 8, 16 and 32 rows of x a block
    for name, ops in kernels.items():
        bare = [re.sub(r"^@!?U?P\w+\s+", "", o).split()[0] for o in ops]
        copies = [o for o in bare if o.startswith("LDGSTS")]
        assert copies and all(".128" in o for o in copies), (name, sorted(set(copies)))
        loads = {o for o in bare if o.startswith("LDG") and o.split(".")[0] not in ("LDGSTS", "LDGDEPBAR")}
        assert loads <= {"LDG.E.U16", "LDG.E"}, (name, sorted(loads))
        assert {o for o in bare if o.startswith("STG")} == {"STG.E.U16"}, (name, sorted(set(bare)))
        assert "LDS.128" in bare and not any(o.startswith("LDSM") for o in bare), name
        rows = int(re.search(r"Li(\d+)E", name).group(1))  # the MB template argument
        assert sum(o.startswith("HMMA.16816.F32") for o in bare) == 2 * rows // 8, (name, rows)
    res = _res_usage_by_kernel(member, tmp_path)
    for name in kernels:
        assert "LOCAL:0 " in res[name] and "STACK:0 " in res[name], (name, res[name])


def _fresh_group_moves(sass, marker):
    """{kernel: [R2UR count of each fresh wgmma group]} for the functions whose name holds `marker`: a
    promoting block's group runs from its first QGMMA, which starts a fresh sum (RZ, !UPT), to the next
    one that closes the group (gsb0); R2UR between them moves a per-lane value into a uniform register
    among the block's wgmma issues."""
    out = {}
    for fn in sass.split("Function : ")[1:]:
        name = fn.split("\n", 1)[0].strip()
        if marker not in name:
            continue
        ins = [m.group(2).strip() for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", fn)]
        groups = []
        for i, t in enumerate(ins):
            if "QGMMA" in t and "RZ, !UPT" in t:
                end = next(j for j in range(i, len(ins)) if "QGMMA" in ins[j] and "gsb0" in ins[j])
                groups.append(sum("R2UR" in u for u in ins[i:end + 1]))
        out[name] = groups
    return out


# The promoting entries whose consumer sums a block in one part (sm90/ws_kernel_body.inc, wrow0).
_SM90_FP8_ONE_PART_PROMOTING = _SM90_FP8_PROMOTING - _SM90_FP8_WIDE_PROMOTING


@pytest.mark.parametrize("member", sorted(_SM90_FP8_ONE_PART_PROMOTING))
def test_sm90_fp8_promoted_wgmmas_issue_from_uniform_registers(member, tmp_path):
    """A promoting consumer issues each block's wgmmas after waiting on the block before, so their issue
    is on the tensor cores' path: the warpgroup's first row is shuffled from lane 0, and ptxas builds
    every wgmma descriptor in uniform registers -- no R2UR between a block's first wgmma and its last
    (computed per lane from threadIdx.x, the row put six there; the overlapped form gained up to 17%
    without them, bench/results/h100_fp8_uniform_descriptors.md)."""
    groups = _fresh_group_moves(_member_sass(member, tmp_path), "ws_scaled_kernel")
    assert len(groups) == _SM90_FP8[member][2], sorted(groups)
    for name, moves in groups.items():
        assert moves, name  # (each kernel starts fresh sums)
        assert all(n == 0 for n in moves), (name, moves)


def test_sm90_fp8_pingpong_wgmmas_issue_from_uniform_registers(tmp_path):
    """FP8 ping-pong issues a stage's eight wgmmas (two m64 blocks, four k32 steps) between the fence and
    the group's commit with every descriptor in uniform registers: the warpgroup index is shuffled from
    lane 0 (sm90/ws_kernel_body.inc). Computed per lane, it put 24 R2UR there, and the kernel ran 2-12%
    slower on an H100 (bench/results/h100_uniform_warpgroup.md)."""
    sass = _member_sass("ws_fp8_pingpong.cu.o", tmp_path)
    kernels = 0
    for fn in sass.split("Function : ")[1:]:
        name = fn.split("\n", 1)[0].strip()
        if "ws_scaled_kernel" not in name:
            continue
        kernels += 1
        ins = [m.group(2).strip() for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", fn)]
        windows = []
        for i, t in enumerate(ins):
            if t.startswith("WARPGROUP.ARRIVE"):
                end = next(j for j in range(i, len(ins)) if "QGMMA" in ins[j] and "gsb0" in ins[j])
                windows.append(ins[i:end + 1])
        assert windows, name
        for w in windows:
            assert sum("QGMMA" in t for t in w) == 8, (name, len(w))
            assert not any("R2UR" in t for t in w), (name, [t for t in w if "R2UR" in t])
    assert kernels == 6
