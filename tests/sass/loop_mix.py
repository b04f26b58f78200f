#!/usr/bin/env python3
"""The instruction mix of each kernel's innermost MMA loop, from `cuobjdump --dump-sass`.

A mma.sync mainloop's cost beyond its tensor-core instructions is what else
the warp issues per MMA (address arithmetic, ldmatrix, cp.async, barriers):
docs/ada.md measures its steps by it. This finds, per kernel, the smallest
loop (a backward branch and the code between its target and it) holding at
least MIN_MMA tensor-core instructions (HMMA, or QMMA on sm_89 FP8), and
counts its instructions by opcode.

  loop_mix.py OBJECT_OR_BINARY [--arch sm_90a] [--match REGEX]

prints, per kernel: the loop's instructions, its MMAs, instructions per MMA, how
many MMAs each ldmatrix (LDSM) runs ahead of the first MMA that reads it (its
lead: the fewest and the median) and the commonest opcodes. It reads any file cuobjdump reads: one object file of
libtcgemm.a (`ar x`), or a binary such as bench/cutlass's, whose CUTLASS
kernels are measured the same way.
"""
from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_sass  # noqa: E402

MIN_MMA = 16
_LINE = re.compile(r"^\s*/\*(?P<addr>[0-9a-f]{4,})\*/\s+(?P<text>[^;]*);")
_BRANCH = re.compile(r"\bBRA\b.*?0x(?P<target>[0-9a-f]+)")
_MMA = re.compile(r"^(HMMA|QMMA)\b")


@dataclass
class Loop:
    instructions: int
    mma: int
    ops: collections.Counter
    # Per ldmatrix of the loop, the MMAs issued between it and the first MMA that reads what it loaded
    # (around the loop's back edge): how far ahead of their use the fragment loads run.
    lead: list

    @property
    def per_mma(self) -> float:
        return self.instructions / self.mma


def _opcode(text: str) -> str:
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]


_LDSM = re.compile(r"^LDSM(?P<op>\S*)\s+R(?P<dst>\d+)")
_REG = re.compile(r"\bR(\d+)\b")


def _leads(text: list[str]) -> list[int]:
    """For each LDSM in the loop body `text`, the MMAs between it and the first MMA reading one of the
    registers it writes (as A or B), following the loop around its back edge."""
    n, out = len(text), []
    for i, t in enumerate(text):
        if not (m := _LDSM.match(_strip_guard(t))):
            continue
        # LDSM.16.M88.4 / .MT88.4 writes four registers, .2 two, no count one
        count = int(m.group("op")[-1]) if m.group("op")[-2:] in (".2", ".4") else 1
        dst = set(range(int(m.group("dst")), int(m.group("dst")) + count))
        ahead = 0
        for k in range(1, n + 1):
            u = _strip_guard(text[(i + k) % n])
            if _MMA.match(u):
                # HMMA.16816 D, A, B, C: A is four registers from the one named, B two
                regs = [int(r) for r in _REG.findall(u.split(",", 1)[1])]
                srcs = {regs[0] + d for d in range(4)} | {regs[1] + d for d in range(2)} if len(regs) >= 2 else set()
                if srcs & dst:
                    break
                ahead += 1
        out.append(ahead)
    return out


def _strip_guard(text: str) -> str:
    return re.sub(r"^@!?U?P\w+\s+", "", text)


def innermost_mma_loops(sass: str) -> dict[str, Loop]:
    """{kernel: its smallest loop with at least MIN_MMA MMAs}; kernels without one are left out."""
    kernels: dict[str, list[tuple[int, str]]] = {}
    cur = None
    for line in sass.splitlines():
        if (m := check_sass._FUNC.match(line)):
            cur = kernels.setdefault(m.group("name"), [])
        elif cur is not None and (m := _LINE.match(line)):
            cur.append((int(m.group("addr"), 16), m.group("text").strip()))
    out = {}
    for name, code in kernels.items():
        index = {addr: i for i, (addr, _) in enumerate(code)}
        best = None
        for i, (addr, text) in enumerate(code):
            m = _BRANCH.search(text)
            if not m or (target := int(m.group("target"), 16)) >= addr or target not in index:
                continue
            text = [t for _, t in code[index[target]:i + 1]]
            body = [_opcode(t) for t in text]
            mma = sum(bool(_MMA.match(op)) for op in body)
            if mma >= MIN_MMA and (best is None or len(body) < best.instructions):
                best = Loop(len(body), mma, collections.Counter(op.split(".")[0] for op in body), _leads(text))
        if best:
            out[name] = best
    return out


def dump(path: Path, arch: str) -> str:
    tool = check_sass.find_cuobjdump()
    if tool is None:
        raise SystemExit("cuobjdump not found (CUDA toolkit or nvidia-cuda-cuobjdump)")
    r = subprocess.run([tool, "--dump-sass", "-arch", arch, str(path)], capture_output=True, text=True,
                       env=check_sass._env_for(tool))
    if r.returncode != 0:
        raise SystemExit(r.stderr.strip() or f"cuobjdump failed on {path}")
    return r.stdout


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path)
    p.add_argument("--arch", default="sm_90a")
    p.add_argument("--match", default="", help="only kernels whose mangled name matches this regex")
    args = p.parse_args(argv)
    loops = innermost_mma_loops(dump(args.path, args.arch))
    names = [n for n in loops if re.search(args.match, n)]
    if not names:
        print("no kernel with an MMA loop matched", file=sys.stderr)
        return 1
    labels = check_sass.demangle(names)
    for name in names:
        lp = loops[name]
        common = ", ".join(f"{op} {n}" for op, n in lp.ops.most_common(8))
        lead = f", ldmatrix lead min {min(lp.lead)} median {sorted(lp.lead)[len(lp.lead) // 2]} MMAs" if lp.lead else ""
        print(f"{labels.get(name, name)[:160]}\n  {lp.instructions} instructions, {lp.mma} MMA, "
              f"{lp.per_mma:.2f} per MMA{lead}: {common}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
