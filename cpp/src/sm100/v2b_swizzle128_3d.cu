// sm100.v2b_swizzle128_3d -- v2a with one 3-D TMA box per operand and K slice
// (seed 002, "3D 128B TMA"): the map views a K-major operand as (64 elements,
// rows, K/64 columns) with strides (1, ld, 64), so the two 128-byte columns of
// a 128-deep slice arrive in one load. The edge slices use the 2-D map, as in
// v1b (sm100/operands.h).
#include "sm100/basic_gemm.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {

Status launch_v2b(const GemmArgs& a) { return launch_basic_variant<Load::tma3d_128B, 128, 128>(a); }

}  // namespace tcgemm::sm100
