"""Kernel names: one form across the families (docs/call_path.md, "Kernel names").

Every registered name is <family>.<step>[.<variant>...]; an Ada entry's last part is its stage
count (s<stages>), the steps being lines of one template; an sm90 or sm100 entry's source file is
cpp/src/<family>/ + the name after the family with dots as underscores + .cu. Host-only: the names
come from tcgemm.kernels(), which lists every entry whether or not its code was built.
"""
import re
from pathlib import Path

import pytest

import tcgemm

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("sm89", "sm90", "sm100")
PART = r"[a-z0-9]+(?:_[a-z0-9]+)*"  # lower case, digits, single underscores between words
NAME = re.compile(rf"^(?P<family>{'|'.join(FAMILIES)})\.(?P<step>{PART})(?P<variants>(?:\.{PART})*)$")


def _entries():
    entries = tcgemm.kernels()
    assert entries, "the registry is empty"
    return entries


def test_the_form_takes_the_names_it_is_for():
    for good in ("sm89.mma.s2", "sm89.mma_iter_8w_db.s3", "sm90.ws", "sm90.ws_mcast.2x2",
                 "sm90.ws_splitk.swap.dsmem", "sm100.v6_persistent", "sm89.x.mma_swz_s4"):
        assert NAME.match(good), good
    for bad in ("sm100.v6.", "sm90.ws__mcast", "sm90.WS", "sm120.v1", "sm90", "sm90.ws-mcast", "sm90..ws"):
        assert not NAME.match(bad), bad


def test_every_name_has_the_form_and_its_family():
    names = [k["name"] for k in _entries()]
    assert len(set(names)) == len(names), "a name is registered twice"
    for k in _entries():
        m = NAME.match(k["name"])
        assert m, f'{k["name"]}: not <family>.<step>[.<variant>...] (docs/call_path.md, "Kernel names")'
        assert m["family"] == k["family"], (k["name"], k["family"])


def test_ada_names_end_in_their_stage_count():
    """Ada's steps are lines of one template: the variant is the stage count (the tuning candidates,
    sm89.x.<candidate>, are the exception and name theirs inside the candidate)."""
    ada = [k for k in _entries() if k["family"] == "sm89" and not k["name"].startswith("sm89.x.")]
    assert ada, "the sm89 family registers its ladder"
    for k in ada:
        assert k["name"].split(".")[2:] == [f's{k["stages"]}'], (k["name"], k["stages"])


def test_every_sm90_and_sm100_entry_has_its_source_file():
    src = ROOT / "cpp" / "src"
    if not src.is_dir():
        pytest.skip(f"{src} not found: the source tree is not beside the tests (an installed package?)")
    checked = 0
    for k in _entries():
        if k["family"] not in ("sm90", "sm100"):
            continue
        rest = k["name"].split(".", 1)[1]
        path = src / k["family"] / (rest.replace(".", "_") + ".cu")
        assert path.is_file(), f'{k["name"]}: no {path.relative_to(ROOT)}'
        checked += 1
    assert checked, "no sm90 or sm100 entries registered"
