#!/usr/bin/env bash
# Build the 90a wheel the device installs instead of compiling (bench/device.sh's
# install step; bench/regenerate.sh with WHEEL=...): on a CPU machine, where nvcc
# compiles every target without a GPU, so the device's time goes to measuring.
#
#   [PYTHON=python3.12] [TCGEMM_CUDA_ARCHS=90a] bash bench/wheel.sh [DIR]
#
# DIR (default .whl, which .gitignore keeps out of git and the device's `carry`
# takes along) receives tcgemm-<version>-cp3XX-...whl, built for the Python
# that PYTHON names: the device's is 3.12 (.library's KINDS.md), and pip there
# refuses a wheel of another minor version. PYTHON needs pybind11 and
# scikit-build-core (the build runs without isolation, as on the device).
# The wheel records the commit it is built from (build_info()["commit"],
# CMakeLists.txt); a tree with uncommitted changes is built, and says so.
# Its own build folder (build/wheel-<python>) leaves `pip install .`'s build/
# alone; a second wheel of the same tree recompiles only what changed.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.12}
DIR=${1:-.whl}
tag=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
"$PY" -c 'import pybind11, scikit_build_core' || {
  echo "wheel.sh: $PY lacks pybind11 or scikit-build-core ($PY -m pip install pybind11 scikit-build-core)" >&2; exit 2; }
mkdir -p "$DIR"
rm -f "$DIR"/tcgemm-*-"$tag"-*.whl
TCGEMM_CUDA_ARCHS=${TCGEMM_CUDA_ARCHS:-90a} "$PY" -m pip wheel -q --no-build-isolation --no-deps \
  -C build-dir="build/wheel-$tag" -w "$DIR" .
whl=$(ls "$DIR"/tcgemm-*-"$tag"-*.whl)
# The stamp, read back from the wheel's own module (importable here: it needs no GPU).
t=$(mktemp -d)
"$PY" -m pip install -q --no-deps --no-index --target "$t" "$whl"
( cd "$t" && PYTHONPATH="$t" "$PY" -c 'import tcgemm; b = tcgemm.build_info()
print("wheel.sh: tcgemm", b["version"], "for", ",".join(b["archs"]), "from commit:", b["commit"],
      "(uncommitted changes)" if b["commit_dirty"] else "(clean tree)" if b["commit_dirty"] is False else "")' ) ||
  echo "wheel.sh: the wheel's module does not import here (missing numpy or ml_dtypes for $PY?)" >&2
rm -rf "$t"
echo "$whl"
