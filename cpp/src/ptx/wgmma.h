// wgmma: warpgroup-level asynchronous matrix multiply-accumulate (sm_90a).
// PTX ISA: "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
// Instructions": wgmma.mma_async, wgmma.fence, wgmma.commit_group,
// wgmma.wait_group, and "Matrix Descriptor Format" for the shared-memory
// operand descriptors.
//
// D[64 x N] (+)= A[64 x 16] * B[16 x N], A and B read from shared memory
// through 64-bit matrix descriptors, D (fp32) in the 128 threads' registers:
// warp w of the warpgroup holds rows 16w..16w+15; for each n8 column block j,
// a lane holds d[4j+0..1] = row lane/4, columns 8j + 2*(lane%4) + {0,1} and
// d[4j+2..3] = the same columns of row lane/4 + 8.
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// ---- synchronisation

// wgmma.fence: orders earlier register accesses (the accumulators being
// zeroed or read) and shared-memory writes before the next wgmma.mma_async.
TCGEMM_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Close the group of wgmma.mma_async issued so far by this warpgroup.
TCGEMM_DEVICE void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Wait until at most N committed groups are pending: their accumulators may
// then be read and their shared-memory operands overwritten.
template <int N>
TCGEMM_DEVICE void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// ---- shared-memory matrix descriptor (PTX ISA: "Matrix Descriptor Format")
//   bits  0-13  start address >> 4
//   bits 16-29  leading-dimension byte offset >> 4
//   bits 32-45  stride-dimension byte offset >> 4
//   bits 49-51  base offset (0: the swizzle pattern starts 1024-byte aligned)
//   bits 62-63  swizzle: 0 none, 1 128B, 2 64B, 3 32B
enum class WgmmaSwizzle : uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

TCGEMM_HOST_DEVICE uint64_t wgmma_desc(uint32_t smem, uint32_t lbo_bytes, uint32_t sbo_bytes, WgmmaSwizzle sw) {
  return static_cast<uint64_t>((smem & 0x3FFFF) >> 4) | static_cast<uint64_t>((lbo_bytes & 0x3FFFF) >> 4) << 16 |
         static_cast<uint64_t>((sbo_bytes & 0x3FFFF) >> 4) << 32 | static_cast<uint64_t>(sw) << 62;
}

// ---- wgmma.mma_async, fp32 accumulators, A and B from shared memory.
// scale_d = 0 ignores the old D (D = A*B), 1 accumulates (D += A*B).
// TransA / TransB (imm-trans-a / imm-trans-b, 16-bit types only): 0 = the
// operand is K-major (A stored M x K; B stored N x K, the TN case), 1 = it is
// MN-major (B stored K x N, the NN case; A stored K x M, the swapped NN
// problem, whose A is the caller's K x N weight).

// The forms below differ only in N (n16, n32, n64, n128, n192, n256: 8 to
// 128 accumulator registers per thread) and the element type; the macros
// spell out the operand lists once.
#define TCGEMM_WGMMA_REGS8 " {%0, %1, %2, %3, %4, %5, %6, %7},\n"
#define TCGEMM_WGMMA_REGS16 \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15},\n"
#define TCGEMM_WGMMA_REGS32 \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},\n"
#define TCGEMM_WGMMA_REGS64 \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63},\n"
#define TCGEMM_WGMMA_REGS96 \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95},\n"
#define TCGEMM_WGMMA_REGS128 \
  " {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95," \
  " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  " %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},\n"
#define TCGEMM_WGMMA_D8(i) "+f"(d[i]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]), "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define TCGEMM_WGMMA_D16 TCGEMM_WGMMA_D8(0), TCGEMM_WGMMA_D8(8)
#define TCGEMM_WGMMA_D32 TCGEMM_WGMMA_D16, TCGEMM_WGMMA_D8(16), TCGEMM_WGMMA_D8(24)
#define TCGEMM_WGMMA_D64                                                                                  \
  TCGEMM_WGMMA_D8(0), TCGEMM_WGMMA_D8(8), TCGEMM_WGMMA_D8(16), TCGEMM_WGMMA_D8(24), TCGEMM_WGMMA_D8(32), \
      TCGEMM_WGMMA_D8(40), TCGEMM_WGMMA_D8(48), TCGEMM_WGMMA_D8(56)
#define TCGEMM_WGMMA_D96 \
  TCGEMM_WGMMA_D64, TCGEMM_WGMMA_D8(64), TCGEMM_WGMMA_D8(72), TCGEMM_WGMMA_D8(80), TCGEMM_WGMMA_D8(88)
#define TCGEMM_WGMMA_D128                                                                                    \
  TCGEMM_WGMMA_D64, TCGEMM_WGMMA_D8(64), TCGEMM_WGMMA_D8(72), TCGEMM_WGMMA_D8(80), TCGEMM_WGMMA_D8(88),      \
      TCGEMM_WGMMA_D8(96), TCGEMM_WGMMA_D8(104), TCGEMM_WGMMA_D8(112), TCGEMM_WGMMA_D8(120)
// %<n> .. %<n+4> are desc_a, desc_b, scale_d (as predicate p), TransA and TransB.
#define TCGEMM_WGMMA_ASYNC(shape, ab, REGS, a, b, scale, trans_a, trans_b, ...)                    \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" scale ", 0;\n"                              \
               " wgmma.mma_async.sync.aligned." shape ".f32." ab "." ab "\n" REGS                    \
               " %" a ", %" b ", p, 1, 1, %" trans_a ", %" trans_b ";\n}\n"                          \
               : __VA_ARGS__                                                                    \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n16k16_f32_f16(float (&d)[8], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n16k16", "f16", TCGEMM_WGMMA_REGS8, "8", "9", "10", "11", "12", TCGEMM_WGMMA_D8(0));
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n16k16_f32_bf16(float (&d)[8], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n16k16", "bf16", TCGEMM_WGMMA_REGS8, "8", "9", "10", "11", "12", TCGEMM_WGMMA_D8(0));
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n32k16_f32_f16(float (&d)[16], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n32k16", "f16", TCGEMM_WGMMA_REGS16, "16", "17", "18", "19", "20", TCGEMM_WGMMA_D16);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n32k16_f32_bf16(float (&d)[16], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n32k16", "bf16", TCGEMM_WGMMA_REGS16, "16", "17", "18", "19", "20", TCGEMM_WGMMA_D16);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n64k16_f32_f16(float (&d)[32], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n64k16", "f16", TCGEMM_WGMMA_REGS32, "32", "33", "34", "35", "36", TCGEMM_WGMMA_D32);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n64k16_f32_bf16(float (&d)[32], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n64k16", "bf16", TCGEMM_WGMMA_REGS32, "32", "33", "34", "35", "36", TCGEMM_WGMMA_D32);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n128k16_f32_f16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n128k16", "f16", TCGEMM_WGMMA_REGS64, "64", "65", "66", "67", "68", TCGEMM_WGMMA_D64);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n128k16_f32_bf16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n128k16", "bf16", TCGEMM_WGMMA_REGS64, "64", "65", "66", "67", "68", TCGEMM_WGMMA_D64);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n192k16_f32_f16(float (&d)[96], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n192k16", "f16", TCGEMM_WGMMA_REGS96, "96", "97", "98", "99", "100", TCGEMM_WGMMA_D96);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n192k16_f32_bf16(float (&d)[96], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n192k16", "bf16", TCGEMM_WGMMA_REGS96, "96", "97", "98", "99", "100", TCGEMM_WGMMA_D96);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n256k16_f32_f16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n256k16", "f16", TCGEMM_WGMMA_REGS128, "128", "129", "130", "131", "132", TCGEMM_WGMMA_D128);
}

template <int TransA, int TransB>
TCGEMM_DEVICE void wgmma_m64n256k16_f32_bf16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, uint32_t scale_d) {
  TCGEMM_WGMMA_ASYNC("m64n256k16", "bf16", TCGEMM_WGMMA_REGS128, "128", "129", "130", "131", "132", TCGEMM_WGMMA_D128);
}

// ---- FP8 (PTX ISA: wgmma.mma_async, .atype / .btype .e4m3 or .e5m2, K = 32
// per instruction): both operands K-major -- the FP8 forms have no
// imm-trans-a / imm-trans-b (A stored M x K, B stored N x K: the TN case).
// A k32 step of FP8 is 32 bytes of a row, as a k16 step of a 16-bit type is,
// so the descriptors of a 128-byte swizzle row are the same.
#define TCGEMM_WGMMA_F8(shape, ta, tb, REGS, a, b, scale, ...)                                   \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" scale ", 0;\n"                           \
               " wgmma.mma_async.sync.aligned." shape ".f32." ta "." tb "\n" REGS                \
               " %" a ", %" b ", p, 1, 1;\n}\n"                                                  \
               : __VA_ARGS__                                                                    \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))

// KindA / KindB: 0 = e4m3, 1 = e5m2. One function per width N (8 to 128
// accumulator registers per thread), its operand list spelled by REGS / D.
#define TCGEMM_WGMMA_F8_N(N, REGS, a, b, scale, D)                                                            \
  template <int KindA, int KindB>                                                                           \
  TCGEMM_DEVICE void wgmma_m64n##N##k32_f32_f8(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,        \
                                                 uint32_t scale_d) {                                         \
    static_assert(KindA == 0 || KindB == 0, "e5m2 x e5m2 is not offered (tcgemm/types.h)");               \
    if constexpr (KindA == 0 && KindB == 0)                                                                 \
      TCGEMM_WGMMA_F8("m64n" #N "k32", "e4m3", "e4m3", REGS, a, b, scale, D);                               \
    else if constexpr (KindA == 0)                                                                          \
      TCGEMM_WGMMA_F8("m64n" #N "k32", "e4m3", "e5m2", REGS, a, b, scale, D);                               \
    else                                                                                                    \
      TCGEMM_WGMMA_F8("m64n" #N "k32", "e5m2", "e4m3", REGS, a, b, scale, D);                               \
  }
TCGEMM_WGMMA_F8_N(16, TCGEMM_WGMMA_REGS8, "8", "9", "10", TCGEMM_WGMMA_D8(0))
TCGEMM_WGMMA_F8_N(32, TCGEMM_WGMMA_REGS16, "16", "17", "18", TCGEMM_WGMMA_D16)
TCGEMM_WGMMA_F8_N(64, TCGEMM_WGMMA_REGS32, "32", "33", "34", TCGEMM_WGMMA_D32)
TCGEMM_WGMMA_F8_N(128, TCGEMM_WGMMA_REGS64, "64", "65", "66", TCGEMM_WGMMA_D64)
TCGEMM_WGMMA_F8_N(192, TCGEMM_WGMMA_REGS96, "96", "97", "98", TCGEMM_WGMMA_D96)
TCGEMM_WGMMA_F8_N(256, TCGEMM_WGMMA_REGS128, "128", "129", "130", TCGEMM_WGMMA_D128)

#undef TCGEMM_WGMMA_F8_N
#undef TCGEMM_WGMMA_F8
#undef TCGEMM_WGMMA_ASYNC
#undef TCGEMM_WGMMA_D128
#undef TCGEMM_WGMMA_D96
#undef TCGEMM_WGMMA_D64
#undef TCGEMM_WGMMA_D32
#undef TCGEMM_WGMMA_D16
#undef TCGEMM_WGMMA_D8
#undef TCGEMM_WGMMA_REGS128
#undef TCGEMM_WGMMA_REGS96
#undef TCGEMM_WGMMA_REGS64
#undef TCGEMM_WGMMA_REGS32
#undef TCGEMM_WGMMA_REGS16
#undef TCGEMM_WGMMA_REGS8

}  // namespace tcgemm::ptx
