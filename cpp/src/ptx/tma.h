// TMA (the Tensor Memory Accelerator, sm_90+; generic to sm_90a and sm_100a):
// tiled tensor copies between global and shared memory described by a
// CUtensorMap (encoded on the host, cpp/src/tma/tensor_map.h).
// PTX ISA: "Data Movement and Conversion Instructions: cp.async.bulk.tensor",
// "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
// "prefetch.tensormap" and "membar/fence" (fence.proxy.async).
//
// `map` is the generic address of a `const __grid_constant__ CUtensorMap`
// kernel parameter. Coordinates are element indices, innermost dimension
// first; they may lie partly or wholly outside the tensor: TMA fills those
// elements (zeros with CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) and still counts
// the whole box in the bytes it signals.
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// Global -> shared, 2-D box; on arrival the box's bytes are signalled to the
// mbarrier `bar` (mbarrier::complete_tx::bytes) of the destination CTA.
TCGEMM_DEVICE void tma_load_2d(uint32_t dst, const void* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// Global -> shared, 3-D box.
TCGEMM_DEVICE void tma_load_3d(uint32_t dst, const void* map, uint32_t bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// .multicast::cluster: one read from global memory lands at the same
// shared-memory offset `dst` in every CTA whose bit is set in `cta_mask`, and
// signals the mbarrier at offset `bar` in each of them.
TCGEMM_DEVICE void tma_load_2d_multicast(uint32_t dst, const void* map, uint32_t bar, int c0, int c1,
                                         uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

TCGEMM_DEVICE void tma_load_3d_multicast(uint32_t dst, const void* map, uint32_t bar, int c0, int c1, int c2,
                                         uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
      : "memory");
}

// Shared -> global, 2-D box. Elements of the box outside the tensor are not
// written: the clipped store at the matrix edges comes for free. Completion
// is tracked by bulk async-groups (commit / wait below).
TCGEMM_DEVICE void tma_store_2d(const void* map, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(map),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}

TCGEMM_DEVICE void tma_store_3d(const void* map, uint32_t src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   map),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

// Close the group of bulk stores this thread issued so far.
TCGEMM_DEVICE void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

// Wait until at most N of this thread's bulk groups still READ their shared
// memory source (.read): the staging buffer may then be rewritten, while the
// global writes may still be in flight.
template <int N>
TCGEMM_DEVICE void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Wait until at most N of this thread's bulk groups are incomplete (writes
// to global memory done).
template <int N>
TCGEMM_DEVICE void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Bring a tensor map (a kernel parameter) into the TMA unit's descriptor
// cache ahead of its first use.
TCGEMM_DEVICE void prefetch_tensormap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// fence.proxy.async.shared::cta: makes this thread's generic-proxy writes to
// shared memory visible to the async proxy (a TMA store reading them, or an
// MMA reading operands written by st.shared). Issue it before the barrier
// that hands the buffer to the thread starting the async operation.
TCGEMM_DEVICE void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

}  // namespace tcgemm::ptx
