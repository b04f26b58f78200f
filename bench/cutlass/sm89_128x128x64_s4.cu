// CUTLASS SM89 FP8 128x128x64, 4 stages, warps of 64x64x64 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM89(128, 128, 64, 64, 64, 64, 4)
