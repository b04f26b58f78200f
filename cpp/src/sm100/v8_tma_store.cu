// sm100.v8_tma_store -- v7 (Cluster Launch Control, grouped raster,
// double-buffered TMEM) with a TMA-store epilogue: the epilogue warps no longer
// write C from registers; each 128 x 64 box of their tile goes TMEM ->
// registers (tcgen05.ld 32x32b) -> 16-bit -> a 128B-swizzled shared staging box
// -> fence.proxy.async -> named barrier of the 4 epilogue warps -> one thread's
// cp.async.bulk.tensor store, which clips at the M and N edges. Two staging
// boxes alternate (bulk wait_group.read 1 before one is rewritten), so the
// conversion of the next box overlaps the store of the previous one.
// The epilogue is epilogue_store_tma (kernel_common.cuh), the C map
// store_map (operands.h), the staging layout store_staging_offset
// (descriptors.h); the kernel is sm100/persistent_gemm.cuh with
// Epilogue::tma_store.
#include "sm100/clc.cuh"
#include "sm100/launch.h"
#include "sm100/persistent_gemm.cuh"

namespace tcgemm::sm100 {

Status launch_v8(const GemmArgs& a) {
  const int64_t units = pair_units(a, true);  // as v7: one pair per unit, folded by CLC
  return a.layout == Layout::TN ? launch_persistent<Layout::TN, ClcSchedule, Epilogue::tma_store>(a, true, units)
                                : launch_persistent<Layout::NN, ClcSchedule, Epilogue::tma_store>(a, true, units);
}

}  // namespace tcgemm::sm100
