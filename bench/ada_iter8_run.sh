#!/usr/bin/env bash
# Device call: the Ada iterator kernels on the 8-warp 128x256 block beside the
# 4-warp ones and cuBLAS (4096^3 / 8192^3), their correctness and sanitizers.
# Usage: OUT=... bash bench/ada_iter8_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . > $OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo "$(el) built"
TCGEMM_TEST_KERNELS=mma_iter_8w timeout 60 ./build/tests/cpp/test_gpu_gemm > $OUT/ctest_iter8.log 2>&1
echo "$(el) test_gpu_gemm (mma_iter_8w*) rc=$?: $(tail -1 $OUT/ctest_iter8.log)"; grep -i fail $OUT/ctest_iter8.log | head -5
timeout 90 python3 -m tcgemm bench --shapes 4096 8192 --dtypes fp16 bf16 --layouts TN NN --iters 20 \
  --kernels 'sm89.mma_iter*' --json $OUT/ada_iter8.json --md $OUT/ada_iter8.md > $OUT/bench.log 2>&1; echo "$(el) bench rc=$?"
grep -E "^\| (4096|8192)x" $OUT/ada_iter8.md | cut -d'|' -f2-6,9-11,13
timeout 60 bash tests/sanitize.sh build mma_iter_8w 2>&1 | sed "s/^/sanitize mma_iter_8w*: /"; echo "$(el) sanitized"
