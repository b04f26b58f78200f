#!/usr/bin/env bash
# One device-machine session: build, test, self-check, benchmark.
# Usage: bench/device_run.sh [SRC_DIR] ; results land in $OUT (or ./devout).
# Env: ARCHS (default 90a), BENCH_ARGS (extra args for `python -m tcgemm bench`).
set -uo pipefail
SRC=${1:-.}
OUT=${OUT:-$PWD/devout}
mkdir -p "$OUT"
cd "$SRC"
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$OUT/gpu.txt"
echo "== build (TCGEMM_CUDA_ARCHS=${ARCHS:-90a})"
start=$(date +%s)
TCGEMM_CUDA_ARCHS="${ARCHS:-90a}" python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 \
  || { tail -60 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
echo "== ctest"
ctest --test-dir build --output-on-failure 2>&1 | tee "$OUT/ctest.log" | tail -25
echo "== pytest"
python3 -m pytest -q -x -rs tests/python 2>&1 | tee "$OUT/pytest.log" | tail -15
echo "== python -m tcgemm"
python3 -m tcgemm 2>&1 | tee "$OUT/selfcheck.log" | grep -v " ok$" | tail -40
if [ -n "${BENCH_ARGS:-}" ]; then
  echo "== bench $BENCH_ARGS"
  python3 -m tcgemm bench $BENCH_ARGS --json "$OUT/bench.json" --md "$OUT/bench.md" --plot "$OUT/plots" \
    > "$OUT/bench.log" 2>&1
  echo "bench rc=$?"; grep -E "^\| " "$OUT/bench.md" | cut -c1-150
fi
