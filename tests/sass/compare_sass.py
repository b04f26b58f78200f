#!/usr/bin/env python3
"""Per-kernel SASS identity of two builds: a refactor that means to change no
generated code proves it here.

  compare_sass.py BEFORE_BUILD AFTER_BUILD [--family sm90] [-v]

Every CUDA object (*.cu.o) under each build directory is disassembled
(`cuobjdump -sass`, `cuobjdump -res-usage`). A kernel is identified by what
it is, not by its mangled name or its object file: the demangled name with
the warp-specialized kernel's configuration rewritten to its named fields
(CANONICAL below reads both spellings: the positional
WsConfig<256, 4, true, 1, 8, true, 2, true, false, 1, false, false> and the
named WsTraits<WsConfig{256, 4, 2, (Math)0, ...}>; the Ada family's Config<128, 256, 32, ...> and
Config<MmaConfig{128, 256, 32, ...}> alike), so a kernel keeps its key
through a rename of its configuration type or a move to another translation
unit. Its body is the instruction stream -- text and encoding, addresses
function-relative as cuobjdump prints them -- plus its resource usage (REG,
STACK, SHARED, LOCAL, CONSTANT). A kernel instantiated in several objects
(splitk_reduce's, in every translation unit that launches it) is compared as
the set of its distinct bodies: splitting a translation unit in two changes
how many copies there are, not what they are.

Prints one line per kernel (identical / different / only before / only
after) and exits 1 on any difference or a kernel present on one side only.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_sass  # noqa: E402  (find_cuobjdump, _env_for)

_FUNC = re.compile(r"^\s*Function\s*:\s*(?P<name>\S+)")
_ARCH = re.compile(r"^\s*code for (?P<arch>sm_\w+)")
_INSTR = re.compile(r"^\s*/\*(?P<addr>[0-9a-f]{4,})\*/\s+(?P<text>.*?)\s*;\s*/\*\s*(?P<enc>0x[0-9a-f]+)\s*\*/")
_ENC2 = re.compile(r"^\s*/\*\s*(?P<enc>0x[0-9a-f]+)\s*\*/\s*$")
_RES_FUNC = re.compile(r"^\s*Function (?P<name>\S+):\s*$")
_LABEL = re.compile(r"`\(([^)]*)\)")

# The named fields of the warp-specialized configuration (sm90/ws_config.cuh),
# in declaration order, and the enums' value names.
FIELDS = ("tile_n", "stages", "consumers", "math", "cluster_m", "cluster_n", "schedule", "raster_group", "store",
          "operands", "fp8", "scaling", "promotion", "m_blocks", "block_scale_loads")
# A field a name leaves out (the trailing ones, added later) reads as its default.
DEFAULTS = {"m_blocks": 1, "block_scale_loads": 0}
ENUMS = {
    "math": ("cooperative", "ping_pong"),
    "schedule": ("one_tile", "data_parallel", "split_k", "cluster_split", "stream_k"),
    "store": ("direct", "tma"),
    "operands": ("as_given", "swapped"),
    "fp8": ("none", "e4m3_e4m3", "e4m3_e5m2", "e5m2_e4m3"),
    "scaling": ("none", "epilogue", "block"),
    "promotion": ("none", "per_block", "overlapped"),
    "block_scale_loads": ("consumers", "scale_warp"),
}


def _positional(args: list[str]) -> dict:
    """WsConfig<kBN, kStages, kPersistent, kClusterM, kGroup, kTmaStore, kConsumers, kSplitK, kPingPong,
    kClusterN, kSwapAB, kClusterSplit> (the positional form) -> named fields."""
    v = [a.strip() for a in args]
    b = lambda s: {"true": True, "false": False}[s]  # noqa: E731
    bn, stages, persistent, cm, group, tma, consumers, splitk, pingpong, cn, swap, csplit = v
    if not b(persistent):
        schedule = "one_tile"
        assert not b(splitk) and not b(csplit), v
    elif b(csplit):
        schedule = "cluster_split"
    elif b(splitk):
        schedule = "split_k"
    else:
        schedule = "data_parallel"
    return {"tile_n": int(bn), "stages": int(stages), "consumers": int(consumers),
            "math": "ping_pong" if b(pingpong) else "cooperative", "cluster_m": int(cm), "cluster_n": int(cn),
            "schedule": schedule, "raster_group": int(group), "store": "tma" if b(tma) else "direct",
            "operands": "swapped" if b(swap) else "as_given", "fp8": "none", "scaling": "none", "promotion": "none",
            "m_blocks": 1, "block_scale_loads": "consumers"}


def _named(args: list[str]) -> dict:
    """WsConfig{256, 4, 2, (tcgemm::sm90::Math)0, ...} (the named form, values in field order; trailing
    zero-valued fields may be left out by the mangling) -> named fields."""
    out = {}
    for i, field in enumerate(FIELDS):
        raw = args[i].strip() if i < len(args) else str(DEFAULTS.get(field, 0))
        m = re.fullmatch(r"(?:\([\w:]+\))?(-?\d+)", raw)
        assert m, (field, raw)
        n = int(m.group(1))
        out[field] = ENUMS[field][n] if field in ENUMS else n
    return out


def _canon(fields: dict) -> str:
    return "WsConfig{" + ", ".join(f"{k}={fields[k]}" for k in FIELDS) + "}"


# The Ada mainloop's configuration (sm89/mma_config.h), in declaration order, and its defaults: the
# positional Config<128, 256, 32, 2, 4, 4, true, true, true, 1, true, true, true, false> and the named
# Config<MmaConfig{128, 256, 32, 2, 4, 4, true, ...}> (trailing zero fields may be left out) read alike.
ADA_FIELDS = ("bm", "bn", "bk", "warps_m", "warps_n", "stages", "swizzle_a", "swizzle_b", "b_x4", "min_blocks",
              "frag_double_buffer", "addr_iter", "spread_copies", "unroll_stages")
ADA_DEFAULTS = {"swizzle_a": 0, "swizzle_b": 0, "b_x4": 0, "min_blocks": 1, "frag_double_buffer": 0,
                "addr_iter": 0, "spread_copies": 0, "unroll_stages": 0}


def _ada(args: list[str], named: bool) -> str:
    vals = []
    for i, field in enumerate(ADA_FIELDS):
        raw = args[i].strip() if i < len(args) and args[i].strip() else None
        if raw is None:
            n = 0 if named else ADA_DEFAULTS[field]  # the mangling leaves out trailing zeros
        else:
            n = {"true": 1, "false": 0}.get(raw, None)
            n = int(re.fullmatch(r"(?:\([\w:]+\))?(-?\d+)", raw).group(1)) if n is None else n
        vals.append(f"{field}={n}")
    return "MmaConfig{" + ", ".join(vals) + "}"


# (pattern over the demangled name, rewrite of its args) -> the canonical spelling.
CANONICAL = (
    (re.compile(r"tcgemm::sm90::WsTraits<tcgemm::sm90::WsConfig\{(?P<args>[^{}]*)\}>"),
     lambda a: _canon(_named(a))),
    (re.compile(r"tcgemm::sm90::WsConfig<(?P<args>[^<>]*)>"), lambda a: _canon(_positional(a))),
    (re.compile(r"tcgemm::sm89::Config<tcgemm::sm89::MmaConfig\{(?P<args>[^{}]*)\}>"), lambda a: _ada(a, True)),
    (re.compile(r"tcgemm::sm89::Config<(?P<args>[^<>{}]*)>"), lambda a: _ada(a, False)),
)


def canonical_name(demangled: str) -> str:
    for pat, rewrite in CANONICAL:
        demangled = pat.sub(lambda m: rewrite(m.group("args").split(",")), demangled)
    return demangled


def demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("c++filt")
    if tool is None or not names:
        return {n: n for n in names}
    r = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, check=True)
    return dict(zip(names, r.stdout.splitlines()))


def _cuobjdump(tool: str, flag: str, obj: Path) -> str:
    r = subprocess.run([tool, flag, str(obj)], capture_output=True, text=True, env=check_sass._env_for(tool))
    if r.returncode != 0 and "does not contain" not in r.stderr:
        raise SystemExit(f"{tool} {flag} {obj}: {r.stderr.strip()}")
    return r.stdout


TEXTS: dict[str, str] = {}  # body digest -> body, for --diff


def kernels_of(obj: Path, tool: str) -> dict[tuple[str, str], str]:
    """{(arch, mangled name): body digest} of one object file."""
    bodies: dict[tuple[str, str], list[str]] = {}
    arch, cur = "?", None
    for line in _cuobjdump(tool, "-sass", obj).splitlines():
        if (m := _ARCH.match(line)):
            arch, cur = m.group("arch"), None
        elif (m := _FUNC.match(line)):
            cur = bodies.setdefault((arch, m.group("name")), [])
        elif cur is not None and (m := _INSTR.match(line)):
            labels: dict[str, str] = {}
            text = _LABEL.sub(lambda x: "`(" + labels.setdefault(x.group(1), f"L{len(labels)}") + ")", m.group("text"))
            cur.append(f"{m.group('addr')} {' '.join(text.split())} {m.group('enc')}")
        elif cur is not None and (m := _ENC2.match(line)):
            cur.append(m.group("enc"))
    res: dict[str, str] = {}
    name = None
    for line in _cuobjdump(tool, "-res-usage", obj).splitlines():
        if (m := _RES_FUNC.match(line)):
            name = m.group("name")
        elif name is not None and "REG:" in line:
            res[name] = " ".join(t for t in line.split() if t.split(":")[0] in ("REG", "STACK", "SHARED", "LOCAL")
                                 or t.startswith("CONSTANT"))
            name = None
    out = {}
    for (a, n), body in bodies.items():
        text = "\n".join(body) + "\nRES " + res.get(n, "?")
        out[(a, n)] = digest = hashlib.sha256(text.encode()).hexdigest()
        TEXTS.setdefault(digest, text)
    return out


def collect(build: Path, tool: str, family: str | None) -> dict[tuple[str, str], list[str]]:
    """{(arch, canonical kernel name): sorted body digests} of every *.cu.o under build."""
    objs = sorted(p for p in build.rglob("*.cu.o") if family is None or f"{family}.dir" in str(p) or
                  f"/{family}/" in str(p))
    if not objs:
        raise SystemExit(f"no *.cu.o under {build}" + (f" for family {family}" if family else ""))
    raw: dict[tuple[str, str], list[str]] = defaultdict(list)
    for obj in objs:
        for key, digest in kernels_of(obj, tool).items():
            raw[key].append(digest)
    names = demangle(sorted({n for _, n in raw}))
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for (arch, n), digests in raw.items():
        out[(arch, canonical_name(names[n]))].extend(digests)
    return {k: sorted(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--family", help="only objects of this family's target, e.g. sm90 (tcgemm_sm90.dir)")
    ap.add_argument("--cuobjdump")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only differences and the summary")
    ap.add_argument("--diff", type=int, default=0, metavar="LINES",
                    help="print the first LINES lines of a unified diff of each different kernel")
    args = ap.parse_args(argv)
    tool = check_sass.find_cuobjdump(args.cuobjdump)
    if tool is None:
        raise SystemExit("cuobjdump not found (CUDA toolkit, or pip install nvidia-cuda-cuobjdump "
                         "nvidia-cuda-nvdisasm)")
    before = collect(args.before, tool, args.family)
    after = collect(args.after, tool, args.family)
    bad = same = 0
    for key in sorted(set(before) | set(after)):
        arch, name = key
        if key not in after:
            verdict = "only before"
        elif key not in before:
            verdict = "only after"
        elif set(before[key]) == set(after[key]):
            verdict = "identical"
        else:
            verdict = f"different ({len(set(before[key]))} vs {len(set(after[key]))} distinct bodies)"
        if verdict == "identical":
            same += 1
        else:
            bad += 1
        if verdict != "identical" or not args.quiet:
            print(f"{verdict:12s} {arch} {name}")
        if verdict.startswith("different") and args.diff:
            old, new = TEXTS[before[key][0]].splitlines(), TEXTS[after[key][0]].splitlines()
            diff = list(difflib.unified_diff(old, new, "before", "after", lineterm="", n=1))
            print("\n".join(diff[: args.diff]))
    print(f"{same + bad} kernels compared: {same} identical, {bad} different or on one side only")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
