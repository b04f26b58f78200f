// mma.sync.aligned.m16n8k16: one warp computes D[16x8] = A[16x16] B[16x8] + C
// (and m16n8k32 for FP8 operands, below).
// PTX ISA: "Matrix multiply-accumulate operation using mma instruction",
// fragment layouts for .m16n8k16 with .f16/.bf16 operands.
// A: 4 x b32 (8 elements), B: 2 x b32 (4 elements) per lane.
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// fp16 inputs, fp32 accumulators (4 floats per lane).
TCGEMM_DEVICE void mma_m16n8k16_f32_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// bf16 inputs, fp32 accumulators (bf16 mma has no f16 accumulator form).
TCGEMM_DEVICE void mma_m16n8k16_f32_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// fp16 inputs, fp16 accumulators (2 x f16x2 per lane): twice the fp32 rate on
// GeForce Ada, the same on Hopper; rounding grows with K.
TCGEMM_DEVICE void mma_m16n8k16_f16_f16(uint32_t (&d)[2], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};\n"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// mma.sync.aligned.m16n8k32 with FP8 operands (sm_89+; PTX ISA 8.4 for
// .e4m3/.e5m2 with .f32 accumulators): D[16x8] = A[16x32] B[32x8] + C. A is
// .row and B .col only -- both K-major. Per lane A is 4 x b32 (16 elements),
// B 2 x b32 (8), D 4 floats, and byte for byte these fragments are the
// m16n8k16 16-bit ones (PTX ISA, "Matrix Fragments for mma.m16n8k32"): A's
// register r holds row groupID (+8 for r odd) at K bytes 4*tig..4*tig+3 (+16
// for r >= 2), where a 16-bit fragment holds the same row at the same bytes,
// so ldmatrix (b16) loads them unchanged (sm89/fp8_fragments.h checks it).
// The accumulator is full fp32 on Ada (unlike FP8 wgmma's on Hopper).
TCGEMM_DEVICE void mma_m16n8k32_f32_e4m3_e4m3(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// e4m3 A, e5m2 B (PTX allows any mix of the two formats).
TCGEMM_DEVICE void mma_m16n8k32_f32_e4m3_e5m2(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// e5m2 A, e4m3 B.
TCGEMM_DEVICE void mma_m16n8k32_f32_e5m2_e4m3(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// cvt.rn.f16x2.e4m3x2 / .e5m2x2 on both halves of a register: four FP8
// values (bytes 0..3) as two f16x2, lo = bytes 0-1, hi = bytes 2-3 (PTX ISA,
// cvt; sm_89+). Exact: every e4m3 and e5m2 value is an fp16 value.
TCGEMM_DEVICE void cvt_rn_f16x2_e4m3x2(uint32_t& lo, uint32_t& hi, uint32_t v) {
  asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e4m3x2 %0, l;\n cvt.rn.f16x2.e4m3x2 %1, h;\n}\n"
      : "=r"(lo), "=r"(hi)
      : "r"(v));
}
TCGEMM_DEVICE void cvt_rn_f16x2_e5m2x2(uint32_t& lo, uint32_t& hi, uint32_t v) {
  asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e5m2x2 %0, l;\n cvt.rn.f16x2.e5m2x2 %1, h;\n}\n"
      : "=r"(lo), "=r"(hi)
      : "r"(v));
}

}  // namespace tcgemm::ptx
