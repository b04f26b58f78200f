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

}  // namespace tcgemm::ptx
