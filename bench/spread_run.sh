#!/usr/bin/env bash
# Device call: the spread-copy Ada kernels -- build (90a, tuning candidates
# too), the GPU suites over the Ada ladder, sanitizers, their rows beside
# cuBLAS with settled clock and power, the remaining tuning candidates, and a
# per-instruction ncu profile. Usage: OUT=... bash bench/spread_run.sh
source "$(dirname "$0")/device_lib.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
tcgemm_build 90a -DTCGEMM_TUNING=ON
# Every Ada ladder step (mma_sync_gemm.cuh changed under all of them), not the sm89.x.* candidates.
TCGEMM_TEST_KERNELS=sm89.mma timeout 150 ctest --test-dir build --output-on-failure > $OUT/ctest.log 2>&1
echo "$(el) ctest: $(grep -E 'tests passed|tests failed' $OUT/ctest.log)"; grep -E "checks|FAIL" $OUT/ctest.log | head -5
PYTEST_ADDOPTS="-k 'mma_iter or mma_spread or auto or not sm8 and not sm9'" timeout 150 python3 -m pytest -q -rs --maxfail=20 \
  tests/python/test_gpu.py tests/python/test_api.py tests/python/test_bench.py tests/python/test_epilogue.py \
  > $OUT/pytest.log 2>&1; echo "$(el) pytest rc=$?: $(tail -1 $OUT/pytest.log)"; grep -E "^FAILED|^ERROR" $OUT/pytest.log | head
timeout 80 bash tests/sanitize.sh build mma_spread > $OUT/sanitize.log 2>&1; echo "$(el) sanitize mma_spread* rc=$?"
cat $OUT/sanitize.log
set -f
B="python3 -m tcgemm bench --shapes 4096 8192 --iters 20 --layouts TN NN"
timeout 150 $B --dtypes fp16 bf16 --sustain 0.5 --kernels sm89.mma_iter.s3 sm89.mma_spread.s3 sm89.mma_spread_8w.s3 \
  --json $OUT/h200_ada_spread.json --md $OUT/h200_ada_spread.md > $OUT/bench1.log 2>&1; echo "$(el) bench1 rc=$?"
grep -E "^\| (4096|8192)x" $OUT/h200_ada_spread.md | cut -d'|' -f2-6,9-11,13-17
timeout 90 $B --dtypes fp16 --kernels sm89.mma_spread_8w.s3 sm89.x.it8_db_sp_s4 sm89.x.w96_sp sm89.x.w96_sp_s4 \
  --json $OUT/h200_ada_cand.json --md $OUT/h200_ada_cand.md > $OUT/bench2.log 2>&1; echo "$(el) bench2 rc=$?"
set +f
grep -E "^\| (4096|8192)x" $OUT/h200_ada_cand.md | cut -d'|' -f2-6,9-11,13
timeout 70 ncu -k regex:mma_sync --set full --import-source no -o $OUT/prof \
  python3 bench/profile_ada.py 4096 sm89.mma_spread_8w.s3:TN sm89.mma_spread_8w.s3:NN > $OUT/ncu.log 2>&1
echo "$(el) ncu rc=$?"
ncu -i $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>&1
ncu -i $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/source.csv 2>&1
rm -f $OUT/prof.ncu-rep
echo "$(el) done"
