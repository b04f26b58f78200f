#!/usr/bin/env bash
# The closing device run: build, every suite, self-check, sanitizers on the
# newest kernels, SASS counts, and the benchmark sweep for bench/results/.
# Usage (device machine, repo root): OUT=... bash bench/final_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
t0=$(date +%s)
TCGEMM_CUDA_ARCHS="${ARCHS:-90a}" python3 -m pip install -q --no-build-isolation --no-deps . > $L/build.log 2>&1 \
  || { tail -60 $L/build.log; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
ctest --test-dir build --output-on-failure > $L/ctest.log 2>&1; echo "ctest: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
timeout 300 python3 -m pytest -q -rs tests/python > $L/pytest.log 2>&1; echo "pytest rc=$?: $(tail -1 $L/pytest.log)"
grep -E "^FAILED|Error:" $L/pytest.log | head -10
timeout 120 python3 -m tcgemm > $L/selfcheck.log 2>&1; echo "selfcheck rc=$?: $(grep 'self-check:' $L/selfcheck.log)"
timeout 200 bash tests/sanitize.sh build "${SANITIZE_KERNELS:-sm90}" > $L/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -E "rc=" $L/sanitize.log
cuobjdump --dump-sass build/libtcgemm.a > $L/sass.txt 2>&1
python3 - <<'PY' > $L/sass_sm90.txt
import re, os
txt = open(os.environ["OUT"] + "/logs/sass.txt").read()
for block in re.split(r"\n\s*Function : ", txt)[1:]:
    name = block.split("\n", 1)[0].strip()
    if "sm90" not in name:
        continue
    c = {k: len(re.findall(k, block)) for k in ("HGMMA", "UTMALDG", "UTMASTG", "SYNCS", "USETMAXREG")}
    print(name[:90], c)
PY
echo "sm90 SASS: $(grep -c HGMMA $L/sass_sm90.txt) kernels listed"; head -12 $L/sass_sm90.txt | cut -c1-160
python3 -m tcgemm bench --shapes 4096 8192 --dtypes fp16 bf16 --layouts TN NN --iters 20 \
  --json $OUT/h200.json --md $OUT/h200.md --plot $L/plots > $L/bench1.log 2>&1; echo "bench1 rc=$?"
python3 -m tcgemm bench --preset all --dtypes fp16 --layouts TN NN --iters 15 \
  --kernels ${SWEEP_KERNELS:-'sm89.mma_2blk.s3' 'sm89.mma_wt64_k64.s3' 'sm90.*'} \
  --json $OUT/h200_sweep.json --md $OUT/h200_sweep.md --plot $L/plots_sweep > $L/bench2.log 2>&1; echo "bench2 rc=$?"
(cd $OUT && tar czf logs.tgz logs && rm -rf logs)
grep -E "^\| (4096|8192)x" $OUT/h200.md | grep -E "fp16 \| (TN|NN) \| (cuBLAS|sm90|sm89.mma_2blk|sm89.mma_wt64_k64)" | cut -c1-150
