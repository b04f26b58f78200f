#!/usr/bin/env bash
# Device call for the Ada address-iterator steps (sm89.mma_iter, mma_iter_db):
# build, their suites and sanitizers, the tail of the Python suite that the
# closing run's time limit cut (property, reliability, interop, SASS), and the
# 4096^3 / 8192^3 rows beside mma_2blk and cuBLAS.
# Usage: OUT=... bash bench/ada_iter_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . > $OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo "$(el) built"
TCGEMM_TEST_KERNELS=mma_iter timeout 100 ./build/tests/cpp/test_gpu_gemm > $OUT/ctest_iter.log 2>&1
echo "$(el) test_gpu_gemm (mma_iter*) rc=$?: $(tail -1 $OUT/ctest_iter.log)"; grep -i fail $OUT/ctest_iter.log | head -5
timeout 100 python3 -m pytest -q -x tests/python/test_gpu.py tests/python/test_epilogue.py -k mma_iter_db > $OUT/pytest_iter.log 2>&1
echo "$(el) pytest (mma_iter_db) rc=$?: $(tail -1 $OUT/pytest_iter.log)"; grep -E "^FAILED" $OUT/pytest_iter.log | head -5
timeout 130 python3 -m pytest -q -rs tests/python/test_property.py tests/python/test_reliability.py \
  tests/python/test_interop.py tests/python/test_sass.py > $OUT/pytest_tail.log 2>&1
echo "$(el) pytest (property, reliability, interop, sass) rc=$?: $(tail -1 $OUT/pytest_tail.log)"
grep -E "^FAILED|^ERROR" $OUT/pytest_tail.log | head -5
timeout 80 bash tests/sanitize.sh build mma_iter_db 2>&1 | sed "s/^/sanitize mma_iter_db: /"; echo "$(el) sanitized"
timeout 120 python3 -m tcgemm bench --shapes 4096 8192 --dtypes fp16 bf16 --layouts TN NN --iters 20 \
  --kernels 'sm89.mma_2blk.s3' 'sm89.mma_iter.s3' 'sm89.mma_iter_db.s3' --json $OUT/ada_iter.json --md $OUT/ada_iter.md \
  > $OUT/bench.log 2>&1; echo "$(el) bench rc=$?"
grep -iE "ceiling" $OUT/ada_iter.md | head -3
grep -E "^\| (4096|8192)x" $OUT/ada_iter.md | cut -d'|' -f2-6,9-13
