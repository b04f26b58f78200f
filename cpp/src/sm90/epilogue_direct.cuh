// Epilogue part: registers -> clipped 16-byte global stores of C, through
// the caller's epilogue (core/epilogue.cuh). Every kernel of the family that
// stores from registers ends here (Store::direct; the cluster split's rank 0).
#pragma once
#include "sm90/common.cuh"

namespace tcgemm::sm90 {

// v[i] for a run-time i, as selects (indexing a register array with a
// run-time value would move it to local memory).
__device__ __forceinline__ uint32_t select4(const uint32_t (&v)[4], int i) {
  return i == 0 ? v[0] : i == 1 ? v[1] : i == 2 ? v[2] : v[3];
}

// fp32 output: a lane's pairs are 8 bytes each, so it stores them as they
// lie (a quad writes 32 contiguous bytes of a row per n8 block), no shuffle.
template <int BN>
__device__ __forceinline__ void store_accumulators_f32(const Params& p, int row0, int col0, int batch,
                                                       const float (&acc)[BN / 2]) {
  float* C = static_cast<float*>(p.C) + batch * p.stride_c;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int quad = lane >> 2, t = lane & 3;
  with_epilogue(p.ep, [&](auto plain) {
    constexpr bool kPlain = decltype(plain)::value;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int gm = row0 + warp * 16 + quad + 8 * h;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int gn = col0 + 8 * j + 2 * t;
        const float2 v = epilogue_apply_f32<kPlain>(p.ep, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1], gm, gn, p.M,
                                                    p.N, batch);
        if (gm < p.M && gn < p.N) {
          float* dst = C + static_cast<int64_t>(gm) * p.ldc + gn;
          if (gn + 1 < p.N) *reinterpret_cast<float2*>(dst) = v;  // gn even, ldc a multiple of 4: 8-byte aligned
          else dst[0] = v.x;
        }
      }
    }
  });
}

// Epilogue: a warpgroup's m64nBN fp32 accumulators -> rows [row0, row0+64),
// columns [col0, col0+BN) of C, rounded to T, never written past M x N.
// A lane holds 2 adjacent columns of each n8 block (rows lane/4 and
// lane/4 + 8 of its warp's 16); the 4 lanes of a quad together hold 8
// adjacent columns. For every 4 blocks (32 columns) four shuffle rounds
// rotate the quad's values so that lane t gets all 8 columns of block t:
// then each lane writes one 16-byte vector and a warp's store covers 8 rows x
// 64 contiguous bytes.
template <DType DT, int BN>
__device__ __forceinline__ void store_accumulators_b16(const Params& p, int row0, int col0, int batch,
                                                       const float (&acc)[BN / 2]) {
  using T = typename Element<DT>::T;
  T* C = static_cast<T*>(p.C) + batch * p.stride_c;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int quad = lane >> 2, t = lane & 3;
  with_epilogue(p.ep, [&](auto plain) {
    constexpr bool kPlain = decltype(plain)::value;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int gm = row0 + warp * 16 + quad + 8 * h;
#pragma unroll
      for (int g = 0; g < BN / 32; ++g) {
        uint32_t packed[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
          packed[j] = epilogue_apply<DT, kPlain>(p.ep, acc[(4 * g + j) * 4 + 2 * h], acc[(4 * g + j) * 4 + 2 * h + 1],
                                                 gm, col0 + 32 * g + 8 * j + 2 * t, p.M, p.N, batch);
        uint32_t got[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          // Round r: lane t reads quad lane (t + r) % 4, which sends its
          // columns of block (its t - r) % 4, i.e. the reader's t.
          const uint32_t send = select4(packed, (t - r) & 3);
          got[r] = __shfl_sync(0xffffffffu, send, (quad << 2) | ((t + r) & 3));
        }
        uint32_t out[4];  // got[r] holds columns 2s, 2s+1 with s = (t + r) % 4
#pragma unroll
        for (int s = 0; s < 4; ++s) out[s] = select4(got, (s - t) & 3);
        const int gn = col0 + 32 * g + 8 * t;
        if (gm < p.M && gn < p.N) {
          T* dst = C + static_cast<int64_t>(gm) * p.ldc + gn;
          if (gn + 8 <= p.N) {
            *reinterpret_cast<uint4*>(dst) = make_uint4(out[0], out[1], out[2], out[3]);
          } else {
#pragma unroll
            for (int c = 0; c < 8; ++c) {
              const uint32_t pair = out[c / 2];
              const uint16_t bits = static_cast<uint16_t>(c % 2 ? pair >> 16 : pair & 0xffffu);
              if (c < p.N - gn) reinterpret_cast<uint16_t*>(dst)[c] = bits;
            }
          }
        }
      }
    }
  });
}

// C of type DT (fp32 only from the FP8 kernels).
template <DType DT, int BN>
__device__ __forceinline__ void store_accumulators(const Params& p, int row0, int col0, int batch,
                                                   const float (&acc)[BN / 2]) {
  if constexpr (DT == DType::f32) store_accumulators_f32<BN>(p, row0, col0, batch, acc);
  else store_accumulators_b16<DT, BN>(p, row0, col0, batch, acc);
}

}  // namespace tcgemm::sm90
