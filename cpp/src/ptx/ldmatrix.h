// ldmatrix: warp-wide load of 8x8 b16 matrices from shared memory, landing in
// exactly the register fragments mma.sync expects.
// PTX ISA: "Warp-level matrix load instruction: ldmatrix".
// Each lane gives one row address (lanes 0-7 matrix 0, 8-15 matrix 1, ...).
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

TCGEMM_DEVICE void ldmatrix_x2(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}

TCGEMM_DEVICE void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// .trans: each 8x8 matrix is transposed on the way, so a row-major (k, n)
// tile in shared memory yields the column-major B fragment mma.sync wants.
TCGEMM_DEVICE void ldmatrix_x2_trans(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}

TCGEMM_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

}  // namespace tcgemm::ptx
