// CUTLASS SM89 FP8 128x256x64, 3 stages, warps of 64x64x64 (cutlass_kernels.cuh).
#include "cutlass_kernels.cuh"

CUTLASS_BENCH_SM89(128, 256, 64, 64, 64, 64, 3)
