// Steps 1-2 of the Hopper ladder: TMA brings the tiles into shared memory,
// wgmma multiplies them straight from there (no ldmatrix, no registers for
// the operands).
//   sm90.tma_wgmma          one stage: load, wait, multiply, repeat -- the
//                           copy engine and the tensor cores take turns
//   sm90.tma_wgmma_pipe.s4  + a ring of 4 stages: the loads of the next three
//                           K slices are in flight while one is multiplied
// 128x128x64 tile, 2 warpgroups of 64x128 (m64n128k16 wgmma), 128-byte
// swizzled operands (common.cuh); thread 0 issues the TMA loads and each
// slot's full mbarrier says when they landed. Edges: TMA zero-fills what lies
// outside A and B (partial K slices included), the epilogue clips its stores.
// Batches: blockIdx.y, the TMA batch coordinate (3-D maps, common.cuh).
#pragma once
#include "sched/pipeline.h"
#include "sm90/common.cuh"
#include "sm90/epilogue_direct.cuh"

namespace tcgemm::sm90 {

template <int kStages>
struct TmaWgmmaConfig {
  static constexpr int BM = 128, BN = 128, STAGES = kStages;
  static constexpr int THREADS = 2 * kWarpgroup;
  static constexpr int A_BYTES = BM * kRowBytes, B_BYTES = BN * kRowBytes;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static constexpr int SMEM = 1024 + STAGES * STAGE_BYTES + STAGES * 8;  // 1 KB: alignment slack
  static constexpr int GROUP = 8;  // tile rows per group of the grouped raster
  // One stage (33 KB) leaves room for a second block per SM, whose loads
  // overlap this one's wgmma: that is the only overlap step 1 has. Hold the
  // registers to two blocks' worth (<= 128; the epilogue alone pushed them to
  // 151 and halved step 1's speed on the H200).
  static constexpr int MIN_BLOCKS = STAGES == 1 ? 2 : 1;
};

template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    tma_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const Params p) {
#if TCGEMM_SM90_DEVICE
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES;
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = align_1024(ptx::smem_addr(smem));
  const uint32_t bars = base + STAGES * Cfg::STAGE_BYTES;
  auto a_tile = [&](int s) { return base + s * Cfg::STAGE_BYTES; };
  auto b_tile = [&](int s) { return base + s * Cfg::STAGE_BYTES + Cfg::A_BYTES; };
  auto full = [&](int s) { return bars + 8u * s; };

  const sched::TileCoord tile = sched::raster(blockIdx.x, p.tiles_m, p.tiles_n, p.grouped, Cfg::GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int batch = blockIdx.y + p.batch0;
  const int wg = threadIdx.x / kWarpgroup;  // rows wg*64 .. wg*64+63 of the tile
  const int k_tiles = (p.K + BK - 1) / BK;

  if (threadIdx.x == 0) {
    ptx::prefetch_tensormap(&map_a);
    ptx::prefetch_tensormap(&map_b);
    for (int s = 0; s < STAGES; ++s) ptx::mbarrier_init(full(s), 1);
    ptx::fence_mbarrier_init();
  }
  __syncthreads();

  // Thread 0: K slice kt into slot s. The one arrival announces the bytes of
  // every box (zero-filled parts included); the phase completes when they land.
  auto load = [&](int s, int kt) {
    ptx::mbarrier_arrive_expect_tx(full(s), Cfg::STAGE_BYTES);
    ptx::tma_load_3d(a_tile(s), &map_a, full(s), kt * BK, m0, batch * p.z_step_a);
    load_b<L, BN, 1>(b_tile(s), &map_b, full(s), kt * BK, n0, batch * p.z_step_b, 0, 0);
  };
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES && s < k_tiles; ++s) load(s, s);

  float acc[BN / 2];
#pragma unroll
  for (auto& v : acc) v = 0.f;
  sched::PipeState<STAGES> st;
  for (int kt = 0; kt < k_tiles; ++kt) {
    ptx::mbarrier_wait_parity(full(st.stage), st.phase);
    ptx::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk)
      wgmma<DT, BN, L>(acc, desc_k_major(a_tile(st.stage), wg * 64, kk), desc_b<L>(b_tile(st.stage), kk));
    ptx::wgmma_commit_group();
    ptx::wgmma_wait_group<0>();
    // Both warpgroups are done reading the slot: refill it.
    __syncthreads();
    if (threadIdx.x == 0 && kt + STAGES < k_tiles) load(st.stage, kt + STAGES);
    st.advance();
  }
  store_accumulators<DT, BN>(p, m0 + wg * 64, n0, batch, acc);
#endif
}

template <class Cfg, DType DT, Layout L>
Status launch_tma_wgmma(const GemmArgs& a) {
  const auto kernel = tma_wgmma_kernel<Cfg, DT, L>;
  CUtensorMap map_a, map_b;
  TCGEMM_TRY((encode_operands<Cfg::BM, Cfg::BN, 1>(a, &map_a, &map_b)));
  TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
  Params p = make_params(a, Cfg::BM, Cfg::BN);
  const int64_t blocks = static_cast<int64_t>(p.tiles_m) * p.tiles_n;
  if (blocks > 0x7fffffff) return Status::Error(StatusCode::not_supported, "too many output tiles for one grid");
  // gridDim.y is at most 65535: larger batches take one launch per 65535.
  for (p.batch0 = 0; p.batch0 < p.batches; p.batch0 += 65535) {
    const unsigned batches = static_cast<unsigned>(p.batches - p.batch0 < 65535 ? p.batches - p.batch0 : 65535);
    kernel<<<dim3(static_cast<unsigned>(blocks), batches), Cfg::THREADS, Cfg::SMEM, a.stream>>>(map_a, map_b, p);
    TCGEMM_TRY(check_launch("tma_wgmma_kernel"));
  }
  return Status::Ok();
}

// The dtype / layout combinations one registry entry serves (fp32 accumulation).
template <class Cfg>
Status launch_tma_wgmma_variant(const GemmArgs& a) {
  if (a.accum != Accum::f32)
    return Status::Error(StatusCode::not_supported, "the sm90 kernels accumulate in f32 only");
  const bool tn = a.layout == Layout::TN;
  if (a.dtype == DType::f16)
    return tn ? launch_tma_wgmma<Cfg, DType::f16, Layout::TN>(a) : launch_tma_wgmma<Cfg, DType::f16, Layout::NN>(a);
  return tn ? launch_tma_wgmma<Cfg, DType::bf16, Layout::TN>(a) : launch_tma_wgmma<Cfg, DType::bf16, Layout::NN>(a);
}

}  // namespace tcgemm::sm90
