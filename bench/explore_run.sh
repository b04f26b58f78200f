#!/usr/bin/env bash
# A first look at new kernels on the device: build (90a, Ada tuning
# candidates included), each new kernel alone at large shapes (a fault names
# its kernel), their GPU tests, and the benchmark rows that decide whether
# they graduate. Usage: OUT=... NEW="..." KERNELS="..." bash bench/explore_run.sh
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s]"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
CMAKE_ARGS="-DTCGEMM_TUNING=ON" TCGEMM_CUDA_ARCHS="${ARCHS:-90a}" python3 -m pip install -q --no-build-isolation \
  --no-deps . > $OUT/build.log 2>&1 || { tail -60 $OUT/build.log; exit 1; }
echo "$(el) built"
for k in $NEW; do
  timeout 90 python3 - "$k" <<'PY' 2>&1 | tail -30
import sys, numpy as np, tcgemm
k = sys.argv[1]
for name in [n["name"] for n in tcgemm.kernels() if __import__("fnmatch").fnmatch(n["name"], k)]:
    for M, N, K in [(2100, 2000, 72), (4096, 4096, 4096)]:
        for lay in ("TN", "NN"):
            rng = np.random.default_rng()
            a = rng.uniform(-1, 1, (M, K)).astype(tcgemm.float16)
            w = rng.uniform(-1, 1, (N, K)).astype(tcgemm.float16)
            b = w.T if lay == "TN" else np.ascontiguousarray(w.T)
            got = tcgemm.matmul(a, b, kernel=name).astype(np.float64)
            ref = a.astype(np.float32) @ b.astype(np.float32)
            print(name, M, N, K, lay, "rel err %.2e" % (np.linalg.norm(got - ref) / np.linalg.norm(ref)), flush=True)
PY
done
echo "$(el) isolated checks done"
timeout 200 python3 -m pytest -q -rs --maxfail=10 tests/python/test_gpu.py -k "${TEST_K:-pingpong or dbuf}" \
  > $OUT/pytest.log 2>&1; rc=$?; echo "$(el) pytest rc=$rc: $(tail -1 $OUT/pytest.log)"
grep -E "^FAILED|^ERROR" $OUT/pytest.log | head -10
B="python3 -m tcgemm bench --iters 20"
timeout 200 $B --shapes 4096 8192 --dtypes fp16 bf16 --layouts TN NN --kernels $KERNELS --json $OUT/squares.json \
  --md $OUT/squares.md > $OUT/squares.log 2>&1; rc=$?; echo "$(el) squares rc=$rc"
timeout 100 $B --only-features --json $OUT/features.json --md $OUT/features.md > $OUT/features.log 2>&1; rc=$?
echo "$(el) features rc=$rc"
if [ -n "${SWEEP_KERNELS:-}" ]; then
  timeout ${SWEEP_TIMEOUT:-120} $B --preset skinny short_k odd --dtypes fp16 --layouts TN NN --kernels $SWEEP_KERNELS \
    --json $OUT/sweep.json --md $OUT/sweep.md > $OUT/sweep.log 2>&1; rc=$?; echo "$(el) sweep rc=$rc"
fi
for f in squares sweep; do [ -f $OUT/$f.md ] && grep -E "^\| [0-9]" $OUT/$f.md | cut -d'|' -f2-5,6,9,10,13; done
[ -f $OUT/features.md ] && grep -E "^\| epilogue|^\| batched" $OUT/features.md | cut -d'|' -f2-8
for f in squares features sweep; do [ -f $OUT/$f.log ] && grep -m3 -E "Error|error:" $OUT/$f.log; done
exit 0
