// The warp-specialized Hopper kernel, assembled from its parts: one producer
// warpgroup issues the TMA loads, one to three consumer warpgroups issue wgmma
// (mainloop_ws.cuh); a tile scheduler hands out the work units
// (sched/persistent.h); the finished tile leaves through one epilogue part
// (epilogue_direct.cuh, epilogue_tma_store.cuh, epilogue_partials.cuh,
// epilogue_cluster_split.cuh). The configuration (ws_config.cuh) chooses
// the parts; each registry entry (ws*.cu) names one or a few
// configurations, and the host launch is launch_ws.cuh.
// setmaxnreg moves registers from the producer (40) to the consumers (232;
// 152 with three).
// Batches are a dimension of the work-unit space (sched/persistent.h) and
// the batch coordinate of the 3-D tensor maps.
//
// The kernel's template parameter is a type (WsTraits<config>), not the
// WsConfig value itself: nvcc 13.0's host stub for a __global__ template
// cannot spell a class-type non-type argument (the generated stub names the
// struct by its mangled name and fails to compile).
//
// ws_kernel and ws_scaled_kernel are the same body (ws_kernel_body.inc) with
// two parameter blocks: FP8 configurations also take the dequantization
// scales (ScaledParams).
#pragma once
#include "ptx/cluster.h"
#include "ptx/tma.h"
#include "ptx/warpgroup.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "sm90/common.cuh"
#include "sm90/epilogue_cluster_split.cuh"
#include "sm90/epilogue_direct.cuh"
#include "sm90/epilogue_partials.cuh"
#include "sm90/epilogue_scales.cuh"
#include "sm90/epilogue_tma_store.cuh"
#include "sm90/mainloop_ws.cuh"
#include "sm90/ws_config.cuh"

namespace tcgemm::sm90 {

// The FP8 configurations' scales, through a function of Cfg so that the
// 16-bit kernels, whose Params has none, never name them.
template <class Cfg, class P>
__device__ __forceinline__ const Scales& scales_of(const P& p) {
  return p.scales;
}

// DT: the operands' and C's type; with an FP8 configuration C's type only.
template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const Params p) {
#include "sm90/ws_kernel_body.inc"
}

// FP8 configurations: the same body with the scales beside the parameters.
template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_scaled_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, const ScaledParams p) {
#include "sm90/ws_kernel_body.inc"
}

}  // namespace tcgemm::sm90
