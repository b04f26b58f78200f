// sm100.v1b_tma3d -- v1a with one 3-D TMA per operand and K slice (seed 002,
// "3D 16B TMA"): the tensor map views a K-major operand as (8 elements,
// rows, K/8 columns) with strides (1, ld, 8), so one box of (8, rows, BK/8)
// lands as exactly the column-of-core-matrices layout v1a built with BK/8
// separate 2-D loads. A 3-D box cannot clip inside a 16-byte column, so the
// K-edge slice (and, for MN-major B, the N-edge tile) still goes through the
// 2-D map, which zero-fills past the matrix (sm100/operands.h).
#include "sm100/basic_gemm.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {

Status launch_v1b(const GemmArgs& a) { return launch_basic_variant<Load::tma3d_16B, 128, 64>(a); }

}  // namespace tcgemm::sm100
