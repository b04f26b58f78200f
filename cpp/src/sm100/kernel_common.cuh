// Pieces every Blackwell kernel of the ladder shares, so that each step's
// file shows only its own idea:
//   OperandTile  a TMA load style + the matching shared-memory descriptors
//   mma_slice    the tcgen05.mma K steps of one shared-memory K slice
//   epilogue     TMEM -> registers (tcgen05.ld 32x32b) -> clipped 16-byte stores
//                (epilogue_store), or -> swizzled shared staging -> TMA store
//                (epilogue_store_tma, v8)
//   host side    tensor maps, the launch geometry, the smem opt-in
// Device code is compiled only in the sm_100a pass (TCGEMM_SM100_DEVICE);
// other passes see empty kernel bodies.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "core/element.cuh"
#include "core/epilogue.cuh"
#include "core/launch_check.h"
#include "ptx/cluster.h"
#include "ptx/common.h"
#include "ptx/mbarrier.h"
#include "ptx/tcgen05.h"
#include "ptx/tma.h"
#include "ptx/warpgroup.h"
#include "sched/raster.h"
#include "sm100/descriptors.h"
#include "sm100/operands.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"
#include "tma/tensor_map.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM100_ALL)
#define TCGEMM_SM100_DEVICE 1
#else
#define TCGEMM_SM100_DEVICE 0
#endif

namespace tcgemm::sm100 {

constexpr int BM = 128;  // rows of C per CTA: the 128 TMEM lanes

// Scalars every kernel takes besides its tensor maps.
struct Params {
  void* C;
  int64_t ldc;
  int M, N, K;
  uint32_t idesc;  // instruction descriptor (descriptors.h), made on the host
  int tiles_m, tiles_n;
  int group;       // grouped-raster group (1: row-major)
  bool bf16;
  Epilogue ep;     // fused epilogue (core/epilogue.cuh), applied as the accumulators are packed
};

// ---------------------------------------------------------------------------
// One operand's K slice in shared memory: ROWS (M or N) x BK elements, loaded
// in style LOAD, described to tcgen05.mma as major-ness MAJ. The layouts are
// the ones descriptors.h documents (tile_lbo_sbo); the maps come from
// operands.h (operand_maps).
// ---------------------------------------------------------------------------
template <Load LOAD, Major MAJ, int ROWS, int BK>
struct OperandTile {
  static constexpr int kChunk = load_chunk(LOAD);  // elements per shared-memory column
  static constexpr bool k3d = load_is_3d(LOAD);
  static constexpr Swizzle kSwizzle = load_is_swizzled(LOAD) ? Swizzle::b128 : Swizzle::none;
  static constexpr uint32_t kBytes = ROWS * BK * 2;
  static_assert(BK % kChunk == 0 && BK % 16 == 0, "a K slice is whole columns and whole k16 MMA steps");
  static_assert(ROWS % kChunk == 0 || MAJ == Major::K, "an MN-major tile is whole columns");
  static_assert(ROWS <= 256 && BK <= 256, "a TMA box dimension is at most 256");

  // Issue the loads of the slice whose MN origin is mn0 and K origin k0 into
  // dst; they complete_tx kBytes in all on `bar`. mn_extent / k_extent bound
  // the operand: a 3-D box is used only when it lies wholly inside.
  __device__ __forceinline__ static void load(uint32_t dst, const CUtensorMap* map2d, const CUtensorMap* map3d,
                                              uint32_t bar, int mn0, int k0, int mn_extent, int k_extent) {
#if TCGEMM_SM100_DEVICE
    if constexpr (MAJ == Major::K) {
      if (k3d && k0 + BK <= k_extent) {
        ptx::tma_load_3d(dst, map3d, bar, 0, mn0, k0 / kChunk);
      } else {
#pragma unroll
        for (int j = 0; j < BK / kChunk; ++j) ptx::tma_load_2d(dst + j * ROWS * kChunk * 2, map2d, bar, k0 + j * kChunk, mn0);
      }
    } else {
      if (k3d && mn0 + ROWS <= mn_extent) {
        ptx::tma_load_3d(dst, map3d, bar, 0, k0, mn0 / kChunk);
      } else {
#pragma unroll
        for (int j = 0; j < ROWS / kChunk; ++j) ptx::tma_load_2d(dst + j * BK * kChunk * 2, map2d, bar, mn0 + j * kChunk, k0);
      }
    }
#endif
  }

  // The same slice, 2-D boxes only, completing on `cluster_bar`, which may be
  // the peer CTA's barrier (a shared::cluster address): the 2-SM kernels.
  __device__ __forceinline__ static void load_pair(uint32_t dst, const CUtensorMap* map2d, uint32_t cluster_bar,
                                                   int mn0, int k0) {
#if TCGEMM_SM100_DEVICE
    static_assert(!k3d, "the CTA-pair loads are 2-D");
    if constexpr (MAJ == Major::K) {
#pragma unroll
      for (int j = 0; j < BK / kChunk; ++j)
        ptx::tma_load_2d_cta_pair(dst + j * ROWS * kChunk * 2, map2d, cluster_bar, k0 + j * kChunk, mn0);
    } else {
#pragma unroll
      for (int j = 0; j < ROWS / kChunk; ++j)
        ptx::tma_load_2d_cta_pair(dst + j * BK * kChunk * 2, map2d, cluster_bar, mn0 + j * kChunk, k0);
    }
#endif
  }

  // Shared memory descriptor of the kk-th k16 step of the tile at `tile`.
  __device__ __forceinline__ static uint64_t desc(uint32_t tile, int kk) {
    return operand_desc(tile, MAJ, kSwizzle, ROWS, BK, kk);
  }
};

// The BK/16 MMAs of one K slice: D (+)= A_slice * B_slice. The first step of
// a tile's first slice overwrites D (TMEM is not zeroed), all others add.
template <int G, class ATile, class BTile, int BK>
__device__ __forceinline__ void mma_slice(uint32_t d_tmem, uint32_t a_tile, uint32_t b_tile, uint32_t idesc,
                                          bool accumulate) {
#if TCGEMM_SM100_DEVICE
#pragma unroll
  for (int kk = 0; kk < BK / 16; ++kk)
    ptx::tcgen05_mma_f16<G>(d_tmem, ATile::desc(a_tile, kk), BTile::desc(b_tile, kk), idesc, accumulate || kk > 0);
#endif
}

// ---------------------------------------------------------------------------
// Epilogue: one warp moves its 32 rows of the tile's fp32 accumulator from
// TMEM to C. TMEM access is per warp quarter: warp w of a warpgroup may read
// lanes 32*(w%4) .. +31 only (PTX ISA "tcgen05 Access restrictions"), so
// `quarter` is warp % 4 and lane i of the warp owns row 32*quarter + i.
// Each thread loads 32 consecutive columns (32x32b.x32), converts them to
// 16-bit and writes them as four 16-byte stores; columns past N are skipped
// (per element at the edge), rows past M store nothing. All lanes execute
// the tcgen05.ld (.sync.aligned); the conditions around it are warp-uniform.
// ---------------------------------------------------------------------------
// The dtype is a run-time field in this family (one instantiation serves
// both). The output pair (row, col), (row, col + 1) through the epilogue.
__device__ __forceinline__ uint32_t pack2(const Params& p, float lo, float hi, int row, int col) {
  return p.bf16 ? epilogue_pair<DType::bf16>(p.ep, lo, hi, row, col, p.M, p.N, 0)
                : epilogue_pair<DType::f16>(p.ep, lo, hi, row, col, p.M, p.N, 0);
}

template <int BN>
__device__ __forceinline__ void epilogue_store(uint32_t tmem_acc, const Params& p, int m0, int n0, int quarter) {
#if TCGEMM_SM100_DEVICE
  const int lane = threadIdx.x % 32;
  const int row = m0 + quarter * 32 + lane;
  if (m0 + quarter * 32 >= p.M) return;  // the whole warp is past M
  uint16_t* C = static_cast<uint16_t*>(p.C);
#pragma unroll 1
  for (int c = 0; c < BN / 32; ++c) {
    const int col0 = n0 + c * 32;
    if (col0 >= p.N) break;
    uint32_t r[32];
    ptx::tcgen05_ld_32x32b_x32(tmem_addr(tmem_acc, quarter * 32, c * 32), r);
    ptx::tcgen05_wait_ld();
    if (row >= p.M) continue;
    uint16_t* dst = C + static_cast<int64_t>(row) * p.ldc + col0;
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      uint32_t v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        v[i] = pack2(p, __uint_as_float(r[g * 8 + 2 * i]), __uint_as_float(r[g * 8 + 2 * i + 1]), row,
                     col0 + g * 8 + 2 * i);
      const int left = p.N - (col0 + g * 8);
      if (left >= 8) {
        *reinterpret_cast<uint4*>(dst + g * 8) = make_uint4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e)  // constant e keeps v in registers
          if (e < left) dst[g * 8 + e] = static_cast<uint16_t>(e % 2 ? v[e / 2] >> 16 : v[e / 2] & 0xffffu);
      }
    }
  }
#endif
}

// ---------------------------------------------------------------------------
// Epilogue through TMA stores (v8): the 4 epilogue warps (128 threads, one
// TMEM lane quarter each; `quarter` as above) move a BM x BN tile of the
// accumulator to C in boxes of BM rows x 64 columns (kStoreBoxCols):
//   tcgen05.ld 32x32b.x32 twice (the thread's row, 64 columns) -> wait::ld
//   -> [issuer: bulk wait_group.read 1] -> named barrier (the staging buffer
//   is free) -> convert to 16-bit, st.shared.v4 x 8 into the 128B-swizzled
//   staging box (store_staging_offset, conflict-free) -> fence.proxy.async
//   -> named barrier (the box is complete) -> issuer: cp.async.bulk.tensor
//   store + commit_group.
// Two staging boxes alternate; `seq` (the issuer's count of committed
// stores, carried across tiles by every thread alike) picks box seq % 2, and
// wait_group.read 1 before rewriting it leaves in flight only the store of
// the other box. TMA writes only the box elements inside M x N: no masking.
// The conditions that skip work (a tile wholly past M -- the odd CTA of a
// pair at the M edge -- or a box wholly past N) are uniform over the 128
// threads, so every thread meets every barrier. The issuer must
// bulk_wait_group<0> before the CTA exits (its shared memory is the source).
// ---------------------------------------------------------------------------
constexpr uint32_t kStoreBoxBytes = BM * kStoreBoxCols * 2;  // 16 KB, a multiple of 1024
constexpr uint32_t kEpilogueBarrier = 1;                     // named barrier id (0 is __syncthreads)
constexpr uint32_t kEpilogueThreads = 128;

template <int BN>
__device__ __forceinline__ void epilogue_store_tma(uint32_t tmem_acc, const CUtensorMap* map_c, uint32_t staging,
                                                   uint32_t& seq, const Params& p, int m0, int n0, int quarter,
                                                   bool issuer) {
#if TCGEMM_SM100_DEVICE
  static_assert(BN % kStoreBoxCols == 0, "whole staging boxes");
  const int r = quarter * 32 + threadIdx.x % 32;  // this thread's row of the tile
  if (m0 >= p.M) return;
#pragma unroll 1
  for (int q = 0; q < BN / kStoreBoxCols; ++q) {
    const int col0 = n0 + q * kStoreBoxCols;
    if (col0 >= p.N) break;
    uint32_t lo[32], hi[32];
    ptx::tcgen05_ld_32x32b_x32(tmem_addr(tmem_acc, quarter * 32, q * kStoreBoxCols), lo);
    ptx::tcgen05_ld_32x32b_x32(tmem_addr(tmem_acc, quarter * 32, q * kStoreBoxCols + 32), hi);
    ptx::tcgen05_wait_ld();
    const uint32_t box = staging + (seq % 2u) * kStoreBoxBytes;
    if (issuer) ptx::bulk_wait_group_read<1>();  // the store that last read this box is done with it
    ptx::named_barrier_sync(kEpilogueBarrier, kEpilogueThreads);
#pragma unroll
    for (int j = 0; j < kStoreBoxCols / 8; ++j) {  // 16-byte chunk j: columns 8j .. 8j+7
      const uint32_t(&src)[32] = j < 4 ? lo : hi;
      uint32_t v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        v[i] = pack2(p, __uint_as_float(src[(j % 4) * 8 + 2 * i]), __uint_as_float(src[(j % 4) * 8 + 2 * i + 1]),
                     m0 + r, col0 + 8 * j + 2 * i);
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(box + store_staging_offset(r, 8 * j)),
                   "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
                   : "memory");
    }
    ptx::fence_proxy_async_shared();  // generic-proxy writes -> visible to the TMA store (async proxy)
    ptx::named_barrier_sync(kEpilogueBarrier, kEpilogueThreads);
    if (issuer) {
      ptx::tma_store_2d(map_c, box, col0, m0);
      ptx::bulk_commit_group();
    }
    ++seq;
  }
#endif
}

// Shared memory of the kernels starts on a 1024-byte boundary (the 128B
// swizzle atom; TMA and the descriptors' base offset 0 both need it). The
// dynamic window's start is not guaranteed to be that aligned: round up, and
// ask for the slack.
constexpr int kSmemAlign = 1024;
__device__ __forceinline__ uint32_t aligned_smem_base(const void* dynamic_smem) {
  return (ptx::smem_addr(dynamic_smem) + kSmemAlign - 1) & ~uint32_t(kSmemAlign - 1);
}

// ---------------------------------------------------------------------------
// Host side.
// ---------------------------------------------------------------------------
struct Maps {
  CUtensorMap a2, a3, b2, b3;
};

// Encode the operand maps of a kernel with tile BM x BN_LOAD (the B rows
// this CTA loads) x BK in style `load`.
inline Status make_maps(const GemmArgs& a, Load load, int bn_load, int bk, Maps* m) {
  OperandMaps am, bm;
  TCGEMM_TRY(operand_maps(a, tma::Operand::A, load, BM, bk, &am));
  TCGEMM_TRY(operand_maps(a, tma::Operand::B, load, bn_load, bk, &bm));
  TCGEMM_TRY(tma::encode(am.map2d, &m->a2));
  TCGEMM_TRY(tma::encode(am.map3d, &m->a3));
  TCGEMM_TRY(tma::encode(bm.map2d, &m->b2));
  TCGEMM_TRY(tma::encode(bm.map3d, &m->b3));
  return Status::Ok();
}

inline Params make_params(const GemmArgs& a, int mma_m, int bn, bool grouped_raster) {
  Params p;
  p.C = a.C;
  p.ldc = a.ldc;
  p.M = static_cast<int>(a.M);
  p.N = static_cast<int>(a.N);
  p.K = static_cast<int>(a.K);
  p.idesc = idesc_f16(a.dtype, mma_m, bn, Major::K, a.layout == Layout::TN ? Major::K : Major::MN);
  p.tiles_m = static_cast<int>(ceil_div(a.M, BM));
  p.tiles_n = static_cast<int>(ceil_div(a.N, bn));
  p.group = grouped_raster && a.grid_swizzle ? 8 : 1;
  p.bf16 = a.dtype == DType::bf16;
  p.ep = a.epilogue;
  return p;
}

template <class Kernel>
inline Status set_smem(Kernel kernel, int bytes) {
  return opt_in_smem(kernel, bytes);  // once per kernel and device (core/launch_check.h)
}

// Launch a kernel with clusters of `cluster_x` CTAs along x (cudaLaunchKernelEx
// with the cluster-dimension attribute).
template <class... KArgs, class... Args>
inline Status launch_cluster(void (*kernel)(KArgs...), unsigned grid_x, unsigned threads, int smem, int cluster_x,
                             cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid_x);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster_x);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  TCGEMM_CUDA_TRY(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  return Status::Ok();
}

}  // namespace tcgemm::sm100
