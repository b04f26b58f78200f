// CUTLASS SM80 128x128x64, 3 stages, warps of 64x64x64 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM80(128, 128, 64, 64, 64, 64, 3)
