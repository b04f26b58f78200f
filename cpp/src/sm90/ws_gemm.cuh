// Steps 3-5 of the Hopper ladder: warp specialization.
//   sm90.ws             one producer warpgroup issues the TMA loads, two
//                       consumer warpgroups issue wgmma; they meet only at
//                       the full/empty mbarrier ring (sched/pipeline.h), and
//                       setmaxnreg moves registers from the producer (40) to
//                       the consumers (232). 128x128x64 tile, 4 stages.
//   sm90.ws_persistent  + 128x256 tiles (each consumer m64n256k16: 128 fp32
//                       accumulators per thread) and a persistent grid, one
//                       CTA per SM walking tiles through the grouped raster
//                       (sched/persistent.h). Epilogue: registers -> 128B-
//                       swizzled shared memory -> TMA store, fire and forget;
//                       the producer is already loading the next tile, so the
//                       epilogue overlaps the next tile's mainloop loads.
//   sm90.ws_mcast       + clusters of 2 CTAs along M that share the B tile:
//                       each CTA loads half of it and TMA multicasts that half
//                       into both CTAs' shared memory (half the B traffic).
//   sm90.ws_mcast.2x2   + clusters of 2x2 CTAs: the pair down a tile column
//                       shares B as above, the pair along a tile row shares
//                       A the same way, so each CTA issues half of each
//                       operand's loads; a slot is released to the three
//                       CTAs that write into it (itself, its B peer, its A
//                       peer -- not the diagonal one).
//   sm90.ws_splitk      ws_persistent + split-K for shapes with too few tiles
//                       to fill the GPU (decode: M <= 128 against big
//                       weights): each work unit is one K slice of a tile; it
//                       writes fp32 partials and splitk_reduce sums the
//                       slices in a fixed order (bit-identical run to run)
//                       and applies the epilogue. M <= 64 takes a 64-row tile
//                       (one consumer warpgroup): half the wasted MMAs.
//                       Where the tiles fill the GPU but their last wave
//                       does not, only the last tile rows are split (the
//                       split tail, sched/persistent.h): the rows above run
//                       whole, as ws_persistent's, and the tail's slices
//                       spread the last partial wave over every SM.
//   sm90.ws_splitk.n192, sm90.ws_mcast.n192
//                       ws_splitk's and ws_mcast's kernels with 128x192
//                       tiles (each consumer m64n192k16: 96 accumulators per
//                       thread; 4 stages of 40 KB): a third tile width, so
//                       that a shape whose 256-wide tiles quantize badly
//                       (a short last wave, N just past a multiple of 256)
//                       has a grid that does not. Chosen by auto's model.
//   sm90.ws_splitk.swap.dsmem
//                       ws_splitk.swap (ws_swap.cu: decode as D^T = W X^T,
//                       every tile an fp32 partial) with a tile's K slices
//                       in one cluster instead: rank 0 sums its peers'
//                       accumulators out of their shared memory and stores
//                       the tile (cluster_split_store) -- one kernel. NN
//                       too: swapped, its A is the K x N weight read
//                       MN-major (wgmma's transpose-A; ws_swap_dsmem_nn.cu).
//   sm90.ws_splitk.dsmem
//                       the same cluster split without the swap: 128x128
//                       tiles (64x256 for M <= 64), any layout; rank 0
//                       stores the summed tile as any tile is stored.
//   sm90.ws_pingpong    ws_persistent with the two consumer warpgroups on
//                       alternate tiles instead of halves of one tile: each
//                       owns a whole 128x128 tile (two m64n128k16 per k16
//                       step, the same 128 accumulators per thread), so while
//                       one runs its epilogue the other's wgmmas keep the
//                       tensor cores busy. The slots of a tile are read by
//                       one warpgroup; the other steps its pipeline state
//                       past them (PipeState::advanced) without waiting --
//                       but may not wait on its own tile's slots before the
//                       other has seen every fill of the tile before: a
//                       parity wait only tells the next phase of a barrier
//                       from the one before it, and a state stepped past
//                       phases that have not happened yet would read a
//                       stale slot. So the mainloops take turns (two named
//                       barriers, as CUTLASS's ping-pong orders its math
//                       warpgroups); the epilogues are free to overlap.
// Batches are a dimension of the work-unit space (sched/persistent.h) and
// the batch coordinate of the 3-D tensor maps.
// The consumer keeps one wgmma group in flight: after issuing K slice kt it
// waits for slice kt-1 and frees that slot, so the tensor cores never wait
// for the release. Edges: TMA zero fill, clipped stores (common.cuh).
#pragma once
#include "ptx/cluster.h"
#include "ptx/warpgroup.h"
#include "sched/persistent.h"
#include "sched/pipeline.h"
#include "sm90/common.cuh"
#include "core/workspace.h"
#include "sm90/splitk_reduce.cuh"

#include <algorithm>
#include <string>

namespace tcgemm::sm90 {

template <int kBN, int kStages, bool kPersistent, int kClusterM, int kGroup = 8, bool kTmaStore = false,
          int kConsumers = 2, bool kSplitK = false, bool kPingPong = false, int kClusterN = 1, bool kSwapAB = false,
          bool kClusterSplit = false>
struct WsConfig {
  static constexpr int CONSUMERS = kConsumers;  // warpgroups
  // Cooperative: consumer cw computes rows cw*64 .. cw*64+63 of every tile.
  // Ping-pong: each consumer computes whole tiles of M_BLOCKS m64 blocks.
  static constexpr bool PINGPONG = kPingPong;
  static constexpr int M_BLOCKS = PINGPONG ? 2 : 1;  // m64 row blocks per consumer
  static constexpr int BM = PINGPONG ? 64 * M_BLOCKS : 64 * CONSUMERS, BN = kBN, STAGES = kStages;
  static constexpr int CLUSTER = kClusterM;    // CTAs along M: they share (multicast) the B tile
  static constexpr int CLUSTER_N = kClusterN;  // CTAs along N: they share (multicast) the A tile
  static constexpr int CTAS = CLUSTER * CLUSTER_N;
  static constexpr bool PERSISTENT = kPersistent;
  static constexpr bool SPLIT_K = kSplitK;
  // Swap A and B (D^T = B^T A^T): the launch hands the kernel the weight as
  // its A and the few rows of x as its B, and every tile goes out as an fp32
  // partial that splitk_reduce writes back transposed.
  static constexpr bool SWAP_AB = kSwapAB;
  // The K slices of a tile in one cluster (its size, 1-8, chosen per launch):
  // rank r computes slice r, and rank 0 sums the others' fp32 accumulators
  // out of their shared memory (distributed shared memory, PTX ISA:
  // ld.shared::cluster) in rank order and stores the tile itself -- no
  // partials in global memory, no second kernel, no workspace.
  static constexpr bool CLUSTER_SPLIT = kClusterSplit;
  // Arrivals a slot's empty barrier counts: every consumer warp of every CTA
  // this CTA's producer writes into (itself, its CLUSTER - 1 B peers along
  // M, its CLUSTER_N - 1 A peers along N).
  static constexpr int READERS = (PINGPONG ? 4 : CONSUMERS * 4) * (CLUSTER + CLUSTER_N - 1);
  // Epilogue: registers -> swizzled shared memory -> TMA store (true), or
  // registers -> 16-byte global stores (false).
  static constexpr bool TMA_STORE = kTmaStore;
  static constexpr int C_BOX_BYTES = 64 * 64 * 2;  // one 64x64 box of C
  static constexpr int C_BYTES = TMA_STORE ? CONSUMERS * 2 * C_BOX_BYTES : 0;  // 2 boxes per consumer
  static constexpr int BIAS_BYTES = TMA_STORE ? CONSUMERS * 64 * 4 : 0;  // a quarter's fp32 bias per consumer
  // Cluster split: a peer's accumulators for rank 0 to read; with swap-AB
  // also (rank 0) the summed tile transposed back to D's rows, BM + 4 floats
  // apart (the pad spreads a warp's column writes over all 32 banks); then
  // its two barriers.
  static constexpr int RED_BYTES = !CLUSTER_SPLIT ? 0 : SWAP_AB ? BN * (BM + 4) * 4 : BM * BN * 4;
  static constexpr int RED_BARRIER_BYTES = CLUSTER_SPLIT ? 16 : 0;
  static constexpr int THREADS = (1 + CONSUMERS) * kWarpgroup;
  static constexpr int A_BYTES = BM * kRowBytes, B_BYTES = BN * kRowBytes;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static constexpr int SMEM =
      1024 + STAGES * STAGE_BYTES + C_BYTES + BIAS_BYTES + RED_BYTES + sched::Pipeline<STAGES>::kBarrierBytes +
      RED_BARRIER_BYTES;
  // 128 * 40 + 256 * 232 <= 65536 registers of the SM.
  static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;
  // setmaxnreg.inc may only raise a warp's count (PTX ISA: setmaxnreg); ptxas
  // keeps the launch count within the targets: 168 with 384 threads, 232
  // (seen in cuobjdump --dump-resource-usage) with 256.
  static constexpr int GROUP = kGroup;  // units (tile rows) per group of the grouped raster
  static_assert(SMEM <= 227 * 1024, "shared memory per block on sm_90 is 227 KB");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "clusters of 1 or 2 CTAs along M");
  static_assert(CLUSTER_N == 1 || (CLUSTER_N == 2 && BM % (64 * CLUSTER_N) == 0), "1 or 2 CTAs along N");
  // Multicast cta masks: bit r is cluster rank r = rm + CLUSTER * rn.
  static constexpr uint16_t b_mask(int rn) { return static_cast<uint16_t>(((1u << CLUSTER) - 1) << (CLUSTER * rn)); }
  static constexpr uint16_t a_mask(int rm) { return static_cast<uint16_t>(CLUSTER_N == 1 ? 1u << rm : (1u | 1u << CLUSTER) << rm); }
  static_assert(!SWAP_AB || (SPLIT_K && !TMA_STORE && CTAS == 1 && !PINGPONG),
                "swap-AB: a split-K kernel without clusters whose every tile leaves as an fp32 partial");
  static_assert(!CLUSTER_SPLIT || (SPLIT_K && CTAS == 1 && !PINGPONG && !TMA_STORE),
                "the cluster split: a split-K kernel whose clusters are its K slices, stored from registers");
  static_assert(!PINGPONG || (CONSUMERS == 2 && PERSISTENT && CTAS == 1 && TMA_STORE && !SPLIT_K),
                "ping-pong: two consumers of a persistent, cluster-less, TMA-store kernel");
};

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

// The end of a tile in the cluster split (WsConfig::CLUSTER_SPLIT), run by
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

template <class Cfg, DType DT, Layout L>
__global__ void __launch_bounds__(Cfg::THREADS, 1)
    ws_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
              const __grid_constant__ CUtensorMap map_c, const Params p) {
#if TCGEMM_SM90_DEVICE
  constexpr int BM = Cfg::BM, BN = Cfg::BN, STAGES = Cfg::STAGES, CLUSTER = Cfg::CLUSTER, CTAS = Cfg::CTAS;
  // L is the caller's layout. Swapped, an NN problem's A is the caller's
  // K x N weight (MN-major, wgmma's transpose-A) and its B is x (K-major).
  constexpr bool kMnMajorA = Cfg::SWAP_AB && L == Layout::NN;
  constexpr Layout LB = kMnMajorA ? Layout::TN : L;  // B's layout in shared memory
  static_assert(!kMnMajorA || Cfg::CLUSTER_N == 1, "an MN-major A is loaded whole (load_a), never multicast");
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = align_1024(ptx::smem_addr(smem));
  const uint32_t c_stage = base + STAGES * Cfg::STAGE_BYTES;  // TMA-store staging (C_BYTES)
  const uint32_t bias_slots = c_stage + Cfg::C_BYTES;         // BIAS_BYTES
  const uint32_t red = bias_slots + Cfg::BIAS_BYTES;          // RED_BYTES (cluster split)
  const sched::Pipeline<STAGES> pipe{red + Cfg::RED_BYTES};
  const uint32_t red_ready = red + Cfg::RED_BYTES + sched::Pipeline<STAGES>::kBarrierBytes, red_free = red_ready + 8;
  auto a_tile = [&](int s) { return base + s * Cfg::STAGE_BYTES; };
  auto b_tile = [&](int s) { return base + s * Cfg::STAGE_BYTES + Cfg::A_BYTES; };

  const int wg = threadIdx.x / kWarpgroup;
  const uint32_t rank = CTAS > 1 ? ptx::cluster_ctarank() : 0;
  const int rm = rank % CLUSTER, rn = rank / CLUSTER;  // this CTA's place in the cluster (along M, along N)
  // Cluster split: the cluster's size is the number of K slices, its rank this CTA's slice.
  const uint32_t slices = Cfg::CLUSTER_SPLIT ? ptx::cluster_nctarank() : 1;
  const uint32_t krank = Cfg::CLUSTER_SPLIT ? ptx::cluster_ctarank() : 0;
  const sched::PersistentSchedule sch{p.tiles_m, p.tiles_n, p.grouped ? Cfg::GROUP : 1, CLUSTER,
                                      p.batches, Cfg::CLUSTER_SPLIT ? 1 : p.splits,  p.dp_rows, Cfg::CLUSTER_N};
  // A worker is a CTA, or a cluster (whose CTAs have consecutive blockIdx.x).
  const int64_t cluster_ctas = Cfg::CLUSTER_SPLIT ? slices : CTAS;
  const int64_t worker = blockIdx.x / cluster_ctas, workers = gridDim.x / cluster_ctas;
  const int64_t units = sch.units();
  const int k_tiles = (p.K + BK - 1) / BK;
  auto k_range = [&](const sched::WorkUnit& w, int* begin, int* end) {
    if constexpr (Cfg::CLUSTER_SPLIT)
      sched::k_slice(k_tiles, static_cast<int>(krank), static_cast<int>(slices), begin, end);
    else
      sch.k_range(k_tiles, w.split, begin, end);
  };

  if (threadIdx.x == 0) {
    // full: the producer's arrive.expect_tx; empty: every consumer warp
    // that reads the slot, in every CTA whose slot the producer fills.
    pipe.init(1, Cfg::READERS);
    if constexpr (Cfg::CLUSTER_SPLIT) {
      constexpr uint32_t kConsumerThreads = Cfg::CONSUMERS * kWarpgroup;
      ptx::mbarrier_init(red_ready, slices > 1 ? (slices - 1) * kConsumerThreads : 1);  // every peer consumer thread
      ptx::mbarrier_init(red_free, kConsumerThreads);                                  // every rank-0 consumer thread
    }
    ptx::fence_mbarrier_init();
  }
  // The barriers are initialised before anyone (in the cluster) uses them.
  if constexpr (CTAS > 1 || Cfg::CLUSTER_SPLIT) ptx::cluster_sync();
  else __syncthreads();

  if (wg == 0) {
    // ---- producer warpgroup: one thread issues every TMA load.
    ptx::setmaxnreg_dec<Cfg::PRODUCER_REGS>();
    if (threadIdx.x == 0) {
      ptx::prefetch_tensormap(&map_a);
      ptx::prefetch_tensormap(&map_b);
      sched::PipeState<STAGES> st;
      for (int64_t u = sch.first(worker); u < units; u = sch.next(u, workers)) {
        const sched::WorkUnit w = sch.work(u, rank);
        const int m0 = w.tile.m * BM, n0 = w.tile.n * BN;
        int kt_begin, kt_end;
        k_range(w, &kt_begin, &kt_end);
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          // With multicast the peer's consumers also arrive on this barrier.
          pipe.producer_acquire(st);
          // This CTA's full barrier gets its own parts of A and B and its
          // peers' parts (multicast): the whole stage.
          pipe.producer_expect(st, Cfg::STAGE_BYTES);
          if constexpr (Cfg::CLUSTER_N == 1) {
            load_a<kMnMajorA, BM>(a_tile(st.stage), &map_a, pipe.full(st.stage), kt * BK, m0, w.batch * p.z_step_a);
          } else {  // rows [rn * BM / CLUSTER_N, ...) of the A tile, to the CTAs of this tile row
            constexpr int kRows = BM / Cfg::CLUSTER_N;
            ptx::tma_load_3d_multicast(a_tile(st.stage) + rn * kRows * kRowBytes, &map_a, pipe.full(st.stage), kt * BK,
                                       m0 + rn * kRows, w.batch * p.z_step_a, Cfg::a_mask(rm));
          }
          load_b<LB, BN, CLUSTER>(b_tile(st.stage), &map_b, pipe.full(st.stage), kt * BK, n0, w.batch * p.z_step_b,
                                 rm, Cfg::b_mask(rn));
          st.advance();
        }
      }
    }
    __syncwarp();  // reconverge warp 0 before the aligned cluster barrier below
  } else {
    // ---- consumer warpgroups: rows cw*64 .. cw*64+63 of every tile, or
    // (ping-pong) every other tile whole.
    ptx::setmaxnreg_inc<Cfg::CONSUMER_REGS>();
    constexpr int MB = Cfg::M_BLOCKS;
    const int cw = wg - 1;
    const int row0 = Cfg::PINGPONG ? 0 : cw * 64;  // this warpgroup's first row in the tile
    const bool leader = threadIdx.x % 32 == 0;
    // One arrival per consumer warp on the empty barrier of every CTA that
    // writes into this slot: this one, and with multicast its B peers (same
    // tile column) and A peers (same tile row).
    auto release = [&](const sched::PipeState<STAGES>& s) {
      if (!leader) return;
      if constexpr (CTAS == 1) {
        pipe.consumer_release(s);
      } else {
#pragma unroll
        for (int r = 0; r < CTAS; ++r)
          if (r % CLUSTER == rm || r / CLUSTER == rn) pipe.consumer_release_in(s, r);
      }
    };
    sched::PipeState<STAGES> st, prev;
    int64_t mine = 0;  // units this worker has walked: ping-pong gives unit i to consumer i % 2
    for (int64_t u = sch.first(worker); u < units; u = sch.next(u, workers), ++mine) {
      const sched::WorkUnit w = sch.work(u, rank);
      const sched::TileCoord t = w.tile;
      int kt_begin, kt_end;  // never empty: the host keeps splits <= k_tiles
      k_range(w, &kt_begin, &kt_end);
      // Ping-pong turns: named barrier kTurn + c is "consumer c may start its
      // mainloop" (bar.sync by c, bar.arrive by the other when its mainloop has
      // waited on every slot of its tile, only if a next unit exists).
      constexpr uint32_t kTurn = 3;  // 0: __syncthreads, 1-2: the epilogue barriers of the consumers
      const bool has_next = sch.next(u, workers) < units;
      if constexpr (Cfg::PINGPONG) {
        if ((mine & 1) != cw) {  // the other consumer's tile: its slots go by unread
          st = st.advanced(kt_end - kt_begin);
          continue;
        }
        if (mine > 0) ptx::named_barrier_sync(kTurn + cw, 2 * kWarpgroup);
      }
      // The tile's bias for a bias-only epilogue, loaded now so that its
      // latency hides behind the mainloop (a uniform branch per tile).
      BiasHeld<BN> bias = {};
      // The tile goes out as an fp32 partial: always with swap-AB (the
      // reduction transposes it), else when its K is split.
      const bool partial = !Cfg::CLUSTER_SPLIT && (Cfg::SWAP_AB || (Cfg::SPLIT_K && sch.partial(w)));
      if (Cfg::TMA_STORE && !partial && p.ep.bias && is_bias_act_form(p.ep))
        bias = load_bias_held<BN>(p.ep, static_cast<int64_t>(t.n) * BN, p.N);
      float acc[MB][BN / 2];
#pragma unroll
      for (auto& block : acc)
#pragma unroll
        for (auto& v : block) v = 0.f;
      for (int kt = kt_begin; kt < kt_end; ++kt) {
        pipe.consumer_wait(st);
        ptx::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)
#pragma unroll
          for (int mb = 0; mb < MB; ++mb)
            wgmma<DT, BN, LB, kMnMajorA>(acc[mb], desc_a<kMnMajorA>(a_tile(st.stage), row0 + mb * 64, kk),
                                         desc_b<LB>(b_tile(st.stage), kk));
        ptx::wgmma_commit_group();
        if (kt > kt_begin) {
          ptx::wgmma_wait_group<1>();  // slice kt-1 is done: free its slot
          release(prev);
        }
        prev = st;
        st.advance();
      }
      if constexpr (Cfg::PINGPONG)
        if (has_next) ptx::named_barrier_arrive(kTurn + (cw ^ 1), 2 * kWarpgroup);
      ptx::wgmma_wait_group<0>();
      release(prev);
      if constexpr (Cfg::CLUSTER_SPLIT) {
        cluster_split_store<DT, BM, BN, Cfg::SWAP_AB>(p, red, red_ready, red_free, slices, krank,
                                                      static_cast<uint32_t>(mine & 1), t, w.batch, acc[0]);
      } else {
#pragma unroll
        for (int mb = 0; mb < MB; ++mb) {
          const int m0 = t.m * BM + row0 + mb * 64;
          if (partial) {
            store_partials<BN>(p, m0, t.n * BN, w.batch, w.split, acc[mb]);
          } else if constexpr (Cfg::TMA_STORE) {
            store_accumulators_tma<DT, BN>(p, &map_c, c_stage + cw * 2 * Cfg::C_BOX_BYTES, bias_slots + cw * 64 * 4,
                                           bias, cw, m0, t.n * BN, w.batch, acc[mb]);
          } else {
            store_accumulators<DT, BN>(p, m0, t.n * BN, w.batch, acc[mb]);
          }
        }
      }
    }
    // The last stores must have read their staging buffer before the CTA's
    // shared memory goes away.
    if constexpr (Cfg::TMA_STORE)
      if (threadIdx.x % kWarpgroup == 0) ptx::bulk_wait_group<0>();
  }
  // No CTA may exit while its peer can still multicast into it, arrive on
  // its barriers or read its shared memory.
  if constexpr (CTAS > 1 || Cfg::CLUSTER_SPLIT) ptx::cluster_sync();
#endif
}

// Workers (CTAs, or clusters of `ctas` CTAs) that are resident at once, per
// device, cached. Call after the kernel's shared-memory opt-in (set_smem):
// the occupancy query sees the opt-in. A query that finds no room is an
// error, not cached.
template <class Cfg, class Kernel>
Status max_workers(Kernel kernel, int64_t* out, int ctas = Cfg::CTAS) {
  static int cache[64][sched::kMaxClusterSlices + 1] = {};
  if (ctas < 1 || ctas > sched::kMaxClusterSlices)
    return Status::Error(StatusCode::not_supported, "a cluster of " + std::to_string(ctas) + " CTAs");
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  int& n = cache[dev & 63][ctas];
  if (n == 0) {
    int sms = 0;
    TCGEMM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int found = sms;  // one 384-thread, ~200 KB CTA per SM
    if (ctas > 1) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = ctas, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
      cfg.gridDim = dim3(ctas * sms), cfg.blockDim = dim3(Cfg::THREADS);
      cfg.dynamicSmemBytes = Cfg::SMEM, cfg.attrs = attr, cfg.numAttrs = 1;
      TCGEMM_CUDA_TRY(cudaOccupancyMaxActiveClusters(&found, kernel, &cfg));
    }
    if (found < 1)
      return Status::Error(StatusCode::not_supported,
                           "no cluster of " + std::to_string(ctas) + " CTAs with " +
                               std::to_string(Cfg::SMEM) + " bytes of shared memory fits on this device");
    n = found;
  }
  *out = n;
  return Status::Ok();
}

// Split-K's slices, the tail they cover and the fp32 partials they need, for
// `most` resident workers: one slice and no bytes for kernels without
// split-K, or when the policy (sched::choose_split_plan) does not split.
struct SplitK {
  int splits = 1;
  int dp_rows = 0;         // unit rows computed whole (sched::PersistentSchedule::dp_rows)
  int partial_row0 = 0;    // the first output row of the split tail
  int64_t ld_partials = 0;  // floats per partial row: N rounded up to 4 (16-byte rows)
  size_t bytes = 0;
};

// With swap-AB `a` is the swapped problem (swap_ab): every tile is split the
// decode way (all or none: no tail, whose whole tiles would not go through
// the partials), and the partials are needed even with one slice.
template <class Cfg>
SplitK splitk_for(const GemmArgs& a, int64_t most) {
  SplitK s;
  if constexpr (Cfg::CLUSTER_SPLIT) {  // no partials in memory; the slices: cluster_split below
  } else if constexpr (Cfg::SWAP_AB) {
    const int64_t tiles = ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN) * a.batch;
    s.splits = sched::choose_splits(a.split_k, tiles, static_cast<int>(ceil_div(a.K, BK)), static_cast<int>(most));
    s.ld_partials = round_up(a.N, 4);
    s.bytes = sizeof(float) * static_cast<size_t>(a.batch) * s.splits * static_cast<size_t>(a.M) *
              static_cast<size_t>(s.ld_partials);
  } else if constexpr (Cfg::SPLIT_K) {
    const sched::PersistentSchedule tiles{static_cast<int>(ceil_div(a.M, Cfg::BM)),
                                          static_cast<int>(ceil_div(a.N, Cfg::BN)),
                                          1,
                                          Cfg::CLUSTER,
                                          static_cast<int>(a.batch),
                                          1,
                                          0,
                                          Cfg::CLUSTER_N};
    const sched::SplitPlan plan =
        sched::choose_split_plan(a.split_k, tiles, static_cast<int>(ceil_div(a.K, BK)), static_cast<int>(most));
    s.splits = plan.splits;
    if (s.splits > 1) {
      s.dp_rows = plan.dp_rows;
      s.partial_row0 = static_cast<int>(std::min<int64_t>(a.M, int64_t{plan.dp_rows} * Cfg::CLUSTER * Cfg::BM));
      s.ld_partials = round_up(a.N, 4);
      s.bytes = sizeof(float) * static_cast<size_t>(a.batch) * s.splits * static_cast<size_t>(a.M - s.partial_row0) *
                static_cast<size_t>(s.ld_partials);
    }
  }
  return s;
}

// The cluster split's slice count for these arguments
// (sched::choose_cluster_split), and how many clusters of that many CTAs are
// resident. The occupancy of each cluster size is queried once per device.
template <class Cfg, class Kernel>
Status cluster_split(Kernel kernel, const GemmArgs& a, int* slices, int64_t* clusters) {
  const int64_t tiles = ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN) * a.batch;
  const int k_tiles = static_cast<int>(ceil_div(a.K, BK));
  int64_t resident[sched::kMaxClusterSlices + 1] = {};
  for (int s = 1; s <= sched::kMaxClusterSlices; ++s)
    if (!max_workers<Cfg>(kernel, &resident[s], s).ok()) resident[s] = 0;  // no cluster of s fits: not a candidate
  *slices = sched::choose_cluster_split(a.split_k, tiles, k_tiles, resident);
  *clusters = resident[*slices];
  if (*clusters < 1)
    return Status::Error(StatusCode::not_supported,
                         "no cluster of " + std::to_string(*slices) + " CTAs fits on this device");
  return Status::Ok();
}

// The workspace a launch of this configuration needs (KernelInfo::workspace).
// The occupancy behind the split count is the same for every dtype and
// layout, so one instantiation answers for all.
template <class Cfg>
Status ws_workspace_bytes(const GemmArgs& a, size_t* bytes) {
  *bytes = 0;
  if constexpr (Cfg::SPLIT_K && !Cfg::CLUSTER_SPLIT) {  // the cluster split keeps its slices in shared memory
    const auto kernel = ws_kernel<Cfg, DType::f16, Layout::TN>;
    TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
    int64_t most = 0;
    TCGEMM_TRY((max_workers<Cfg>(kernel, &most)));
    *bytes = splitk_for<Cfg>(Cfg::SWAP_AB ? swap_ab(a) : a, most).bytes;
  }
  return Status::Ok();
}

template <class Cfg, DType DT, Layout L>
Status launch_ws(const GemmArgs& orig) {
  const auto kernel = ws_kernel<Cfg, DT, L>;
  // Everything up to the reduction sees the problem the kernel computes:
  // with swap-AB, D^T = B^T A^T (M and N, A and B exchanged).
  const GemmArgs a = Cfg::SWAP_AB ? swap_ab(orig) : orig;
  if constexpr (Cfg::SWAP_AB && !Cfg::CLUSTER_SPLIT) TCGEMM_TRY(transposed_reduce_fits(orig.M, orig.batch));
  CUtensorMap map_a, map_b, map_c = {};
  // A's box: the rows one CTA loads (BM, or its share with A multicast).
  // Swapped, an NN problem's maps come from the caller's operands (its B
  // read MN-major as A, its A as B).
  if constexpr (Cfg::SWAP_AB && L == Layout::NN)
    TCGEMM_TRY((encode_swapped_nn_operands<Cfg::BM, Cfg::BN>(orig, &map_a, &map_b)));
  else
    TCGEMM_TRY((encode_operands<Cfg::BM / Cfg::CLUSTER_N, Cfg::BN, Cfg::CLUSTER>(a, &map_a, &map_b)));
  if constexpr (Cfg::TMA_STORE) {
    tma::TensorMapParams pc;
    TCGEMM_TRY(tma::gemm_operand(a, tma::Operand::C, 64, 64, tma::Swizzle::b128, &pc));
    TCGEMM_TRY(tma::add_batch_dim(&pc, a.batch, a.batch_stride_c));
    TCGEMM_TRY(tma::encode(pc, &map_c));
  }
  TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
  Params p = make_params(a, Cfg::BM, Cfg::BN);
  int64_t most = 0;  // workers resident at once
  if constexpr (Cfg::PERSISTENT) TCGEMM_TRY((max_workers<Cfg>(kernel, &most)));
  const SplitK split = splitk_for<Cfg>(a, most);
  p.splits = split.splits, p.dp_rows = split.dp_rows, p.partial_row0 = split.partial_row0;
  // Cluster split: clusters of `splits` CTAs, each cluster a unit (tile).
  if constexpr (Cfg::CLUSTER_SPLIT) TCGEMM_TRY((cluster_split<Cfg>(kernel, a, &p.splits, &most)));
  const int ctas = Cfg::CLUSTER_SPLIT ? p.splits : Cfg::CTAS;
  const sched::PersistentSchedule sch{p.tiles_m, p.tiles_n, p.grouped ? Cfg::GROUP : 1, Cfg::CLUSTER, p.batches,
                                      Cfg::CLUSTER_SPLIT ? 1 : p.splits, p.dp_rows, Cfg::CLUSTER_N};
  const int64_t workers = Cfg::PERSISTENT ? sch.grid(most) : sch.units();  // not persistent: one per unit
  if (workers * ctas > 0x7fffffff)
    return Status::Error(StatusCode::not_supported, "too many output tiles for one grid");
  const unsigned grid = static_cast<unsigned>(workers * ctas);
  // Split-K's fp32 partials: the caller's workspace when given (the memory
  // of its allocator: torch's, cupy's), else stream-ordered scratch from
  // tcgemm's pool (core/workspace.h), freed on the same stream once the
  // reduction has read it. Neither synchronises; both can be captured.
  bool pooled = false;
  if (split.bytes) {
    p.ld_partials = split.ld_partials;
    if (a.workspace) {
      if (a.workspace_bytes < split.bytes)
        return Status::Error(StatusCode::invalid_argument, "split-K workspace of " + std::to_string(a.workspace_bytes) +
                                                               " bytes; this launch needs " + std::to_string(split.bytes));
      p.partials = static_cast<float*>(a.workspace);
    } else {
      void* ws = nullptr;
      TCGEMM_TRY(workspace_alloc(split.bytes, a.stream, &ws));
      p.partials = static_cast<float*>(ws);
      pooled = true;
    }
  }
  auto release_workspace = [&](Status s) {
    if (pooled) {
      const Status f = workspace_free(p.partials, a.stream);
      if (s.ok()) s = f;
    }
    return s;
  };
  if constexpr (Cfg::CTAS == 1 && !Cfg::CLUSTER_SPLIT) {
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, a.stream>>>(map_a, map_b, map_c, p);
  } else {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = ctas, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(grid), cfg.blockDim = dim3(Cfg::THREADS), cfg.dynamicSmemBytes = Cfg::SMEM;
    cfg.stream = a.stream, cfg.attrs = attr, cfg.numAttrs = 1;
    const Status s = cuda_status(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p), "cudaLaunchKernelEx");
    if (!s.ok()) return release_workspace(s);
  }
  Status s = check_launch("ws_kernel");
  if constexpr (!Cfg::CLUSTER_SPLIT) {  // (the cluster split builds no reduction kernels)
    if (s.ok() && (p.splits > 1 || Cfg::SWAP_AB)) {
      const ReduceParams r{p.partials,       p.ld_partials,   p.splits,   p.batches,
                           static_cast<int>(orig.M), static_cast<int>(orig.N), p.partial_row0, p.C,
                           orig.ldc,         p.stride_c,      p.ep,       Cfg::SWAP_AB};
      s = launch_splitk_reduce<DT>(r, a.stream);
    }
  }
  return release_workspace(s);
}

// One layout's kernels (both element types): a translation unit that
// calls this for one layout builds only that layout's instantiations.
template <class Cfg, Layout L>
Status launch_ws_layout(const GemmArgs& a) {
  if (a.accum != Accum::f32)
    return Status::Error(StatusCode::not_supported, "the sm90 kernels accumulate in f32 only");
  if (a.layout != L) return Status::Error(StatusCode::not_supported, "these kernels were built for the other layout");
  if (a.dtype == DType::f16) return launch_ws<Cfg, DType::f16, L>(a);
  return launch_ws<Cfg, DType::bf16, L>(a);
}

// Both layouts. The swap's configurations are launched one layout at a time
// (swap.cuh), so that each translation unit builds only its own.
template <class Cfg>
Status launch_ws_variant(const GemmArgs& a) {
  static_assert(!Cfg::SWAP_AB, "swap-AB configurations: launch_ws_layout, per layout (swap.cuh)");
  return a.layout == Layout::TN ? launch_ws_layout<Cfg, Layout::TN>(a) : launch_ws_layout<Cfg, Layout::NN>(a);
}

}  // namespace tcgemm::sm90
