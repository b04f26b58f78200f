// Cluster Launch Control (sm_100a), the dynamic scheduler of step v7: the
// grid is launched with one CTA pair per work unit; a running pair, before
// computing a unit, asks the hardware to cancel the launch of a pair that has
// not started yet and takes over that pair's unit. Work flows to the SMs that
// are free -- persistent-kernel reuse without a static split of the units.
// PTX ISA: "Parallel Synchronization and Communication Instructions:
// clusterlaunchcontrol.try_cancel / clusterlaunchcontrol.query_cancel".
#pragma once
#include "ptx/cluster.h"
#include "ptx/common.h"
#include "ptx/mbarrier.h"
#include "ptx/tma.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"

namespace tcgemm::ptx {

// clusterlaunchcontrol.try_cancel ... .multicast::cluster::all: request the
// cancellation of a not-yet-launched cluster; the 16-byte response lands at
// `response` in every CTA of the cluster and completes 16 tx-bytes on the
// mbarrier at offset `bar` in each. One thread of the cluster issues it.
TCGEMM_DEVICE void clc_try_cancel_multicast(uint32_t response, uint32_t bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128"
      " [%0], [%1];\n" ::"r"(response),
      "r"(bar)
      : "memory");
}

// clusterlaunchcontrol.query_cancel on a response in shared memory: true and
// the canceled cluster's first CTA's x index, or false (no cluster was left
// to cancel: the grid is drained; no further request may be made).
TCGEMM_DEVICE bool clc_query_first_ctaid_x(uint32_t response, uint32_t* ctaid_x) {
  uint32_t ok, x;
  asm volatile(
      "{\n .reg .b128 r;\n .reg .pred p;\n .reg .b64 lo, hi;\n"
      " ld.shared.v2.b64 {lo, hi}, [%2];\n"
      " mov.b128 r, {lo, hi};\n"
      " mov.u32 %1, 0;\n"
      " clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n"
      " selp.u32 %0, 1, 0, p;\n"
      " @p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, r;\n}\n"
      : "=r"(ok), "=r"(x)
      : "r"(response)
      : "memory");
  *ctaid_x = x;
  return ok != 0;
}

}  // namespace tcgemm::ptx

namespace tcgemm::sm100 {

// The CLC work source of the persistent kernel (persistent_gemm.cuh). Each
// role of each CTA walks the same sequence of units: first its own pair's
// unit (blockIdx.x / 2), then the unit of every pair its cluster cancels.
// Responses travel through a ring of D slots:
//   clc_full[d]   (each CTA; 1 arrival + 16 bytes): the response is in slot d
//   clc_empty[d]  (even CTA; 12 arrivals: TMA, MMA and 4 epilogue warps of
//                  both CTAs, the odd CTA's via mapa): slot d may be reused
// The even CTA's TMA thread requests the next unit as it starts a unit, so
// the answer's latency hides behind that unit's loads.
struct ClcSchedule {
  static constexpr int D = 4;
  static constexpr uint32_t kConsumers = 2 * (1 + 1 + 4);
  static constexpr int kSmemBytes = D * 16 + 2 * D * 8;

  __device__ __forceinline__ ClcSchedule(uint32_t smem, const sched::PersistentSchedule&)
      : resp(smem), bars(smem + D * 16), leader(ptx::cluster_ctarank() == 0) {}
  __device__ __forceinline__ uint32_t full(int d) const { return bars + 8u * d; }
  __device__ __forceinline__ uint32_t empty(int d) const { return bars + 8u * (D + d); }
  __device__ __forceinline__ void init() const {
    for (int d = 0; d < D; ++d) {
      ptx::mbarrier_init(full(d), 1);
      ptx::mbarrier_init(empty(d), kConsumers);
    }
  }

  struct Role {
    const ClcSchedule* s;
    bool requester;  // the TMA thread: makes (even CTA) and announces (both) the requests
    bool warp_wide;  // a whole warp walks this role (the epilogue): lane 0 signals for it
    bool arrives;    // this thread signals clc_empty
    int64_t unit;
    sched::PipeState<D> st;

    __device__ __forceinline__ bool valid() const { return unit >= 0; }
    __device__ __forceinline__ void request() {
      const int d = st.stage;
      if (s->leader) {
        ptx::mbarrier_wait_parity_cluster(s->empty(d), st.phase ^ 1u);  // every reader of slot d is done
        ptx::clc_try_cancel_multicast(s->resp + 16u * d, s->full(d));
      }
      ptx::mbarrier_arrive_expect_tx(s->full(d), 16);  // each CTA announces its copy of the response
    }
    __device__ __forceinline__ void advance() {
      const int d = st.stage;
      ptx::mbarrier_wait_parity_cluster(s->full(d), st.phase);
      uint32_t x = 0;
      const bool got = ptx::clc_query_first_ctaid_x(s->resp + 16u * d, &x);
      ptx::fence_proxy_async_shared();  // our generic read before the next async write of the slot
      if (warp_wide) __syncwarp();      // (single-thread roles must not: their warp waits elsewhere)
      if (arrives) ptx::mbarrier_arrive_cluster(ptx::mapa_shared(s->empty(d), 0));
      st.advance();
      unit = got ? static_cast<int64_t>(x / 2) : -1;
      if (got && requester) request();
    }
  };

  // role 0: TMA thread (requester), 1: MMA thread, 2: epilogue warps.
  __device__ __forceinline__ Role role(int r) const {
    Role w{this, r == 0, r == 2, r != 2 || threadIdx.x % 32 == 0, static_cast<int64_t>(blockIdx.x / 2), {}};
    if (w.requester) w.request();
    return w;
  }

  uint32_t resp, bars;
  bool leader;
};

}  // namespace tcgemm::sm100
