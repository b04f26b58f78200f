#!/usr/bin/env bash
# Two builds of tcgemm side by side, timed alternately by one script in the same run: the way a kernel change
# is measured against the build before it (ratios across runs do not compare: clocks at the power limit,
# the GPU unit and the host code all move between runs).
#
#   bash bench/ab/run.sh TREE_A TREE_B SCRIPT [ROUNDS]
#
# TREE_A, TREE_B: tcgemm source trees, a directory or a .tgz (`git archive --format=tar.gz -o a.tgz REV`:
# the device copy of a checkout has no git history to build a revision from). Each is built for sm_90a
# with pip into a folder of its own (both at once). SCRIPT is then run ROUNDS times (default 2) for each
# build in turn, A first, as `python3 SCRIPT A` / `SCRIPT B` with PYTHONPATH at that build: it prints its
# rows prefixed by the tag and its ratios to a reference that is the same in both builds (torch), so the
# pair of ratios compares the builds. Scripts: fp8_graph.py, fp8_sustained.py beside this one.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,15p' "$0"; exit 2; }
A=$1 B=$2 SCRIPT=$3 ROUNDS=${4:-2}
work=$(mktemp -d)
stage() {  # stage TREE NAME: the tree as a directory under $work
  if [ -d "$1" ]; then echo "$(cd "$1" && pwd)"; else mkdir -p "$work/src_$2" && tar xzf "$1" -C "$work/src_$2" && echo "$work/src_$2"; fi
}
src_a=$(stage "$A" a) src_b=$(stage "$B" b)
pids=()
for t in a b; do
  src=$([ $t = a ] && echo "$src_a" || echo "$src_b")
  ( cd "$src" && TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps --target "$work/pkg_$t" . \
      > "$work/build_$t.log" 2>&1 && echo "build $t: ok [$SECONDS s]" || { echo "build $t failed:"; tail -20 "$work/build_$t.log"; exit 1; } ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for r in $(seq "$ROUNDS"); do
  PYTHONPATH="$work/pkg_a" python3 "$SCRIPT" A
  PYTHONPATH="$work/pkg_b" python3 "$SCRIPT" B
done
