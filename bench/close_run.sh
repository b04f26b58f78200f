#!/usr/bin/env bash
# Device call: the pytest files the closing run's time limit cut (interop,
# property, reliability, sass), then the shape sweep with the current Ada
# kernels (committed as bench/results/h200_sweep_ada.*). Usage: OUT=... bash bench/close_run.sh
source "$(dirname "$0")/device_lib.sh"
R=$OUT/r; mkdir -p $R
tcgemm_build 90a
timeout 200 python3 -m pytest -q -rs --durations=5 tests/python/test_interop.py tests/python/test_property.py \
  tests/python/test_reliability.py tests/python/test_sass.py > $R/pytest_tail.log 2>&1
echo "$(el) pytest (tail files) rc=$?: $(grep -E 'passed|failed' $R/pytest_tail.log | tail -1)"; grep -E "^FAILED|^ERROR" $R/pytest_tail.log | head
set -f
timeout 260 python3 -m tcgemm bench --preset all --dtypes fp16 --layouts TN NN --iters 15 \
  --kernels sm90.ws_persistent sm90.ws_splitk sm90.ws_mcast sm89.mma_spread.s3 sm89.mma_spread_8w.s3 \
  --json $OUT/h200_sweep.json --md $OUT/h200_sweep.md --plot $R/plots_sweep > $R/sweep.log 2>&1; echo "$(el) sweep rc=$?"
set +f
grep -E "^\| (16|64|128|512)x8192x8192|^\| 4095x" $OUT/h200_sweep.md | cut -d'|' -f2-6,9-11,13
(cd $OUT && tar czf r.tgz r && rm -rf r)
