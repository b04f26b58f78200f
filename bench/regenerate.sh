#!/usr/bin/env bash
# One result set of one commit: regenerates bench/results/'s files on the GPU
# at hand (named for it: h200_*, h100_*), part by part (a device command runs
# at most 10 minutes), each part one
# bench/device.sh step with its own time limit.
#
#   [OUT=dir] [RESULTS=dir] [TCGEMM_COMMIT=sha TCGEMM_COMMIT_DIRTY=0|1] bash bench/regenerate.sh PART...
#
# part        file in $RESULTS (+ .md)   what                               estimate  limit
# (on an H200; GPU is the prefix, e.g. h200)
# build       -                          pip install for 90a (Ada + Hopper)  1.5-3 min  200 s
# squares     h200_squares               2048^3-16384^3, fp16/bf16, TN/NN    ~3 min     330 s
# random      h200_random                seeds 41-43, 24 shapes each         ~2 min     240 s
# ragged      h200_ragged                no dimension a multiple of 8        ~1 min     150 s
# decode      h200_decode                M = 1-128, the decode kernels       ~1 min     150 s
# llm         h200_llm                   M = 1-256 and 4096, TN and NN       ~3 min     390 s
# split_tail  h200_split_tail            a short last wave of tiles          ~1 min     150 s
# features    h200_features              fused epilogue, batched             ~1 min     180 s
# user_path   h200_user_path             tcgemm.matmul: torch, NumPy, graphs, ragged ~1.5 min 180 s
# fp8         h200_fp8                   scaled_matmul beside torch._scaled_mm ~4 min   390 s
# fp8_f32     h200_fp8_f32               the same, fp32 sums (use_fast_accum=False) ~3 min 300 s
# fp8_entries h200_fp8_entries           every Hopper FP8 entry, tuning seeds ~5 min     390 s
# fp8_deepgemm h200_fp8_deepgemm        block scales beside DeepGEMM run    ~4 min     390 s
#                                        here (deep_gemm importable: the sgl-deep-gemm wheel)
# ada_cutlass h200_ada_cutlass           the Ada family beside CUTLASS's     ~5 min     540 s
#                                        mma.sync kernels (TCGEMM_CUTLASS_DIR: a CUTLASS tree, or
#                                        TCGEMM_CUTLASS_BIN: bench/cutlass/pack.sh's binary)
#
# `all` is every part in this order but ada_cutlass (it needs a CUTLASS tree). On the device, one command per group
# below, whose limits, a build's included, add up to under 10 minutes
# (docs/benchmarking.md, "Regenerating the results"):
#   build squares | build random decode | build llm | build ragged split_tail | build features user_path
#   | build fp8 | build fp8_f32 | build fp8_entries | build fp8_deepgemm
#   | ada_cutlass (its own build, bench/cutlass/run.sh)
# (on a machine already built, `build` can be left out: it rebuilds).
# A part whose build is missing builds first; WHEEL=path installs that wheel
# (bench/wheel.sh, built on a CPU machine) in place of each build, so the
# device spends no time compiling. RESULTS defaults to
# bench/results; OUT (device.sh's logs, run.log) to a new temporary folder.
# The commit each file records: TCGEMM_COMMIT / TCGEMM_COMMIT_DIRTY as the
# caller passes them, else git's, where this tree is a checkout.
# DRY_RUN=1: print the bench/device.sh command line instead of running it.
set -u
cd "$(dirname "$0")/.."
: "${OUT:=$(mktemp -d)}"
export OUT
R=${RESULTS:-bench/results}
# The files are named for the GPU that measured them: NVIDIA H200 -> h200_*, NVIDIA H100 ... -> h100_*.
G=${GPU_PREFIX:-$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE '[A-Z][0-9]{2,3}' | head -1 | tr A-Z a-z)}
G=${G:-gpu}
mkdir -p "$R"
# Dirty: changes outside bench/results/ (where the parts write).
# A TCGEMM_COMMIT the caller sets wins: a copy of a tree can carry a stale .git.
if [ -z "${TCGEMM_COMMIT:-}" ] && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] && sha=$(git rev-parse HEAD 2>/dev/null); then
  export TCGEMM_COMMIT=$sha
  TCGEMM_COMMIT_DIRTY=$([ -n "$(git status --porcelain -- . ':(exclude)bench/results' 2>/dev/null)" ] && echo 1 || echo 0)
  export TCGEMM_COMMIT_DIRTY
elif [ -z "${TCGEMM_COMMIT:-}" ]; then
  echo "regenerate.sh: not a git checkout and TCGEMM_COMMIT unset: the files will record the build's own commit (tcgemm.build_info()), or unknown" >&2
fi

P="--iters 30 --paired 4"
# Every Hopper configuration and auto; the Ada family's best two (the
# mma.sync ceiling is measured and recorded with them).
H="sm90.tma_wgmma sm90.tma_wgmma_pipe.s4 sm90.ws sm90.ws_persistent sm90.ws_mcast sm90.ws_mcast.2x2 sm90.ws_pingpong"
H="$H sm90.ws_splitk sm90.ws_splitk.n192 sm90.ws_mcast.n192 sm90.ws_splitk.swap sm90.ws_splitk.swap.dsmem"
H="$H sm90.ws_splitk.dsmem sm90.ws_streamk sm90.ws_mcast.m256 auto"
ADA="sm89.mma_spread.s3 sm89.mma_spread_8w.s3 sm89.mma_spread_8w_k32.s4"
DECODE="sm90.ws_splitk sm90.ws_splitk.swap sm90.ws_splitk.swap.dsmem sm90.ws_splitk.dsmem sm90.ws_pingpong"
DECODE="$DECODE sm90.ws_splitk.n192 auto"
plots=no
python3 -c "import matplotlib" 2>/dev/null && plots=yes

# out NAME: the --json/--md (and --plot, where matplotlib is) arguments for $R/NAME.
out() {
  local a="--json $R/$1.json --md $R/$1.md"
  [ $plots = yes ] && a="$a --plot $R/plots/$1"
  echo "$a"
}

parts=("$@")
usage() { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; }
[ ${#parts[@]} -eq 0 ] && { usage; exit 2; }
[ "${parts[*]}" = all ] && parts=(build squares random ragged decode llm split_tail features user_path fp8 fp8_f32
                                  fp8_entries fp8_deepgemm)
steps=()
built=no
build_step=(timeout=200 build=90a)
[ -n "${WHEEL:-}" ] && build_step=(timeout=60 "install=$WHEEL")
[ -z "${WHEEL:-}" ] && python3 -c "import tcgemm, sys; sys.exit('90a' not in tcgemm.build_info()['archs'])" 2>/dev/null && built=yes
for part in "${parts[@]}"; do
  if [ $built = no ] && [ "$part" != build ] && [ "$part" != ada_cutlass ]; then steps+=("${build_step[@]}"); built=yes; fi
  case $part in
    build) steps+=("${build_step[@]}"); built=yes ;;
    squares) steps+=(timeout=330 "bench=--shapes 2048 4096 8192 16384 --kernels $ADA $H --dtypes fp16 bf16 \
--layouts TN NN $P $(out ${G}_squares)") ;;
    random) steps+=(timeout=240 "bench=--preset random --seed 41 42 43 --count 24 --aligned-share 0.5 --kernels $H \
--dtypes fp16 bf16 --layouts TN NN $P $(out ${G}_random)") ;;
    llm) steps+=(timeout=390 "bench=--preset llm --kernels $H --dtypes bf16 fp16 --layouts TN NN $P $(out ${G}_llm)") ;;
    ragged) steps+=(timeout=150 "bench=--preset ragged --kernels $ADA $H --dtypes fp16 bf16 --layouts TN NN $P \
$(out ${G}_ragged)") ;;
    decode) steps+=(timeout=150 "bench=--preset decode --kernels $DECODE --dtypes bf16 fp16 --layouts TN NN $P \
$(out ${G}_decode)") ;;
    split_tail) steps+=(timeout=150 "bench=--preset split_tail --kernels $H --dtypes fp16 bf16 --layouts TN NN $P \
$(out ${G}_split_tail)") ;;
    features) steps+=(timeout=180 "bench=--only-features $P $(out ${G}_features)") ;;
    user_path) steps+=(timeout=180 "user=$(out ${G}_user_path)") ;;
    # fp8: auto's fast sums (use_fast_accum=True) and block scales; fp8_f32: its fp32 sums.
    fp8) steps+=(timeout=390 "bench=--fp8 --fp8-sums fast --paired 4 $(out ${G}_fp8)") ;;
    fp8_f32) steps+=(timeout=300 "bench=--fp8 --fp8-sums f32 --fp8-modes tensor rowwise --paired 4 \
$(out ${G}_fp8_f32)") ;;
    # auto's FP8 rules (sm90/heuristics.cpp) rest on this one: seeds apart from fp8's.
    fp8_entries) steps+=(timeout=390 "bench=--fp8 --fp8-kernels all --fp8-sums fast --seed 61 62 --paired 2 \
--json $R/${G}_fp8_entries.json --md $R/${G}_fp8_entries.md") ;;
    fp8_deepgemm) steps+=(timeout=390 "bench=--fp8 --fp8-modes block --fp8-parts deepgemm squares llm --fp8-deepgemm \
--paired 3 --json $R/${G}_fp8_deepgemm.json --md $R/${G}_fp8_deepgemm.md") ;;
    ada_cutlass) steps+=(timeout=540 "cutlass=--json $R/${G}_ada_cutlass.json --md $R/${G}_ada_cutlass.md") ;;
    *) echo "regenerate.sh: unknown part '$part'"; usage; exit 2 ;;
  esac
done
echo "regenerate.sh: commit ${TCGEMM_COMMIT:-unknown} (dirty: ${TCGEMM_COMMIT_DIRTY:-unknown}), results in $R, logs in $OUT"
if [ "${DRY_RUN:-0}" != 0 ]; then printf '%q ' bash bench/device.sh "${steps[@]}"; echo; exit 0; fi
exec bash bench/device.sh "${steps[@]}"
