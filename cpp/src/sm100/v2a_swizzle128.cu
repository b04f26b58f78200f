// sm100.v2a_swizzle128 -- 128-byte-wide TMA boxes with the 128B swizzle (seed
// 002, "128-byte global loads and swizzle"): a K-major tile lands as BK/64
// columns of 128-byte rows, XOR-swizzled in 8-row 1024-byte atoms by TMA,
// and the shared-memory descriptor says the same with swizzle mode 2
// (SBO = 1024; LBO unused). A k16 MMA step inside a 128-byte row moves the
// descriptor's start address by 32 bytes: the hardware swizzles the final
// address, so only the atoms need 1024-byte alignment. An MN-major B tile is
// BN/64 atoms of BK 128-byte k-rows (SBO = 1024, LBO = BK * 128). The slice
// is 128 deep: two 64-wide columns per operand per slice.
#include "sm100/basic_gemm.cuh"
#include "sm100/launch.h"

namespace tcgemm::sm100 {

Status launch_v2a(const GemmArgs& a) { return launch_basic_variant<Load::tma2d_128B, 128, 128>(a); }

}  // namespace tcgemm::sm100
