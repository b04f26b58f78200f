#!/usr/bin/env bash
# Builds the Ada-against-CUTLASS comparison on a CPU machine (nvcc compiles
# sm_90a without a GPU) and packs it for the device, so that the device's
# time goes to running it (bench/cutlass/run.sh with TCGEMM_CUTLASS_BIN):
#   TCGEMM_CUTLASS_DIR=/path/to/cutlass bash bench/cutlass/pack.sh [FILE]
# FILE (default .whl/tcgemm_cutlass_bench.xz: .whl is ignored by git and is
# what the device's `carry` takes along, 64 MiB a call) receives the
# stripped binary, xz-compressed (about 160 MB -> 11 MB: mostly SASS).
# The binary links the C++ runtime and libc only (cudart statically; the
# driver's libcuda at run time).
set -eu
cd "$(dirname "$0")/../.."
F=${1:-.whl/tcgemm_cutlass_bench.xz}
B=${TCGEMM_CUTLASS_BUILD:-build-cutlass}
: "${TCGEMM_CUTLASS_DIR:?set TCGEMM_CUTLASS_DIR to a CUTLASS checkout or its include directory}"
TCGEMM_CUTLASS_DIR=$(cd "$TCGEMM_CUTLASS_DIR" && pwd)
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
cmake -S . -B "$B" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTCGEMM_CUDA_ARCHS=90a -DTCGEMM_BUILD_PYTHON=OFF \
  -DTCGEMM_BUILD_TESTS=OFF -DTCGEMM_CUTLASS_DIR="$TCGEMM_CUTLASS_DIR" > /dev/null
cmake --build "$B" --target tcgemm_cutlass_bench -j "$(nproc)"
mkdir -p "$(dirname "$F")"
t=$(mktemp)
strip -o "$t" "$B/tcgemm_cutlass_bench"
xz -T0 -9 -c "$t" > "$F"
rm -f "$t"
# The commit the binary records: the build's stamp (CMakeLists.txt, source_stamp.cpp).
stamp=$(grep -oE 'return "[^"]*"|return -?[0-9]+' "$B/source_stamp.cpp" | sed -E 's/return "?//; s/"$//' | paste -sd' ')
echo "pack.sh: $F ($(du -h "$F" | cut -f1)), build stamp (commit, dirty): $stamp"
