// CUTLASS SM89 FP8 128x64x128, 3 stages, warps of 64x32x128 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM89(128, 64, 128, 64, 32, 128, 3)
