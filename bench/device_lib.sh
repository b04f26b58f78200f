# Sourced by the device-call scripts (bench/*_run.sh): strict mode, the
# elapsed-time stamp `el`, and `tcgemm_build ARCHS [CMAKE_ARGS]`, which builds
# and installs the package (ctest binaries in build/) with its log in
# $OUT/build.log, printing the log's tail and exiting if the build fails.
set -u
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$(nproc)
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s]"; }
tcgemm_build() {
  CMAKE_ARGS="${2:-}" TCGEMM_CUDA_ARCHS="$1" python3 -m pip install -q --no-build-isolation --no-deps . \
    > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
  echo "$(el) built ($1${2:+, $2})"
}
