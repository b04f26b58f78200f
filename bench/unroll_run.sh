#!/usr/bin/env bash
# Device call: the stage-unrolled Ada kernels (sm89.mma_unroll{,_8w}) -- build
# (90a, tuning candidates too), their GPU tests (both accumulations), pytest,
# sanitizers, then their rows beside cuBLAS with the sustained (power-limit)
# figures, the sustained mma.sync ceiling included. Outputs go into one
# tarball (only a few files come back from $OUT).
# Usage: OUT=... bash bench/unroll_run.sh
source "$(dirname "$0")/device_lib.sh"
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
tcgemm_build 90a -DTCGEMM_TUNING=ON
TCGEMM_TEST_KERNELS=_u timeout 100 ctest --test-dir build --output-on-failure > $R/ctest.log 2>&1
echo "$(el) ctest (kernels *_u*): $(grep -E 'tests passed|tests failed' $R/ctest.log)"; grep -E "checks|FAIL" $R/ctest.log | head -5
PYTEST_ADDOPTS="-k 'mma_unroll or auto or not sm8 and not sm9'" timeout 120 python3 -m pytest -q -rs --maxfail=20 \
  tests/python/test_gpu.py tests/python/test_api.py tests/python/test_bench.py tests/python/test_epilogue.py \
  > $R/pytest.log 2>&1; echo "$(el) pytest rc=$?: $(tail -1 $R/pytest.log)"; grep -E "^FAILED|^ERROR" $R/pytest.log | head
timeout 70 bash tests/sanitize.sh build mma_unroll > $R/sanitize.log 2>&1; echo "$(el) sanitize mma_unroll* rc=$?"
cat $R/sanitize.log
set -f
B="python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN --sustain 0.5"
timeout 150 $B --dtypes fp16 --kernels sm89.mma_spread_8w.s3 sm89.mma_unroll.s3 sm89.mma_unroll_8w.s3 'sm89.x.*_u*' \
  --json $R/h200_ada_unroll2.json --md $R/h200_ada_unroll2.md > $R/bench1.log 2>&1; echo "$(el) bench1 rc=$?"
set +f
grep -E "ceiling" $R/h200_ada_unroll2.md
grep -E "^\| (4096|8192)x" $R/h200_ada_unroll2.md | cut -d'|' -f2-6,9-11,13-17
timeout 100 python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN --sustain 0.5 --dtypes bf16 \
  --kernels sm89.mma_spread_8w.s3 sm89.mma_unroll.s3 sm89.mma_unroll_8w.s3 \
  --json $R/h200_ada_unroll2_bf16.json --md $R/h200_ada_unroll2_bf16.md > $R/bench2.log 2>&1; echo "$(el) bench2 rc=$?"
grep -E "^\| (4096|8192)x" $R/h200_ada_unroll2_bf16.md | cut -d'|' -f2-6,9-11,13-17
tail -3 $R/bench1.log $R/bench2.log | grep -iE "error|Traceback" | head
(cd $OUT && tar czf r.tgz r && rm -rf r)
echo "$(el) done"
