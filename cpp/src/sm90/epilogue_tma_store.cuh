// Epilogue part: registers -> 128B-swizzled shared memory -> TMA store
// (Store::tma), fire and forget: the producer is already loading the next
// tile, so the store overlaps the next tile's mainloop loads.
#pragma once
#include "ptx/tma.h"
#include "ptx/warpgroup.h"
#include "sm90/common.cuh"

#include <type_traits>

namespace tcgemm::sm90 {

// Epilogue through TMA stores: a consumer warpgroup's m64nBN accumulators
// go out in 64-column quarters. Each quarter is written into one of the
// warpgroup's two 64x64 staging boxes in the 128B-swizzled layout the C map
// names (16-byte chunk c of row r at chunk c ^ (r % 8): the 8 rows a warp
// writes at once hit 8 different chunks, so the 4-byte stores are
// conflict-free), then one thread stores the box with cp.async.bulk.tensor,
// which clips at the matrix edges. A box is reused two quarters later, after
// its store has finished reading it (bulk wait_group.read 1).
// With a bias and no C (EpiBiasAct) the quarter's 64 bias values go through
// the warpgroup's 256-byte bias slot: the thread that holds column c of the
// tile (BiasHeld, loaded before the mainloop) writes it there, and the
// barrier that orders the staging box orders the slot too; each thread then
// reads one fp32 pair per n8 block for both of its rows. The slot is written
// only after the quarter before has passed its second barrier, when every
// read of it is done.
template <int BN>
struct BiasHeld {
  float v[(BN + 127) / 128];  // columns t and t + 128 of the tile, thread t of the warpgroup
};

template <int BN>
__device__ __forceinline__ BiasHeld<BN> load_bias_held(const Epilogue& e, int64_t col0, int64_t N) {
  BiasHeld<BN> h;
  const int t = threadIdx.x % kWarpgroup;
#pragma unroll
  for (int r = 0; r < (BN + 127) / 128; ++r) h.v[r] = t + 128 * r < BN ? bias_or_zero(e, col0 + t + 128 * r, N) : 0.f;
  return h;
}

template <DType DT, int BN>
__device__ __forceinline__ void store_accumulators_tma(const Params& p, const CUtensorMap* map_c, uint32_t boxes,
                                                       uint32_t bias_slot, const BiasHeld<BN>& bias, int cw, int row0,
                                                       int col0, int batch, const float (&acc)[BN / 2]) {
  constexpr int kBoxBytes = 64 * 64 * 2;
  const int t = threadIdx.x % kWarpgroup, lane = t % 32, warp = t / 32;
  const bool issuer = t == 0;
  const uint32_t bar_id = 1 + cw;  // named barrier of this warpgroup (0 is __syncthreads)
  with_epilogue_kind(p.ep, [&](auto kind) {
    using Kind = decltype(kind);
#pragma unroll
    for (int q = 0; q < BN / 64; ++q) {
      const uint32_t box = boxes + (q % 2) * kBoxBytes;
      // EpiGeneral: the quarter's bias / source values first, all loads in
      // flight at once (core/epilogue.cuh: PairInputs); then the arithmetic.
      PairInputs in[8][2];
      if constexpr (std::is_same_v<Kind, EpiGeneral>) {
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            in[j][h] = epilogue_inputs<DT>(p.ep, row0 + warp * 16 + lane / 4 + 8 * h,
                                           col0 + (q * 8 + j) * 8 + 2 * (lane % 4), p.M, p.N, batch);
      }
      if constexpr (is_bias_act<Kind>)
        if (t / 64 == q % 2) ptx::st_shared_f32(bias_slot + (t % 64) * 4, bias.v[q / 2]);
      if (issuer) ptx::bulk_wait_group_read<1>();  // the store that last used this box is done reading it
      ptx::named_barrier_sync(bar_id, kWarpgroup);
      float bq[8][2] = {};  // this thread's column pair of each n8 block, read before any arithmetic
      if constexpr (is_bias_act<Kind>)
#pragma unroll
        for (int j = 0; j < 8; ++j) ptx::ld_shared_v2_f32(bias_slot + (j * 8 + 2 * (lane % 4)) * 4, &bq[j][0], &bq[j][1]);
#pragma unroll
      for (int j = 0; j < 8; ++j) {  // n8 blocks of this quarter
        const int blk = q * 8 + j;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = warp * 16 + lane / 4 + 8 * h;
          const int byte = (j * 8 + 2 * (lane % 4)) * 2;  // column byte offset in the 128-byte row
          const uint32_t addr = box + r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15));
          const float v0 = acc[blk * 4 + 2 * h], v1 = acc[blk * 4 + 2 * h + 1];
          uint32_t v;
          if constexpr (std::is_same_v<Kind, EpiPlain>) {
            v = Element<DT>::pack(v0, v1);
          } else if constexpr (is_bias_act<Kind>) {
            v = Element<DT>::pack(activate<Kind::act>(fmaf(p.ep.alpha, v0, bq[j][0])),
                                  activate<Kind::act>(fmaf(p.ep.alpha, v1, bq[j][1])));
          } else {
            v = epilogue_finish<DT>(p.ep, v0, v1, in[j][h]);
          }
          ptx::st_shared_b32(addr, v);
        }
      }
      ptx::fence_proxy_async_shared();  // generic-proxy writes -> visible to the TMA store
      ptx::named_barrier_sync(bar_id, kWarpgroup);
      if (issuer) {
        ptx::tma_store_3d(map_c, box, col0 + q * 64, row0, batch);
        ptx::bulk_commit_group();
      }
    }
  });
}

}  // namespace tcgemm::sm90
