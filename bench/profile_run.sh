#!/usr/bin/env bash
# Device call: build, the auto-policy checks, and an ncu profile of one
# kernel's plain and fused (bias + GELU) launches. Usage: OUT=... bash bench/profile_run.sh [KERNEL]
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
K=${1:-sm90.ws_persistent}
TCGEMM_CUDA_ARCHS=90a python3 -m pip install -q --no-build-isolation --no-deps . > $OUT/build.log 2>&1 \
  || { tail -30 $OUT/build.log; exit 1; }
echo built
./build/tests/cpp/test_args
timeout 120 python3 -m pytest -q -rs tests/python/test_epilogue.py tests/python/test_api.py 2>&1 | tail -2
timeout 60 python3 bench/auto_check.py
timeout 200 ncu -k regex:ws_kernel --set full -o $OUT/prof python3 bench/profile_epilogue.py $K > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu.log
ncu -i $OUT/prof.ncu-rep --page details > $OUT/details.txt 2>&1
ncu -i $OUT/prof.ncu-rep --page source --print-source sass --csv > $OUT/source.csv 2>&1
ls -la $OUT
grep -E "Duration|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Stall" $OUT/details.txt | head -30
