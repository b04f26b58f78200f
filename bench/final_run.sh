#!/usr/bin/env bash
# The closing device run: build, every suite, self-check, sanitizers, SASS
# counts, and the benchmark sweeps for bench/results/. Steps are ordered by
# what matters most and each has its own time limit, so the whole stays
# inside one 10-minute device call.
# Usage (device machine, repo root): OUT=... bash bench/final_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
L=$OUT/logs; mkdir -p $L
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
build() {
  local t0=$(date +%s)
  TCGEMM_CUDA_ARCHS="$1" python3 -m pip install -q --no-build-isolation --no-deps . > $L/build_${1//;/_}.log 2>&1 \
    || { tail -60 $L/build_${1//;/_}.log; exit 1; }
  echo "$(el) build ($1): $(( $(date +%s) - t0 )) s"
}
# 1. All three families, as CI and the README build them; the sm_100a SASS check
#    with this machine's cuobjdump; does the module import and list kernels?
build "${FIRST_ARCHS:-89;90a;100a}"
python3 tests/sass/check_sass.py build/libtcgemm.a > $L/sass_check.log 2>&1; echo "check_sass rc=$?"
python3 tests/sass/check_sass.py build/libtcgemm.a --counts $OUT/sm100_sass_counts.device.json --write > /dev/null 2>&1
timeout 60 python3 -X faulthandler -c "import tcgemm; print(len(tcgemm.kernels()), 'kernels listed')" > $L/kernels_all.log 2>&1
rc=$?; echo "kernels() with all archs: rc=$rc $(tail -1 $L/kernels_all.log)"
if [ $rc -ne 0 ]; then
  timeout 90 cuda-gdb -batch -ex run -ex bt --args python3 -c "import tcgemm; tcgemm.kernels()" > $L/gdb.log 2>&1
  grep -E "^#|signal" $L/gdb.log | head -25
  build "90a"   # go on with the Hopper build so the suites still run
fi
# 2. Suites (SKIP_TESTS=1: none, for a second call on a tree already tested;
#    the sanitizers below still run unless SANITIZE="").
if [ -z "${SKIP_TESTS:-}" ]; then
timeout ${CTEST_TIMEOUT:-300} ctest --test-dir build --output-on-failure > $L/ctest.log 2>&1; echo "$(el) ctest: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
grep -E "Failed|FAIL" $L/ctest.log | head -5
timeout ${PYTEST_TIMEOUT:-240} python3 -m pytest -q -rs --maxfail=30 ${PYTEST_ARGS:-tests/python} > $L/pytest.log 2>&1; rc=$?; echo "$(el) pytest rc=$rc: $(tail -1 $L/pytest.log)"
grep -E "^FAILED|^ERROR|Error" $L/pytest.log | head -12
if [ -z "${SKIP_SELFCHECK:-}" ]; then
  timeout 60 python3 -m tcgemm > $L/selfcheck.log 2>&1; echo "selfcheck rc=$?: $(grep 'self-check:' $L/selfcheck.log)"
fi
fi
for k in ${SANITIZE-sm90. mma_2blk}; do  # SANITIZE="" for none
  timeout ${SANITIZE_TIMEOUT:-90} bash tests/sanitize.sh build "$k" > $L/sanitize_$k.log 2>&1; rc=$?; echo "$(el) sanitize '$k' rc=$rc"; cat $L/sanitize_$k.log
done
# 3. Benchmarks.
if [ -n "${SKIP_BENCH:-}" ]; then (cd $OUT && tar czf logs.tgz logs && rm -rf logs); exit 0; fi
set -f  # BENCH_KERNELS holds glob patterns for the bench, not for the shell
timeout ${BENCH1_TIMEOUT:-150} python3 -m tcgemm bench --shapes 4096 8192 --dtypes fp16 bf16 --layouts TN NN --iters 20 \
  --sustain ${SUSTAIN:-0} \
  --kernels ${BENCH_KERNELS:-sm90.* sm89.mma_2blk.s3} --json $OUT/h200.json --md $OUT/h200.md --plot $L/plots \
  > $L/bench1.log 2>&1; rc=$?
set +f
echo "$(el) bench1 rc=$rc"
set -f
[ -z "${SKIP_SWEEP:-}" ] && timeout ${SWEEP_TIMEOUT:-200} python3 -m tcgemm bench --preset all --dtypes fp16 --layouts TN NN --iters 15 \
  --kernels ${SWEEP_KERNELS:-sm90.ws_persistent sm90.ws_splitk sm90.ws_mcast sm89.mma_2blk.s3} \
  --json $OUT/h200_sweep.json --md $OUT/h200_sweep.md --plot $L/plots_sweep > $L/bench2.log 2>&1; echo "$(el) bench2 done"
set +f
[ -z "${SKIP_FEATURES:-}" ] && timeout 120 python3 -m tcgemm bench --only-features --iters 20 --json $OUT/h200_features.json \
  --md $OUT/h200_features.md > $L/bench3.log 2>&1; rc=$?; echo "$(el) bench3 rc=$rc"
(cd $OUT && tar czf logs.tgz logs && rm -rf logs)
grep -E "ceiling" $OUT/h200.md
grep -E "^\| (4096|8192)x" $OUT/h200.md | cut -d'|' -f2-6,9-11,13-17
[ -f $OUT/h200_sweep.md ] && grep -E "^\| (16|64|128|512)x8192x8192" $OUT/h200_sweep.md | cut -d'|' -f2-6,9,10,13
[ -f $OUT/h200_features.md ] && grep -E "^\| epilogue|^\| batched" $OUT/h200_features.md | cut -c1-160
