#!/usr/bin/env bash
# Device call: build, the suites an epilogue change touches, the auto-policy
# checks, the fused-epilogue benchmark, sanitizers, and an ncu profile of
# one kernel's plain and fused (bias + GELU) launches.
# Usage: OUT=... bash bench/profile_run.sh [KERNEL]
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
K=${1:-sm90.ws_persistent}
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . > $OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo "$(el) built"
./build/tests/cpp/test_args
timeout 150 python3 -m pytest -q -rs tests/python/test_gpu.py tests/python/test_epilogue.py tests/python/test_api.py \
  tests/python/test_bench.py > $OUT/pytest.log 2>&1; rc=$?; echo "$(el) pytest rc=$rc: $(tail -1 $OUT/pytest.log)"
grep -E "^FAILED|^ERROR" $OUT/pytest.log | head
timeout 60 python3 bench/auto_check.py
timeout 90 python3 -m tcgemm bench --only-features --iters 20 --json $OUT/features.json --md $OUT/features.md \
  > $OUT/features.log 2>&1; rc=$?; echo "$(el) features rc=$rc"
grep -E "^\| epilogue" $OUT/features.md | cut -d'|' -f3-5,8,9
timeout 100 bash tests/sanitize.sh build "$K" 2>&1 | sed "s/^/sanitize $K: /"; echo "$(el) sanitized"
timeout 150 ncu -k regex:ws_kernel --set full -o $OUT/prof python3 bench/profile_epilogue.py $K > $OUT/ncu.log 2>&1
rc=$?; echo "$(el) ncu rc=$rc"; tail -2 $OUT/ncu.log
ncu -i $OUT/prof.ncu-rep --page details > $OUT/details.txt 2>&1
ncu -i $OUT/prof.ncu-rep --page source --print-source sass --csv > $OUT/source.csv 2>&1
grep -E "^  [a-z_]|Duration|Warp Cycles Per Issued|Issue Slots Busy|Registers Per" $OUT/details.txt | head -24
