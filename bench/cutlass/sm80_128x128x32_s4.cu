// CUTLASS SM80 128x128x32, 4 stages, warps of 64x64x32 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM80(128, 128, 32, 64, 64, 32, 4)
