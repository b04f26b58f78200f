"""SASS check of the Blackwell (sm_100a) kernels: no sm_100 GPU is available, so
the proof that they contain the tcgen05 MMA, TMEM load and TMA instructions is
the compiled code itself (tests/sass/check_sass.py against the committed
tests/sass/sm100_sass_counts.json). Runs when cuobjdump is available and the
built library holds sm_100a code; skips with the reason otherwise. The library
is $TCGEMM_LIB, else build/libtcgemm.a (where `pip install .` builds it)."""
import functools
import json
import os
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
    v8 = {k: c for k, c in got.items() if k.startswith("sm100.v8.")}
    assert set(v8) == {"sm100.v8.NN", "sm100.v8.TN"}, sorted(got)
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
