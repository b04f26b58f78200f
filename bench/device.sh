#!/usr/bin/env bash
# The one device driver: each device run is this script and its arguments,
# steps run in the order given, each with its own time limit, every step's
# full output in $OUT/logs/, a one-line summary per step on stdout and in
# $OUT/run.log (with the command line, the GPU, driver and clocks).
#
#   OUT=... bash bench/device.sh STEP[=ARGS] ...
#
#   build=ARCHS      pip install the package for TCGEMM_CUDA_ARCHS=ARCHS (default 90a;100a)
#   install=WHEEL    pip install a wheel built on another machine (bench/wheel.sh) instead of building here;
#                    a wheel built from another commit than TCGEMM_COMMIT (or a dirty tree, where
#                    TCGEMM_COMMIT_DIRTY=0) stops the run
#   ctest            the C++ suites (GPU tests included)
#   pytest=ARGS      python -m pytest ARGS (default: tests/python -n 8); failures re-run serially
#                    (ctest and pytest run the exhaustive sweep: TCGEMM_TEST_EXHAUSTIVE=1 unless the
#                    caller sets it, e.g. TCGEMM_TEST_EXHAUSTIVE=0 for the default representative set)
#   sanitize=KERNEL  compute-sanitizer's four tools over the kernels matching KERNEL (tests/sanitize.sh)
#   sass             the sm_100a SASS counts check (tests/sass/check_sass.py)
#   cutlass=ARGS     the Ada family beside CUTLASS's mma.sync kernels (bench/cutlass/run.sh ARGS: builds
#                    build-cutlass/ for 90a; TCGEMM_CUTLASS_DIR names the CUTLASS tree the caller brought,
#                    or TCGEMM_CUTLASS_BIN the binary bench/cutlass/pack.sh built elsewhere: no build)
#   bench=ARGS       python -m tcgemm bench ARGS (add --json $OUT/x.json --md $OUT/x.md to keep results)
#   user=ARGS        python -m tcgemm bench --user-path ARGS
#   profile=ARGS     bench/profile_calls.py ARGS: each call's kernels and their GPU time, tcgemm
#                    beside torch.matmul (e.g. profile=16x4096x4096 1024 --kernels auto sm90.ws_splitk)
#   py=CODE          python3 -c CODE (a quick probe)
#   memcheck=CODE    python3 -c CODE under compute-sanitizer's memcheck (host-side paths: the NumPy pipeline)
#   ncu=REGEX SPEC.. ncu (clocks left alone) of the kernels matching REGEX, launched by
#                    bench/launch_once.py SPEC... (see its docstring); NCU_ARGS adds sections/metrics
#   timeout=SECONDS  the limit for the steps after it (default 240)
#
# ARGS of pytest, bench, user and profile are split as a shell would (Python's
# shlex), so a quoted argument stays whole: "pytest=tests/python -n 8 -k 'swap and NN'".
#
# Example: bash bench/device.sh build=90a "pytest=-n 8 tests/python/test_call_path.py" \
#            timeout=300 "user=--json $OUT/h200_user_path.json --md $OUT/h200_user_path.md"
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
# The device's test steps are the full ones: every case of every suite.
export TCGEMM_TEST_EXHAUSTIVE=${TCGEMM_TEST_EXHAUSTIVE:-1}
: "${OUT:?set OUT to the folder that comes back}"
L=$OUT/logs
mkdir -p "$L"
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0)) s]"; }
# words ARGS: the step's arguments split with shell quoting, into the array `words`.
words() { mapfile -t words < <(python3 -c 'import shlex, sys; sys.stdout.write("".join(w + "\n" for w in shlex.split(sys.argv[1])))' "$1"); }
say() { echo "$*" | tee -a "$OUT/run.log"; }
say "device.sh $(printf '%q ' "$@")"
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader 2>&1)"
say "$(nvcc --version | tail -1); $(python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1); TCGEMM_TEST_EXHAUSTIVE=$TCGEMM_TEST_EXHAUSTIVE"
limit=240
n=0
for step in "$@"; do
  n=$((n + 1))
  name=${step%%=*}
  arg=""
  [[ $step == *=* ]] && arg=${step#*=}
  log=$L/$(printf %02d $n)_$name.log
  case $name in
    timeout) limit=$arg; continue ;;
    build)
      TCGEMM_CUDA_ARCHS="${arg:-90a;100a}" timeout $limit python3 -m pip install -q --no-build-isolation --no-deps . \
        > "$log" 2>&1
      rc=$?
      say "$(el) build ${arg:-90a;100a}: rc=$rc"
      [ $rc -ne 0 ] && { tail -40 "$log"; exit 1; } ;;
    install)
      # A wheel saves the device its build (1.5-3 min of its time); its stamp (build_info()["commit"],
      # CMakeLists.txt) must be the commit the results will name.
      timeout $limit python3 -m pip install -q --no-index --no-deps --force-reinstall "$arg" > "$log" 2>&1 &&
        python3 -c 'import os, sys, tcgemm
b = tcgemm.build_info(); want = os.environ.get("TCGEMM_COMMIT")
print("installed", b)
if want and b.get("commit") != want:
    sys.exit("the wheel is built from %s, the results would name %s" % (b.get("commit"), want))
if os.environ.get("TCGEMM_COMMIT_DIRTY") == "0" and b.get("commit_dirty"):
    sys.exit("the wheel is built from a tree with uncommitted changes, the results would name a clean one")' \
        >> "$log" 2>&1
      rc=$?
      say "$(el) install $arg: rc=$rc: $(tail -1 "$log")"
      [ $rc -ne 0 ] && { tail -20 "$log"; exit 1; } ;;
    ctest)
      timeout $limit ctest --test-dir build --output-on-failure > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) ctest rc=$rc: $(grep -E 'tests passed|tests failed' "$log")"
      grep -E "Failed|FAIL" "$log" | head -5 ;;
    pytest)
      words "${arg:-tests/python -n 8}"
      timeout $limit python3 -m pytest -v -rs -p no:cacheprovider "${words[@]}" > "$log" 2>&1
      rc=$?
      say "$(el) pytest ${arg:-tests/python -n 8}: rc=$rc: $(tail -1 "$log")"
      mapfile -t failed < <(grep -oE "(FAILED|ERROR) tests/python/[^ ]+" "$log" | awk '{print $2}' | sort -u)
      if [ ${#failed[@]} -gt 0 ]; then
        say "failed: ${failed[*]:0:20}"
        timeout 120 python3 -m pytest -q --tb=short -p no:cacheprovider "${failed[@]:0:20}" > "$log.again" 2>&1
        say "$(el) the failures again, serially: $(tail -1 "$log.again")"
        grep -E "^E |^FAILED|Error" "$log.again" | head -40
      fi ;;
    sanitize)
      timeout $limit bash tests/sanitize.sh build "$arg" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) sanitize '$arg' rc=$rc: $(grep -cE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$log") clean summaries"
      grep -E "SUMMARY" "$log" | sort | uniq -c | head -8 ;;
    sass)
      timeout $limit python3 tests/sass/check_sass.py build/libtcgemm.a > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) check_sass rc=$rc: $(tail -1 "$log")" ;;
    bench | user)
      extra=""
      [ "$name" = user ] && extra="--user-path"
      words "$arg"
      timeout $limit python3 -m tcgemm bench $extra "${words[@]}" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) $name $arg: rc=$rc"
      [ $rc -ne 0 ] && tail -5 "$log"
      grep -E "^(overhead|torch_|graph|numpy|host<->device)" "$log" | head -80 ;;
    cutlass)
      words "$arg"
      timeout $limit bash bench/cutlass/run.sh "${words[@]}" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) cutlass $arg: rc=$rc"
      [ $rc -ne 0 ] && tail -20 "$log"
      grep -E "^\| [0-9]" "$log" | head -40 ;;
    profile)
      words "$arg"
      timeout $limit python3 bench/profile_calls.py "${words[@]}" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) profile $arg: rc=$rc"
      grep -vE "Warn|_warn_once" "$log" | head -80 ;;
    py)
      timeout $limit python3 -c "$arg" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) py: rc=$rc"
      tail -30 "$log" ;;
    ncu)
      read -r regex specs <<< "$arg"
      # shellcheck disable=SC2086
      timeout $limit ncu --clock-control none -k "regex:$regex" \
        ${NCU_ARGS:---section SpeedOfLight --section MemoryWorkloadAnalysis} python3 bench/launch_once.py $specs \
        > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) ncu $arg: rc=$rc"
      grep -E "^  [a-z_]+.*\(|Duration|Throughput|Hit Rate|sectors|requests" "$log" | head -60 ;;
    memcheck)
      timeout $limit compute-sanitizer --tool memcheck --error-exitcode 99 python3 -c "$arg" > "$log" 2>&1
      rc=$?  # before $(el) below, which would reset it
      say "$(el) memcheck (python): rc=$rc: $(grep -E 'ERROR SUMMARY' "$log" | tail -1)"
      tail -5 "$log" ;;
    *) say "unknown step '$name'"; exit 2 ;;
  esac
done
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
