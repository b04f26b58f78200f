#!/usr/bin/env bash
# A verification-only device run (no benchmark): build for Hopper and
# Blackwell, every suite, compute-sanitizer over the kernels named in
# SANITIZE (space-separated name substrings), and the sm_100a SASS counts
# taken with the device's own cuobjdump.
# Usage (device machine, repo root): OUT=... bash bench/verify_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
cat $L/gpu.txt
t0=$(date +%s)
TCGEMM_CUDA_ARCHS="${ARCHS:-90a;100a}" python3 -m pip install -q --no-build-isolation --no-deps . > $L/build.log 2>&1 \
  || { tail -60 $L/build.log; exit 1; }
echo "build (${ARCHS:-90a;100a}): $(( $(date +%s) - t0 )) s"
ctest --test-dir build --output-on-failure > $L/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
t0=$(date +%s)
timeout 300 python3 -m pytest -q -rs tests/python > $L/pytest.log 2>&1; echo "pytest rc=$? ($(( $(date +%s) - t0 )) s): $(tail -1 $L/pytest.log)"
grep -E "^FAILED|^ERROR" $L/pytest.log | head -10
grep -E "^SKIPPED" $L/pytest.log | sed 's/\[[0-9]*\]//' | sort | uniq -c | sort -rn | head -5
for k in ${SANITIZE:-}; do
  t0=$(date +%s)
  timeout 240 bash tests/sanitize.sh build "$k" > $L/sanitize_$k.log 2>&1
  echo "sanitize '$k' rc=$? ($(( $(date +%s) - t0 )) s)"; cat $L/sanitize_$k.log
done
echo "cuobjdump: $(cuobjdump --version | tail -1)"
python3 tests/sass/check_sass.py build/libtcgemm.a > $L/sass_check.log 2>&1; echo "check_sass (committed counts) rc=$?"
cat $L/sass_check.log | head -40
python3 tests/sass/check_sass.py build/libtcgemm.a --counts $OUT/sm100_sass_counts.device.json --write > /dev/null 2>&1
(cd $OUT && tar czf logs.tgz logs && rm -rf logs)
