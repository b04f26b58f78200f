#!/usr/bin/env bash
# Device call: the spread kernels after the slot refactor and the
# stage-unrolled candidates (sm89.x.*_u) -- tests, rows beside cuBLAS,
# sanitizers last (SANITIZE="substrings"). Usage: OUT=... bash bench/unroll_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
CMAKE_ARGS="-DTCGEMM_TUNING=ON" TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . \
  > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "$(el) built"
for t in ${TESTS:-sp_u s4_u}; do
  TCGEMM_TEST_KERNELS=$t timeout 60 ./build/tests/cpp/test_gpu_gemm > $OUT/ctest_$t.log 2>&1
  echo "$(el) test_gpu_gemm ($t) rc=$?: $(tail -1 $OUT/ctest_$t.log)"; grep -i fail $OUT/ctest_$t.log | head -3
done
set -f
timeout 100 python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN --dtypes fp16 \
  --kernels sm89.mma_spread.s3 sm89.mma_spread_8w.s3 sm89.x.it_db_sp_u sm89.x.it8_db_sp_u sm89.x.it8_db_sp_s4_u \
  --json $OUT/h200_ada_unroll.json --md $OUT/h200_ada_unroll.md > $OUT/bench.log 2>&1; echo "$(el) bench rc=$?"
set +f
grep -E "^\| (4096|8192)x" $OUT/h200_ada_unroll.md | cut -d'|' -f2-6,9-11,13
for t in ${SANITIZE:-}; do
  timeout 60 bash tests/sanitize.sh build $t > $OUT/sanitize_$t.log 2>&1; echo "$(el) sanitize $t rc=$?"
  grep -E "rc=" $OUT/sanitize_$t.log
done
echo "$(el) done"
