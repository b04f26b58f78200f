// Epilogue part of the cluster split (Schedule::cluster_split): the K
// slices of a tile meet in distributed shared memory and rank 0 of the
// cluster stores the sum.
#pragma once
#include "ptx/cluster.h"
#include "ptx/mbarrier.h"
#include "ptx/warpgroup.h"
#include "sched/raster.h"
#include "sm90/common.cuh"
#include "sm90/epilogue_direct.cuh"

namespace tcgemm::sm90 {

// The end of a tile in the cluster split (Schedule::cluster_split), run by
// the consumer threads (BM / 64 warpgroups) of every CTA of the cluster; acc
// is this CTA's K slice of the BM x BN tile -- of D, or with swap-AB of D^T
// (rows: the weight's rows, D's columns).
// A peer (rank r > 0) writes its accumulators into its own buffer in
// fragment order -- thread ct's float4 q at (q * threads + ct) * 16, so a
// warp's 16-byte stores and the reads of them fill whole 512-byte rows -- and
// arrives on rank 0's `ready` barrier (release at cluster scope: its stores
// are visible to whoever acquires the phase). Rank 0 waits, adds rank 1's,
// rank 2's, ... float4s to its own (the same fragment positions in every
// CTA), in rank order whatever order they arrived in (bit-identical run to
// run), then frees the peers' buffers (their `free` barriers) for the next
// tile. Without swap-AB the sum goes out as any tile's does
// (store_accumulators). With it, through rank 0's buffer, transposed: D^T[r][c]
// written at column c's row of the buffer, then each thread reads an
// adjacent pair along a row of D and stores it through the epilogue.
template <DType DT, int BM, int BN, bool kSwapAB>
__device__ __forceinline__ void cluster_split_store(const Params& p, uint32_t red, uint32_t ready, uint32_t free_bar,
                                                    uint32_t slices, uint32_t krank, uint32_t phase,
                                                    const sched::TileCoord& t, int batch, float (&acc)[BN / 2]) {
  using T = typename Element<DT>::T;
  constexpr uint32_t kThreads = 2 * BM, kBar = 5;  // 128 threads per 64 rows; named barrier 5: no other user
  constexpr int kPitch = BM + 4;                   // floats per staged row of D
  const int ct = threadIdx.x - kWarpgroup;         // 0 .. kThreads - 1
  if (krank != 0) {
    ptx::mbarrier_wait_parity_cluster(free_bar, phase ^ 1u);  // rank 0 has read the last tile's (a fresh barrier: at once)
#pragma unroll
    for (int q = 0; q < BN / 8; ++q)
      ptx::st_shared_v4_f32(red + (q * kThreads + ct) * 16,
                            make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
    ptx::mbarrier_arrive_cluster(ptx::mapa_shared(ready, 0));
    return;
  }
  if (slices > 1) {
    ptx::mbarrier_wait_parity_cluster(ready, phase);
    for (uint32_t r = 1; r < slices; ++r)
#pragma unroll
      for (int q = 0; q < BN / 8; ++q) {
        const float4 v = ptx::ld_shared_cluster_v4_f32(ptx::mapa_shared(red + (q * kThreads + ct) * 16, r));
        acc[4 * q] += v.x, acc[4 * q + 1] += v.y, acc[4 * q + 2] += v.z, acc[4 * q + 3] += v.w;
      }
    for (uint32_t r = 1; r < slices; ++r) ptx::mbarrier_arrive_cluster(ptx::mapa_shared(free_bar, r));
  }
  if constexpr (!kSwapAB) {
    store_accumulators<DT, BN>(p, t.m * BM + (ct / kWarpgroup) * 64, t.n * BN, batch, acc);
  } else {
    // Stage D^T[r][c] at D's row c: rows r of a warp's lanes differ by 1 and
    // columns c by 2, so with a pitch of 4 mod 32 floats the 32 lanes of a
    // store hit 32 banks.
    const int lane = ct % 32, row = (ct / 32) * 16 + lane / 4;
    ptx::named_barrier_sync(kBar, kThreads);  // every read of the last tile's staging is done
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          ptx::st_shared_f32(red + ((8 * j + 2 * (lane % 4) + e) * kPitch + row + 8 * h) * 4, acc[4 * j + 2 * h + e]);
    ptx::named_barrier_sync(kBar, kThreads);
    // The swapped problem's M and N are D's N and M.
    const int m0 = t.n * BN, n0 = t.m * BM;
    for (int i = ct; i < BN * (BM / 2); i += kThreads) {
      const int m = i / (BM / 2), n = 2 * (i % (BM / 2));
      const int gm = m0 + m, gn = n0 + n;
      if (gm >= p.N || gn >= p.M) continue;
      float v0, v1;
      ptx::ld_shared_v2_f32(red + (m * kPitch + n) * 4, &v0, &v1);
      const uint32_t packed = epilogue_pair<DT>(p.ep, v0, v1, gm, gn, p.N, p.M, batch);
      T* dst = static_cast<T*>(p.C) + batch * p.stride_c + static_cast<int64_t>(gm) * p.ldc + gn;
      if (gn + 1 < p.M) *reinterpret_cast<uint32_t*>(dst) = packed;  // ldc and gn even: 4-byte aligned
      else reinterpret_cast<uint16_t*>(dst)[0] = static_cast<uint16_t>(packed & 0xffffu);
    }
  }
}

}  // namespace tcgemm::sm90
