#!/usr/bin/env bash
# Device call: the warp-specialized Ada tuning candidates (sm89.x.ws_*: 1 or
# 4 copy warps, 4 or 6 stages; -DTCGEMM_TUNING=ON) -- their GPU tests,
# sanitizers (a hang shows as the timeout), pytest, then their rows beside
# mma_spread{,_8w} and cuBLAS, sustained. Outputs in one tarball, refreshed
# after every step. (Session 5's run 1 ran it when ws_s4 was the registry
# entry sm89.mma_ws.s4; bench/results/h200_ada_ws.md.)
# Usage: OUT=... bash bench/ws_run.sh
source "$(dirname "$0")/device_lib.sh"
R=$OUT/r; mkdir -p $R
pack() { (cd $OUT && tar czf r.tgz r); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
tcgemm_build 90a -DTCGEMM_TUNING=ON
for k in x.ws_; do
  TCGEMM_TEST_KERNELS=$k timeout 100 build/tests/cpp/test_gpu_gemm > $R/test_$k.log 2>&1
  echo "$(el) test_gpu_gemm $k rc=$?"; grep -E "checks|FAIL|skipped" $R/test_$k.log | head -6
done; pack
timeout 100 bash tests/sanitize.sh build x.ws_s4 > $R/sanitize.log 2>&1; echo "$(el) sanitize x.ws_s4 rc=$?"
cat $R/sanitize.log; pack
PYTEST_ADDOPTS="-k 'ws_s4 or ws_s6 or ws_cw1'" timeout 80 python3 -m pytest -q -rs -n 6 tests/python/test_gpu.py \
  tests/python/test_epilogue.py > $R/pytest.log 2>&1; echo "$(el) pytest rc=$?: $(tail -1 $R/pytest.log)"
grep -E "^FAILED|^ERROR" $R/pytest.log | head; pack
set -f
timeout 200 python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN --dtypes fp16 --sustain 0.5 \
  --kernels sm89.mma_spread.s3 sm89.mma_spread_8w.s3 'sm89.x.ws_*' \
  --json $R/h200_ada_ws.json --md $R/h200_ada_ws.md > $R/bench.log 2>&1; echo "$(el) bench rc=$?"
set +f
grep -E "ceiling" $R/h200_ada_ws.md
grep -E "^\| (4096|8192)x" $R/h200_ada_ws.md | cut -d'|' -f2-6,9-11,13-17
tail -3 $R/bench.log | grep -iE "error|Traceback" | head
pack; rm -rf $R
echo "$(el) done"
