#!/usr/bin/env bash
# Builds and runs the Ada-against-CUTLASS comparison (main.cu) for sm_90a:
#   TCGEMM_CUTLASS_DIR=/path/to/cutlass bash bench/cutlass/run.sh [main.cu's arguments]
# TCGEMM_CUTLASS_DIR: a CUTLASS checkout or its include directory (the device
# has no network: the caller brings it). Builds into build-cutlass/ (or
# TCGEMM_CUTLASS_BUILD): the library for 90a and the comparison, nothing of
# the Python package.
# TCGEMM_CUTLASS_BIN instead: the binary bench/cutlass/pack.sh built on a CPU
# machine (.xz as it packs it, or unpacked), run with no build here.
set -eu
if [ -n "${TCGEMM_CUTLASS_BIN:-}" ]; then
  bin=$TCGEMM_CUTLASS_BIN
  case $bin in
    *.xz) bin=$(mktemp); trap 'rm -f "$bin"' EXIT
          python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
            "$TCGEMM_CUTLASS_BIN" "$bin"; chmod +x "$bin" ;;
  esac
  "$bin" "$@"
  exit
fi
: "${TCGEMM_CUTLASS_DIR:?set TCGEMM_CUTLASS_DIR to a CUTLASS checkout or its include directory}"
TCGEMM_CUTLASS_DIR=$(cd "$TCGEMM_CUTLASS_DIR" && pwd)  # relative to the caller's directory
cd "$(dirname "$0")/../.."
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
B=${TCGEMM_CUTLASS_BUILD:-build-cutlass}
cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTCGEMM_CUDA_ARCHS=90a -DTCGEMM_BUILD_PYTHON=OFF \
  -DTCGEMM_BUILD_TESTS=OFF -DTCGEMM_CUTLASS_DIR="$TCGEMM_CUTLASS_DIR" > /dev/null
cmake --build "$B" --target tcgemm_cutlass_bench -j "$(nproc)"
exec "$B/tcgemm_cutlass_bench" "$@"
