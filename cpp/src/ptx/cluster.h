// Thread-block clusters (sm_90+): a CTA's rank, the cluster-wide barrier and
// addresses of a peer CTA's shared memory (generic to sm_90a and sm_100a).
// PTX ISA: "Special Registers: %cluster_ctarank, %cluster_nctarank",
// "Parallel Synchronization and Communication Instructions: barrier.cluster",
// "Data Movement and Conversion Instructions: mapa".
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// This CTA's rank in its cluster (0 .. cluster size - 1).
TCGEMM_DEVICE uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

// Number of CTAs in the cluster.
TCGEMM_DEVICE uint32_t cluster_nctarank() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
  return n;
}

// barrier.cluster.arrive.release: this thread's earlier writes (e.g. mbarrier
// inits) are visible to every CTA of the cluster after its wait. Aligned: all
// threads of the warp execute it.
TCGEMM_DEVICE void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }

// barrier.cluster.wait.acquire: blocks until every thread of every CTA in the
// cluster has arrived.
TCGEMM_DEVICE void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }

TCGEMM_DEVICE void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}

// mapa.shared::cluster: the address, in the shared::cluster window, of the
// same shared-memory offset `smem` in the CTA of rank `rank`.
TCGEMM_DEVICE uint32_t mapa_shared(uint32_t smem, uint32_t rank) {
  uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(out) : "r"(smem), "r"(rank));
  return out;
}

// ld.shared::cluster.v4.f32: 16 bytes from a peer CTA's shared memory (an
// address from mapa_shared): distributed shared memory.
TCGEMM_DEVICE float4 ld_shared_cluster_v4_f32(uint32_t cluster_addr) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(cluster_addr)
               : "memory");
  return v;
}

}  // namespace tcgemm::ptx
