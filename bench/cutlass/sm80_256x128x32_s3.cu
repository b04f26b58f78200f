// CUTLASS SM80 256x128x32, 3 stages, warps of 64x64x32 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM80(256, 128, 32, 64, 64, 32, 3)
