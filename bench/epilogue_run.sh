#!/usr/bin/env bash
# Device calls for the staged-bias epilogue (2026-12-03, second session), in
# two parts so that each fits one call (the build stays between calls):
#   OUT=... bash bench/epilogue_run.sh test      build, ctest GPU suite, pytest, features bench
#   OUT=... bash bench/epilogue_run.sh sanitize  compute-sanitizer on the Hopper kernels it touches,
#                                                ncu stall reasons of the Ada 2-block kernel
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
if [ "${1:-test}" = test ]; then
  TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . > $OUT/build.log 2>&1 \
    || { tail -30 $OUT/build.log; exit 1; }
  echo "$(el) built"; grep -i "spill\|warning" $OUT/build.log | head -5
  timeout 170 ./build/tests/cpp/test_gpu_gemm > $OUT/ctest_gpu.log 2>&1; rc=$?
  echo "$(el) test_gpu_gemm rc=$rc: $(tail -1 $OUT/ctest_gpu.log)"; grep -E "FAIL|fail" $OUT/ctest_gpu.log | head
  timeout 200 python3 -m pytest -q -rs -x tests/python/test_epilogue.py tests/python/test_gpu.py tests/python/test_api.py \
    > $OUT/pytest.log 2>&1; rc=$?; echo "$(el) pytest rc=$rc: $(tail -1 $OUT/pytest.log)"
  grep -E "^FAILED|^ERROR" $OUT/pytest.log | head
  timeout 110 python3 -m tcgemm bench --only-features --iters 40 --json $OUT/features.json --md $OUT/features.md \
    > $OUT/features.log 2>&1; rc=$?; echo "$(el) features rc=$rc"
  grep -E "^\| epilogue" $OUT/features.md | cut -d'|' -f3-10
else
  for k in sm90.ws_persistent sm90.ws_pingpong sm90.ws_splitk; do
    timeout 120 bash tests/sanitize.sh build "$k" 2>&1 | sed "s/^/sanitize $k: /"; echo "$(el) sanitized $k"
  done
  timeout 120 ncu -k regex:mma_sync_gemm_kernel --launch-count 1 --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section SourceCounters --section MemoryWorkloadAnalysis_Tables -o $OUT/ada \
    python3 bench/profile_epilogue.py sm89.mma_2blk.s3 > $OUT/ncu_ada.log 2>&1; echo "$(el) ncu rc=$?"
  ncu -i $OUT/ada.ncu-rep --page details > $OUT/ada_details.txt 2>&1
  ncu -i $OUT/ada.ncu-rep --page source --print-source sass --csv > $OUT/ada_source.csv 2>&1
  grep -E "Stall|stall|Warp Cycles|Eligible|Issued Warp|conflict" $OUT/ada_details.txt | head -30
fi
