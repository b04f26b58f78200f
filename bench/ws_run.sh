#!/usr/bin/env bash
# Device call for branch exp/ws-ada: the warp-specialized Ada kernel
# (sm89.mma_ws.s4, compiled, not yet run) -- its GPU tests (both
# accumulations), sanitizers (a hang shows as the timeout), then its rows
# beside mma_spread{,_8w} and cuBLAS, sustained. Usage: OUT=... bash bench/ws_run.sh
source "$(dirname "$0")/device_lib.sh"
R=$OUT/r; mkdir -p $R
tcgemm_build 90a
TCGEMM_TEST_KERNELS=mma_ws timeout 120 ctest --test-dir build --output-on-failure -R test_gpu_gemm > $R/ctest.log 2>&1
echo "$(el) ctest mma_ws rc=$?: $(grep -E 'tests passed|tests failed' $R/ctest.log)"; grep -E "checks|FAIL" $R/ctest.log | head -8
timeout 120 bash tests/sanitize.sh build mma_ws > $R/sanitize.log 2>&1; echo "$(el) sanitize rc=$?"; cat $R/sanitize.log
PYTEST_ADDOPTS="-k 'mma_ws'" timeout 100 python3 -m pytest -q -rs -n 6 tests/python/test_gpu.py tests/python/test_epilogue.py \
  > $R/pytest.log 2>&1; echo "$(el) pytest rc=$?: $(tail -1 $R/pytest.log)"
timeout 120 python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN --dtypes fp16 --sustain 0.5 \
  --kernels sm89.mma_spread.s3 sm89.mma_spread_8w.s3 sm89.mma_ws.s4 --json $R/h200_ada_ws.json --md $R/h200_ada_ws.md \
  > $R/bench.log 2>&1; echo "$(el) bench rc=$?"
grep -E "^\| (4096|8192)x" $R/h200_ada_ws.md | cut -d'|' -f2-6,9-11,13-17
(cd $OUT && tar czf r.tgz r && rm -rf r)
