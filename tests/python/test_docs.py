"""The repository speaks in the present tense of the project.

Code, docs, tests and results state the rule, the figure and the result file it rests on; the
history of how they came about lives in git and in CHANGELOG.md. This host test reads every tracked
text file and fails, listing file:line, where one holds a process word (the word for a working
period, a numbered run, the verb for borrowing a machine) or a commit hash in prose.
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The patterns are assembled from pieces so that this file does not match itself.
_WORDS = re.compile(r"\b" + "sess" + r"ions?\b" + "|" + r"\b" + "ru" + r"n [0-9]+\b" + "|" + r"\b" + "le" + r"nt\b",
                    re.IGNORECASE)
# A hex token of 7-40 characters holding both a letter and a digit: what an abbreviated or full
# commit hash looks like (a decimal count or an English word is neither).
_HASH = r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"
# In any text file: a hash introduced as one ("at <hash>", "commit <hash>", "in <hash>", "branch <hash>").
_HASH_IN_PROSE = re.compile(r"\b(?:[Aa]t|[Cc]ommit|[Ii]n|[Bb]ranch) " + _HASH)
# In Markdown also a hash in parentheses, "(a1b2c3d)" or "(a1b2c3d, ...)". A hash in a table cell of its
# own (which library a result file measured) is a record, not prose, and is not matched.
_HASH_IN_PARENS = re.compile(r"\(" + _HASH + r"[,;)]")

# Files that are not text. Everything else tracked is read, bench/results/*.json included: the
# result files hold numbers, shapes and kernel names, none of the words above.
_BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".pdf", ".ico", ".whl", ".so", ".o", ".a",
                    ".gz", ".tgz", ".xz", ".zip", ".tar", ".npy", ".npz", ".pt", ".bin", ".cubin", ".fatbin"}


def _tracked_files():
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the docs check lists the tracked files with git ls-files")
    try:
        top = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], check=True,
                             capture_output=True, text=True).stdout.strip()
    except subprocess.CalledProcessError:
        pytest.skip(f"{ROOT} is not a git checkout: the docs check reads the tracked files of one")
    if Path(top).resolve() != ROOT:
        pytest.skip(f"the tests are not in the root of their checkout ({top} against {ROOT})")
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode("utf-8", "replace").split("\0") if p]


def _text(path):
    if path.suffix.lower() in _BINARY_SUFFIXES or not path.is_file():
        return None
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def offending_lines(rel, text):
    """file:line entries of `text` (the file `rel`) that break the rule, with the line's text."""
    found = []
    markdown = rel.endswith(".md")
    for n, line in enumerate(text.splitlines(), 1):
        if (_WORDS.search(line) or _HASH_IN_PROSE.search(line)
                or (markdown and _HASH_IN_PARENS.search(line))):
            found.append(f"{rel}:{n}: {line.strip()[:160]}")
    return found


def test_patterns_catch_what_they_are_for():
    word = "sess" + "ion"
    assert offending_lines("a.md", f"measured in the third {word}")
    assert offending_lines("a.cpp", "// " + "ru" + "n 4 of the sweep")
    assert offending_lines("a.md", "no GPU was " + "le" + "nt")
    assert offending_lines("a.md", "h200_ada_tune.md at " + "1b3ee14")
    assert offending_lines("a.md", "the branch (" + "f09d064)")
    assert offending_lines("a.py", "# see commit " + "a57fa19")


def test_patterns_leave_alone_what_is_not_process():
    assert not offending_lines("CHANGELOG.md", "## 2026-12-04")
    assert not offending_lines("a.md", "| h200_llm | ce49186 | none |")
    assert not offending_lines("a.cpp", "uint32_t mask = 0xffff0000u;  // set in 4096 rows")
    assert not offending_lines("a.py", "x = rng.random(1000000)  # in 1000000 draws")
    assert not offending_lines("a.md", "the runner runs 5 shapes; excellent, lenticular")
    assert not offending_lines("a.cpp", "// (deadbeef) at 12345678")


def test_no_process_words_or_commit_hashes():
    bad = []
    for rel in _tracked_files():
        text = _text(ROOT / rel)
        if text is not None:
            bad.extend(offending_lines(rel, text))
    assert not bad, ("process words or commit hashes in prose (write the rule, the figure and its result "
                     "file; history belongs in git and CHANGELOG.md):\n" + "\n".join(bad))
