// sm100.v1a_basic -- the basic tcgen05 kernel (seed 002, "basic tcgen05
// kernel"): TMEM allocation, the instruction descriptor, unswizzled
// shared-memory descriptors over 8x16-byte core matrices, 2-D TMA loads 16
// bytes wide issued per K slice, tcgen05.commit to an mbarrier, and an epilogue
// by tcgen05.ld 32x32b. The kernel is sm100/basic_gemm.cuh; this step's load
// style is Load::tma2d_16B: a K-major operand tile lands as BK/8 columns of
// 16 bytes x rows (each 8-row group one contiguous 128-byte core matrix:
// SBO = 128, LBO = rows * 16), an MN-major B tile as BN/8 columns of BK
// k-rows (LBO = 128, SBO = BK * 16).
#include "sm100/basic_gemm.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {

Status launch_v1a(const GemmArgs& a) { return launch_basic_variant<Load::tma2d_16B, 128, 64>(a); }

}  // namespace tcgemm::sm100
