#!/usr/bin/env python3
"""SASS proof of the Blackwell (sm_100a) kernels: the instructions they must contain.

No sm_100 GPU is available to this project, so besides ptxas accepting them the
kernels are checked by what they compile to. For every sm_100a kernel in the
library this counts, from `cuobjdump --dump-sass`:

  mma     tcgen05.mma            UTCHMMA / UTCMMA ... (.2CTA for cta_group::2)
  ldtm    tcgen05.ld             LDTM
  utmaldg TMA tensor loads       UTMALDG (.2D / .3D, .2CTA)
  utmastg TMA tensor stores      UTMASTG (.2D; v8's TMA-store epilogue)
  commit  tcgen05.commit         UTCBAR (.2CTA.MULTICAST)
  clc     clusterlaunchcontrol   UGETNEXTWORKID

and compares them with the committed tests/sass/sm100_sass_counts.json (kernels
named <registry entry>.<NN|TN>, the entry from the object file as the registry
names it: v1a_basic.cu.o -> sm100.v1a_basic). Every kernel must have mma, ldtm
and utmaldg > 0; the TMA-store epilogue steps (STORE_STEPS: v8_tma_store) must
also have utmastg > 0.

  check_sass.py build/libtcgemm.a            compare (exit 1 on a difference)
  check_sass.py build/libtcgemm.a --write    regenerate the counts file
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNTS = HERE / "sm100_sass_counts.json"

# Opcode (first token of a SASS instruction, after an optional predicate) -> category.
CATEGORIES = {
    "mma": re.compile(r"^UTC\w*MMA"),
    "ldtm": re.compile(r"^LDTM"),
    "utmaldg": re.compile(r"^UTMALDG"),
    "utmastg": re.compile(r"^UTMASTG"),
    "commit": re.compile(r"^UTCBAR"),
    "clc": re.compile(r"^UGETNEXTWORKID"),
}
REQUIRED = ("mma", "ldtm", "utmaldg")
# The Blackwell family's sources: objects of other sources built for sm_100a (the core's
# copy_matrices) are not GEMM kernels and are not counted.
FAMILY_SOURCES = {p.stem for p in (HERE.parents[1] / "cpp" / "src" / "sm100").glob("*.cu")}
STORE_STEPS = ("v8_tma_store",)  # steps whose epilogue is a TMA store: utmastg required too

_MEMBER = re.compile(r"^member .*?:(?P<obj>[^:\s]+)\.cu\.o:?\s*$")
_ARCH = re.compile(r"^\s*arch\s*=\s*(?P<arch>\S+)")
_FUNC = re.compile(r"^\s*Function\s*:\s*(?P<name>\S+)")
# "/*0120*/   @!P0 UTCHMMA.2CTA gdesc[UR4], ..." -> UTCHMMA.2CTA
_INSTR = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?(?P<op>[A-Z][A-Z0-9_.]*)")


def find_cuobjdump(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit
    found = shutil.which("cuobjdump")
    if found:
        return found
    for d in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if d and (Path(d) / "bin" / "cuobjdump").exists():
            return str(Path(d) / "bin" / "cuobjdump")
    # PyPI's nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm (what CI installs)
    for p in sys.path:
        for cu in ("cu13", "cu12"):
            cand = Path(p) / "nvidia" / cu / "bin" / "cuobjdump"
            if cand.exists():
                return str(cand)
    return None


def _env_for(cuobjdump: str) -> dict:
    """cuobjdump runs nvdisasm for --dump-sass: look for it beside cuobjdump too."""
    env = dict(os.environ)
    env["PATH"] = str(Path(cuobjdump).parent) + os.pathsep + env.get("PATH", "")
    return env


def demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("c++filt") or shutil.which("cu++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, check=False).stdout
    lines = out.splitlines()
    return dict(zip(names, lines)) if len(lines) == len(names) else {n: n for n in names}


def dump_sass(lib: Path, cuobjdump: str) -> str:
    # Only the sm_100a code: disassembling the Ada and Hopper kernels too took
    # most of CI's host-test time.
    r = subprocess.run([cuobjdump, "--dump-sass", "-arch", "sm_100a", str(lib)], capture_output=True, text=True,
                       check=False, env=_env_for(cuobjdump))
    if r.returncode != 0:
        raise RuntimeError(f"cuobjdump --dump-sass {lib} failed: {r.stderr.strip()}")
    return r.stdout


def has_sm100a(lib: Path, cuobjdump: str) -> bool:
    r = subprocess.run([cuobjdump, "--list-elf", str(lib)], capture_output=True, text=True, check=False)
    return r.returncode == 0 and "sm_100a" in r.stdout


def _kernel_label(obj: str, demangled: str) -> str:
    step = obj  # v1a_basic (of v1a_basic.cu.o): the registry entry sm100.v1a_basic
    m = re.search(r"\(tcgemm::Layout\)(\d)", demangled)
    layout = {"0": "NN", "1": "TN"}.get(m.group(1), "?") if m else "?"
    return f"sm100.{step}.{layout}"


def count(sass: str) -> dict[str, dict[str, int]]:
    """Per sm_100a kernel: instruction counts by category."""
    raw: list[tuple[str, str, dict[str, int]]] = []
    obj, arch, cur = "", "", None
    for line in sass.splitlines():
        if (m := _MEMBER.match(line)):
            obj = Path(m.group("obj")).name
            continue
        if (m := _ARCH.match(line)):
            arch = m.group("arch")
            continue
        if (m := _FUNC.match(line)):
            cur = None
            if arch == "sm_100a" and obj in FAMILY_SOURCES:
                cur = {c: 0 for c in CATEGORIES}
                raw.append((obj, m.group("name"), cur))
            continue
        if cur is not None and (m := _INSTR.match(line)):
            op = m.group("op")
            for c, rx in CATEGORIES.items():
                if rx.match(op):
                    cur[c] += 1
    names = demangle([n for _, n, _ in raw])
    out: dict[str, dict[str, int]] = {}
    for o, n, c in raw:
        label = _kernel_label(o, names[n])
        if label in out:  # two kernels with one label: keep both, distinguishable
            label = f"{label}#{n}"
        out[label] = c
    return dict(sorted(out.items()))


def compare(got: dict, want: dict) -> list[str]:
    problems = []
    for k in sorted(set(want) | set(got)):
        if k not in got:
            problems.append(f"{k}: in {COUNTS.name} but not in the library")
        elif k not in want:
            problems.append(f"{k}: in the library but not in {COUNTS.name} (regenerate with --write)")
        elif got[k] != want[k]:
            problems.append(f"{k}: got {got[k]}, committed {want[k]}")
    for k, c in got.items():
        for r in REQUIRED + (("utmastg",) if k.split(".")[1] in STORE_STEPS else ()):
            if c.get(r, 0) == 0:
                problems.append(f"{k}: no {r} instruction")
    return problems


def table(counts: dict) -> str:
    cols = list(CATEGORIES)
    rows = [f"{'kernel':<28}" + "".join(f"{c:>9}" for c in cols)]
    for k, c in counts.items():
        rows.append(f"{k:<28}" + "".join(f"{c.get(x, 0):>9}" for x in cols))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lib", type=Path, help="the built library, e.g. build/libtcgemm.a")
    ap.add_argument("--counts", type=Path, default=COUNTS)
    ap.add_argument("--write", action="store_true", help="regenerate the counts file")
    ap.add_argument("--cuobjdump", default=None)
    a = ap.parse_args(argv)
    tool = find_cuobjdump(a.cuobjdump)
    if not tool:
        print("cuobjdump not found (PATH, CUDA_HOME, /usr/local/cuda)", file=sys.stderr)
        return 2
    if not a.lib.exists():
        print(f"{a.lib}: no such file", file=sys.stderr)
        return 2
    if not has_sm100a(a.lib, tool):
        print(f"{a.lib}: holds no sm_100a code (built without 100a in TCGEMM_CUDA_ARCHS)", file=sys.stderr)
        return 2
    got = count(dump_sass(a.lib, tool))
    print(table(got))
    if a.write:
        doc = {
            "_about": "SASS instruction counts per sm_100a kernel (tests/sass/check_sass.py --write). "
            "mma=UTC*MMA (tcgen05.mma), ldtm=LDTM (tcgen05.ld), utmaldg=UTMALDG (TMA loads), "
            "utmastg=UTMASTG (TMA stores), "
            "commit=UTCBAR (tcgen05.commit), clc=UGETNEXTWORKID (clusterlaunchcontrol). Compiled, not run.",
            "kernels": got,
        }
        a.counts.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
        print(f"wrote {a.counts}")
        bad = [p for p in compare(got, got) if "no " in p]
        for p in bad:
            print("FAIL", p)
        return 1 if bad else 0
    want = json.loads(a.counts.read_text())["kernels"]
    problems = compare(got, want)
    for p in problems:
        print("FAIL", p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
