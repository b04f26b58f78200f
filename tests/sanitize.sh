#!/usr/bin/env bash
# compute-sanitizer over every runnable kernel (16-bit and FP8) at small odd shapes (run on a GPU
# machine after building: `pip install .` puts the ctest binaries in build/).
# Usage: tests/sanitize.sh [BUILD_DIR] [KERNEL_SUBSTRING]
# Prints one summary line per tool; exits non-zero if any tool reports an error.
set -uo pipefail
BUILD=${1:-build}
# QUICK: small odd shapes (and one multi-tile one); EXHAUSTIVE: every one of
# them on every (dtype, accumulator, layout) of every kernel.
export TCGEMM_TEST_QUICK=1 TCGEMM_TEST_EXHAUSTIVE=1
[ -n "${2:-}" ] && export TCGEMM_TEST_KERNELS="$2"
status=0
for tool in memcheck racecheck synccheck initcheck; do
  log=$(mktemp)
  for suite in test_gpu_gemm test_gpu_fp8; do  # the 16-bit entries, then the FP8 ones
    compute-sanitizer --tool "$tool" --error-exitcode 99 "$BUILD/tests/cpp/$suite" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool $suite: rc=$rc ${summary:-$(tail -1 "$log")}"
    if [ $rc -ne 0 ]; then status=1; grep -m 20 -E "=========" "$log"; fi
  done
  rm -f "$log"
done
# The scale warp's hand-off beside two reference hand-offs, one at a time under racecheck
# (tests/cpp/test_gpu_handoff.cu): which of them racecheck reports tells how it models each. A reading,
# not a verdict on the kernels: the status above stands as it is.
if [ -x "$BUILD/tests/cpp/test_gpu_handoff" ]; then
  for mode in noinc waited stored; do
    log=$(mktemp)
    compute-sanitizer --tool racecheck "$BUILD/tests/cpp/test_gpu_handoff" "$mode" > "$log" 2>&1
    echo "racecheck test_gpu_handoff $mode: rc=$? $(grep -E "RACECHECK SUMMARY" "$log" | tail -1)" \
         "$(grep -cE "test_gpu_handoff: $mode checked" "$log") checked"
    rm -f "$log"
  done
fi
exit $status
