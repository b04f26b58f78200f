// A ring of STAGES shared-memory slots guarded by full/empty mbarrier pairs,
// for one producer role (TMA) and one consumer role (MMA), shared by the
// Hopper and Blackwell kernels.
//
//   full[s]:  completes when slot s holds data: the producer's one
//             arrive.expect_tx plus the TMA bytes it announced.
//   empty[s]: completes when every consumer arrival for slot s is in: the
//             slot may be overwritten.
//
// Both sides walk the slots in the same order with a PipeState: the stage
// index and the phase parity, which flips each time the index wraps. The
// consumer waits full[s] for parity `phase`; the producer waits empty[s] for
// parity `phase ^ 1`, which a fresh barrier satisfies at once, so the first
// pass over the ring does not wait (PTX ISA: mbarrier "phase completion" and
// try_wait.parity). PipeState is plain host/device code: tests/cpp checks it.
#pragma once
#include <cstdint>

#include "sched/raster.h"  // TCGEMM_SCHED_FN

namespace tcgemm::sched {

template <int STAGES>
struct PipeState {
  static_assert(STAGES >= 1, "a pipeline has at least one slot");
  int stage = 0;       // slot index, 0 .. STAGES-1
  uint32_t phase = 0;  // parity of the pass over the ring

  TCGEMM_SCHED_FN void advance() {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1u;
    }
  }
  // The state after n more advances (n >= 0).
  TCGEMM_SCHED_FN PipeState advanced(int64_t n) const {
    const int64_t total = stage + n;
    PipeState s;
    s.stage = static_cast<int>(total % STAGES);
    s.phase = phase ^ static_cast<uint32_t>((total / STAGES) & 1);
    return s;
  }
};

}  // namespace tcgemm::sched

#ifdef __CUDACC__
#include "ptx/cluster.h"
#include "ptx/mbarrier.h"

namespace tcgemm::sched {

// The barrier pairs live in shared memory at `bars`: full[0..STAGES), then
// empty[0..STAGES), 8 bytes each.
template <int STAGES>
struct Pipeline {
  static constexpr int kBarrierBytes = 2 * STAGES * 8;
  uint32_t bars;  // shared-memory address of full[0]

  __device__ __forceinline__ uint32_t full(int s) const { return bars + 8u * s; }
  __device__ __forceinline__ uint32_t empty(int s) const { return bars + 8u * (STAGES + s); }

  // One thread, before any use; then fence_mbarrier_init + __syncthreads (or
  // a cluster barrier when peers arrive on these barriers).
  __device__ __forceinline__ void init(uint32_t full_arrivals, uint32_t empty_arrivals) const {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(full(s), full_arrivals);
      ptx::mbarrier_init(empty(s), empty_arrivals);
    }
  }

  // ---- producer
  // Wait until slot st.stage may be overwritten.
  __device__ __forceinline__ void producer_acquire(const PipeState<STAGES>& st) const {
    ptx::mbarrier_wait_parity(empty(st.stage), st.phase ^ 1u);
  }
  // The same when the arrivals come from other CTAs of the cluster.
  __device__ __forceinline__ void producer_acquire_cluster(const PipeState<STAGES>& st) const {
    ptx::mbarrier_wait_parity_cluster(empty(st.stage), st.phase ^ 1u);
  }
  // Announce the bytes the TMA loads into slot st.stage will deliver (the
  // producer's one arrival on full[s]); issue the loads after this.
  __device__ __forceinline__ void producer_expect(const PipeState<STAGES>& st, uint32_t bytes) const {
    ptx::mbarrier_arrive_expect_tx(full(st.stage), bytes);
  }

  // ---- consumer
  // Wait until slot st.stage holds its data.
  __device__ __forceinline__ void consumer_wait(const PipeState<STAGES>& st) const {
    ptx::mbarrier_wait_parity(full(st.stage), st.phase);
  }
  __device__ __forceinline__ bool consumer_try_wait(const PipeState<STAGES>& st) const {
    return ptx::mbarrier_try_wait_parity(full(st.stage), st.phase);
  }
  // This consumer is done reading slot st.stage (one arrival).
  __device__ __forceinline__ void consumer_release(const PipeState<STAGES>& st) const {
    ptx::mbarrier_arrive(empty(st.stage));
  }
  // The same arrival on the empty barrier of the cluster's CTA `rank` (whose
  // producer multicasts into this CTA's slot). It only publishes that this
  // CTA's reads of the slot are done, so CTA-scope release suffices.
  __device__ __forceinline__ void consumer_release_in(const PipeState<STAGES>& st, uint32_t rank) const {
    ptx::mbarrier_arrive_remote(ptx::mapa_shared(empty(st.stage), rank));
  }
};

}  // namespace tcgemm::sched
#endif  // __CUDACC__
