// Helpers every PTX wrapper uses.
#pragma once
#include <cstdint>

#define TCGEMM_DEVICE __device__ __forceinline__
#define TCGEMM_HOST_DEVICE __host__ __device__ __forceinline__

namespace tcgemm::ptx {

// A generic pointer into shared memory as the 32-bit .shared address the
// PTX memory instructions take (PTX ISA: "Generic addressing", cvta).
TCGEMM_DEVICE uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Plain shared-memory accesses by .shared address (PTX ISA: ld, st). Volatile
// with a memory clobber: the callers order them with named barriers, and the
// compiler must not move them across those.
TCGEMM_DEVICE void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
TCGEMM_DEVICE void st_shared_f32(uint32_t addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(addr), "f"(v) : "memory");
}
TCGEMM_DEVICE float ld_shared_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
TCGEMM_DEVICE void ld_shared_v2_f32(uint32_t addr, float* x, float* y) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(*x), "=f"(*y) : "r"(addr) : "memory");
}
TCGEMM_DEVICE void st_shared_v4_b32(uint32_t addr, uint4 v) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
TCGEMM_DEVICE void st_shared_u16(uint32_t addr, uint16_t v) {
  asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(addr), "h"(v) : "memory");
}
TCGEMM_DEVICE uint32_t ld_shared_b32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
TCGEMM_DEVICE uint4 ld_shared_v4_b32(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
TCGEMM_DEVICE void st_shared_v4_f32(uint32_t addr, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

}  // namespace tcgemm::ptx
