#!/usr/bin/env bash
# Device call: Ada tuning candidates (-DTCGEMM_TUNING=ON) -- their GPU tests,
# their rows beside the ladder's iterator kernels and cuBLAS at 4096^3 and
# 8192^3 (fp16, both layouts; SUSTAIN=s adds settled clock/power), and an ncu
# profile of a few of them (per-instruction stalls in source.csv).
# Usage: OUT=... KERNELS="globs" PROFILE="kernel:layout ..." bash bench/ada_tune_run.sh
source "$(dirname "$0")/device_lib.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
tcgemm_build 90a -DTCGEMM_TUNING=ON
for t in ${TEST_KERNELS:-sm89.x.it}; do
  TCGEMM_TEST_KERNELS=$t timeout ${TEST_TIMEOUT:-90} ./build/tests/cpp/test_gpu_gemm > $OUT/ctest_$t.log 2>&1
  echo "$(el) test_gpu_gemm ($t*) rc=$?: $(tail -1 $OUT/ctest_$t.log)"; grep -i fail $OUT/ctest_$t.log | head -5
done
set -f
timeout ${BENCH_TIMEOUT:-200} python3 -m tcgemm bench --shapes 4096 8192 --dtypes ${DTYPES:-fp16} --layouts TN NN \
  --iters 20 --sustain ${SUSTAIN:-0} --kernels $KERNELS --json $OUT/tune.json --md $OUT/tune.md > $OUT/bench.log 2>&1
echo "$(el) bench rc=$?"; tail -3 $OUT/bench.log | grep -i error
set +f
grep -E "^\| (4096|8192)x" $OUT/tune.md | cut -d'|' -f2-6,9-11,13-17
if [ -n "${PROFILE:-}" ]; then
  timeout ${NCU_TIMEOUT:-150} ncu -k regex:mma_sync --set full --import-source no -o $OUT/prof \
    python3 bench/profile_ada.py 4096 $PROFILE > $OUT/ncu.log 2>&1; echo "$(el) ncu rc=$?"; tail -2 $OUT/ncu.log
  ncu -i $OUT/prof.ncu-rep --page details > $OUT/details.txt 2>&1
  ncu -i $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>&1
  ncu -i $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/source.csv 2>&1
  grep -E "^  [a-z_]|Duration|Warp Cycles Per Issued|Issue Slots Busy|Registers Per|Stall|Shared|Pipe" $OUT/details.txt | head -60
fi
if [ -n "${F16_KERNELS:-}" ]; then  # f16 accumulation (what auto runs the Ada kernels for on sm_90)
  set -f
  timeout 120 python3 -m tcgemm bench --shapes 4096 --layouts TN NN --accumulate f16 --iters 20 --paired 0 \
    --kernels $F16_KERNELS --json $OUT/tune_f16.json --md $OUT/tune_f16.md > $OUT/bench_f16.log 2>&1
  echo "$(el) bench f16 accumulation rc=$?"; set +f
  grep -E "^\| 4096x" $OUT/tune_f16.md | cut -d'|' -f2-6,9-11,13
fi
echo "$(el) done"
