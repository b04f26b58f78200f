// Epilogue part of stream-K (Schedule::stream_k, sched/stream_k.h): the
// partial tiles. A worker's first unit that ends inside its tile's K goes
// out as fp32 accumulators to the worker's workspace slot and is published
// on a flag; the unit that finishes the tile (it holds the last K tile)
// waits for each lower contributor's flag and adds its partial, in
// decreasing K, before the normal epilogue
// (epilogue_tma_store.cuh). The flags are zeroed on the stream before each
// launch (launch_ws.cuh), so a publication is only ever this launch's.
//
// Each consumer warpgroup publishes its own 64 rows (a flag per worker and
// warpgroup), so the two warpgroups never wait for each other. A slot holds
// the accumulators in fragment order, float4 j of consumer thread ct at
// j * kThreads + ct: every store and load of a warp is 512 contiguous
// bytes, and the finishing CTA's thread ct reads exactly the values its
// peer's thread ct wrote -- the same fragment, so no shuffles.
#pragma once
#include "ptx/flag.h"
#include "ptx/warpgroup.h"
#include "sm90/common.cuh"

namespace tcgemm::sm90 {

template <class Cfg>
struct StreamKFixup {
  static constexpr int BN = Cfg::BN;
  static constexpr int kThreads = Cfg::CONSUMERS * kWarpgroup;  // consumer threads of a CTA
  static constexpr int64_t kSlotFloats = static_cast<int64_t>(Cfg::BM) * Cfg::BN;
  // float4 loads of a peer's partial in flight per thread: 4 is the most
  // that ptxas fits beside the 128 accumulators without spilling (8 spills
  // 4 bytes, all 32 at once 16-20 bytes).
  static constexpr int kChunk = 4;

  const Params& p;

  __device__ __forceinline__ float4* slot(int64_t worker) const {
    return reinterpret_cast<float4*>(p.partials + worker * kSlotFloats);
  }
  __device__ __forceinline__ int* flag(int64_t worker, int cw) const { return p.sk_flags + worker * Cfg::CONSUMERS + cw; }

  // A non-finishing unit: this warpgroup's accumulators into the worker's
  // slot, then one release by the warpgroup's first thread once all 128
  // have stored (named barrier 1 + cw, the warpgroup's epilogue barrier).
  __device__ __forceinline__ void publish(int64_t worker, int cw, const float (&acc)[BN / 2]) const {
    const int ct = threadIdx.x - kWarpgroup;  // consumer thread: the producer warpgroup is warpgroup 0
    float4* s = slot(worker) + ct;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) s[j * kThreads] = make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
    ptx::named_barrier_sync(1 + cw, kWarpgroup);
    if (threadIdx.x % kWarpgroup == 0) ptx::red_release_gpu_add(flag(worker, cw), 1);
  }

  // The finishing unit (worker `last`): adds the partials of workers
  // last-1 down to first (the tile's lower contributors, in decreasing K) to
  // its own accumulators, one after another: the same order on every call,
  // so the same bits. The warpgroup's first thread acquires each flag; the
  // barrier passes the acquire on to the others. The loads bypass L1 (ld.global.cg): the slot
  // was written by another SM.
  __device__ __forceinline__ void add_peers(int64_t first, int64_t last, int cw, float (&acc)[BN / 2]) const {
    const int ct = threadIdx.x - kWarpgroup;
    for (int64_t v = last - 1; v >= first; --v) {
      if (threadIdx.x % kWarpgroup == 0) {
        const int* f = flag(v, cw);
        while (ptx::ld_acquire_gpu(f) == 0) __nanosleep(32);
      }
      __syncwarp();  // bar.sync is barrier.sync.aligned (PTX ISA): the warp reaches it converged
      ptx::named_barrier_sync(1 + cw, kWarpgroup);
      const float4* s = slot(v) + ct;
      // The source groups the loads by kChunk with a memory clobber between
      // groups; ptxas still issues about 20 LDG.128 of the peer's partial
      // before the first add (cuobjdump -sass ws_streamk.cu.o), which is what
      // hides the L2 latency here.
#pragma unroll
      for (int c = 0; c < BN / 8; c += kChunk) {
        float4 x[kChunk];
#pragma unroll
        for (int i = 0; i < kChunk; ++i) x[i] = __ldcg(s + (c + i) * kThreads);
#pragma unroll
        for (int i = 0; i < kChunk; ++i) {
          float* a = acc + 4 * (c + i);
          a[0] += x[i].x, a[1] += x[i].y, a[2] += x[i].z, a[3] += x[i].w;
        }
        asm volatile("" ::: "memory");
      }
    }
  }
};

}  // namespace tcgemm::sm90
