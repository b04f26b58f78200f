// mbarrier: the shared-memory barrier object that TMA, wgmma/tcgen05 pipelines
// and producer/consumer roles synchronise through. Most forms here are sm_90+
// (generic to sm_90a and sm_100a); mbarrier_init and the sm_80 forms at the
// end are what the Ada family may use.
// PTX ISA: "Parallel Synchronization and Communication Instructions: mbarrier"
// (mbarrier.init, mbarrier.arrive, mbarrier.expect_tx, mbarrier.try_wait) and
// "Memory Consistency Model" for the .release/.acquire semantics.
//
// A barrier is 8 bytes of shared memory. It counts pending arrivals and
// pending transaction bytes (tx-count); its current phase completes when both
// reach zero, which flips the phase parity bit the waiters test.
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// mbarrier.init: `count` arrivals complete each phase. One thread initialises;
// the init is made visible by fence_mbarrier_init() + a CTA/cluster barrier
// (within one CTA on sm_80, __syncthreads alone).
TCGEMM_DEVICE void mbarrier_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// fence.mbarrier_init: orders the preceding mbarrier.init before later
// arrivals by other CTAs of the cluster and by the async proxy (TMA's
// complete_tx). PTX ISA: "membar/fence" (fence.mbarrier_init).
TCGEMM_DEVICE void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// mbarrier.arrive (one arrival), release at CTA scope: this thread's earlier
// reads/writes of the guarded buffer happen before the waiter's acquire.
TCGEMM_DEVICE void mbarrier_arrive(uint32_t bar) {
  asm volatile(
      "{\n .reg .b64 state;\n mbarrier.arrive.release.cta.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar)
      : "memory");
}

// mbarrier.arrive on a barrier of another CTA of the cluster (its address in
// the shared::cluster window, from mapa): how a consumer frees a slot that a
// peer's multicast TMA writes into. Release at cluster scope.
TCGEMM_DEVICE void mbarrier_arrive_cluster(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_bar) : "memory");
}

// The same remote arrival with release at CTA scope (what CUTLASS's cluster
// barriers use). Enough when what the arrival publishes is "my reads of the
// slot are complete" (wgmma.wait_group retired them) rather than data
// written for the peer, and much cheaper on the per-K-slice path than a
// cluster-scope release.
TCGEMM_DEVICE void mbarrier_arrive_remote(uint32_t cluster_bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_bar) : "memory");
}

// mbarrier.arrive.expect_tx: one arrival that also raises the tx-count by
// `bytes`; the phase then also waits for that many bytes of complete_tx
// (the TMA loads this thread is about to issue).
TCGEMM_DEVICE void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
          bar),
      "r"(bytes)
      : "memory");
}

// mbarrier.expect_tx without an arrival (raise the tx-count only).
TCGEMM_DEVICE void mbarrier_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// mbarrier.try_wait.parity, acquire at CTA scope: true once the phase with
// parity `parity` has completed (a fresh barrier is in phase 0, so waiting on
// parity 1 succeeds at once: the "previous" phase counts as complete). The
// instruction itself may suspend the thread for a system-dependent time.
TCGEMM_DEVICE bool mbarrier_try_wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// The same with acquire at cluster scope: for a barrier whose arrivals come
// from other CTAs of the cluster (release.cluster arrivals pair with it).
TCGEMM_DEVICE bool mbarrier_try_wait_parity_cluster(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Spin until the phase of parity `parity` completes.
TCGEMM_DEVICE void mbarrier_wait_parity(uint32_t bar, uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

TCGEMM_DEVICE void mbarrier_wait_parity_cluster(uint32_t bar, uint32_t parity) {
  while (!mbarrier_try_wait_parity_cluster(bar, parity)) {
  }
}

// The sm_80 forms (what the Ada family may use: no .sem/.scope qualifiers,
// which need sm_90; the defaults are release / acquire at CTA scope).
// mbarrier.arrive: one arrival.
TCGEMM_DEVICE void mbarrier_arrive_sm80(uint32_t bar) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}
// mbarrier.test_wait.parity: true once the phase with parity `parity` has
// completed; never suspends (try_wait, which may, is sm_90+).
TCGEMM_DEVICE bool mbarrier_test_wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

}  // namespace tcgemm::ptx
