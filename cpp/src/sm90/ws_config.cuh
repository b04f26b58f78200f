// The configuration of a warp-specialized Hopper kernel (ws_kernel.cuh): a
// struct with named fields, passed by value as the kernel's template
// argument (C++20 class-type non-type template parameter), so an entry reads
//   constexpr WsConfig kSplitKWide{.tile_n = 256, .stages = 4, .schedule = Schedule::split_k,
//                                  .store = Store::tma};
// and WsTraits<kSplitKWide> derives everything else (tile height, shared
// memory, barrier counts, multicast masks) and rejects the combinations no
// part is built for. Designated initializers follow the declaration order.
// The kernel and its launch take WsTraits<config>, a type (ws_kernel.cuh
// says why).
#pragma once
#include "sched/pipeline.h"
#include "sm90/common.cuh"

#include <cstdint>

namespace tcgemm::sm90 {

// What the consumer warpgroups split between them.
enum class Math {
  cooperative,  // consumer cw computes rows cw*64*m_blocks .. (cw+1)*64*m_blocks-1 of every tile
  ping_pong,    // each consumer computes alternate tiles whole (two m64 row blocks)
};

// How a finished tile leaves the consumers (epilogue_direct.cuh, epilogue_tma_store.cuh).
enum class Store {
  direct,  // registers -> 16-byte global stores
  tma,     // registers -> 128B-swizzled shared memory -> TMA store
};

// Which work units the CTAs walk (sched/persistent.h).
enum class Schedule {
  one_tile,       // one CTA per tile, no persistence
  data_parallel,  // a persistent grid walking whole tiles through the grouped raster
  split_k,        // persistent, tiles or only the last wave's tile rows split along K into fp32 partials
  cluster_split,  // persistent, a tile's K slices in one cluster, summed in distributed shared memory
  stream_k,       // persistent, the last waves' iterations shared evenly, partial tiles fixed up in the kernel
};

// Which operand is the kernel's A.
enum class Operands {
  as_given,  // A and B as the caller passes them
  swapped,   // D^T = B^T A^T: the weight is A, x's few rows are B (decode; swap.cuh)
};

// The operands' element types: 16-bit (fp16 or bf16: the launch's DT, which
// C has too), or an FP8 pair (A x B; C's type is then the launch's DT).
// torch._scaled_mm's pairs: e5m2 x e5m2 is not one.
enum class Fp8 { none, e4m3_e4m3, e4m3_e5m2, e5m2_e4m3 };

// Where FP8 dequantization scales are applied (tcgemm/types.h, Scales).
enum class Scaling {
  none,
  epilogue,  // tensor / row-wise: acc(r, c) * scale_a[r] * scale_b[c] before the fused epilogue
  block,     // 1x128 / 128x128 blocks: every 128-K slice's wgmma sum is scaled and added in fp32
};

// How an FP8 tile's sum over K is kept (docs/fp8.md, Promotion). Hopper's
// FP8 wgmma adds its products with fewer bits than fp32 (DeepSeek-V3 report,
// 3.3.2), so over a deep K its own accumulator drifts; block scales always
// promote (their factor changes every 128-K block).
enum class Promotion {
  none,        // wgmma's accumulator over the tile's whole K (Accum::fast, use_fast_accum=True)
  per_block,   // each 128-K block's wgmmas start a fresh sum, waited on, added into fp32 registers (Accum::f32)
  overlapped,  // per_block with two sums taking turns: a block's sum is added while the next one's wgmmas run
};

// Who brings a block-scale kernel's scales of a 128-K block to its consumers
// (docs/fp8.md, Promotion).
enum class BlockScaleLoads {
  consumers,   // each consumer thread loads its two rows' scales from global memory a block or two ahead
  scale_warp,  // a producer warp copies the tile's scales into the stage's slot (cp.async), under its full barrier
};

struct WsConfig {
  int tile_n = 128;  // BN; BM follows from consumers and math
  int stages = 4;    // slots of the load ring
  int consumers = 2;  // math warpgroups
  Math math = Math::cooperative;
  int cluster_m = 1;  // CTAs along M: they share (multicast) the B tile
  int cluster_n = 1;  // CTAs along N: they share (multicast) the A tile
  Schedule schedule = Schedule::data_parallel;
  int raster_group = 8;  // units (tile rows) per group of the grouped raster
  Store store = Store::direct;
  Operands operands = Operands::as_given;
  // The FP8 fields: last, their defaults meaning none, so a 16-bit
  // configuration never names them. (The mangled names carry every field,
  // so a new field renames every kernel; tests/sass/compare_sass.py keys
  // kernels by their named fields, not by those names.)
  Fp8 fp8 = Fp8::none;
  Scaling scaling = Scaling::none;
  Promotion promotion = Promotion::none;  // Scaling::block promotes whatever this says
  // m64 row blocks per cooperative consumer: 2 makes a consumer's rows 128
  // and the tile 256 x BN (cuBLAS's 256 x 128 tiles), its accumulators
  // 2 x BN / 2 registers. Ping-pong consumers own two whatever this says.
  // Last, so that the names of configurations without it read it as 1
  // (tests/sass/compare_sass.py).
  int m_blocks = 1;
  BlockScaleLoads block_scale_loads = BlockScaleLoads::consumers;  // Scaling::block only
};

// A configuration with another FP8 pair: the launch picks the pair of the
// arguments (launch_ws.cuh, launch_ws_fp8).
constexpr WsConfig with_fp8(WsConfig c, Fp8 f) {
  c.fp8 = f;
  return c;
}

template <WsConfig C>
struct WsTraits {
  static constexpr WsConfig config = C;
  static constexpr int CONSUMERS = C.consumers;  // warpgroups
  static constexpr bool PINGPONG = C.math == Math::ping_pong;
  static constexpr int M_BLOCKS = PINGPONG ? 2 : C.m_blocks;  // m64 row blocks per consumer
  static constexpr int BM = PINGPONG ? 64 * M_BLOCKS : 64 * M_BLOCKS * CONSUMERS, BN = C.tile_n, STAGES = C.stages;
  static constexpr int CLUSTER = C.cluster_m;
  static constexpr int CLUSTER_N = C.cluster_n;
  static constexpr int CTAS = CLUSTER * CLUSTER_N;
  static constexpr bool PERSISTENT = C.schedule != Schedule::one_tile;
  static constexpr bool SPLIT_K = C.schedule == Schedule::split_k || C.schedule == Schedule::cluster_split;
  // Stream-K (sched/stream_k.h, ws_streamk_kernel.cuh): a worker's first
  // unit may go out as an fp32 partial to its workspace slot, its last may
  // add the later contributors' partials before the epilogue.
  static constexpr bool STREAM_K = C.schedule == Schedule::stream_k;
  // Swap A and B (D^T = B^T A^T): the launch hands the kernel the weight as
  // its A and the few rows of x as its B, and every tile goes out as an fp32
  // partial that splitk_reduce writes back transposed.
  static constexpr bool SWAP_AB = C.operands == Operands::swapped;
  // The K slices of a tile in one cluster (its size, 1-8, chosen per launch):
  // rank r computes slice r, and rank 0 sums the others' fp32 accumulators
  // out of their shared memory (distributed shared memory, PTX ISA:
  // ld.shared::cluster) in rank order and stores the tile itself -- no
  // partials in global memory, no second kernel, no workspace.
  static constexpr bool CLUSTER_SPLIT = C.schedule == Schedule::cluster_split;
  // Arrivals a slot's empty barrier counts: every consumer warp of every CTA
  // this CTA's producer writes into (itself, its CLUSTER - 1 B peers along
  // M, its CLUSTER_N - 1 A peers along N).
  static constexpr int READERS = (PINGPONG ? 4 : CONSUMERS * 4) * (CLUSTER + CLUSTER_N - 1);
  static constexpr bool TMA_STORE = C.store == Store::tma;
  static constexpr int C_BOX_BYTES = 64 * 64 * 2;  // one 64x64 box of C
  static constexpr int C_BYTES = TMA_STORE ? CONSUMERS * 2 * C_BOX_BYTES : 0;  // 2 boxes per consumer
  static constexpr int BIAS_BYTES = TMA_STORE ? CONSUMERS * 64 * 4 : 0;  // a quarter's fp32 bias per consumer
  // Cluster split: a peer's accumulators for rank 0 to read; with swap-AB
  // also (rank 0) the summed tile transposed back to D's rows, BM + 4 floats
  // apart (the pad spreads a warp's column writes over all 32 banks); then
  // its two barriers.
  static constexpr int RED_BYTES = !CLUSTER_SPLIT ? 0 : SWAP_AB ? BN * (BM + 4) * 4 : BM * BN * 4;
  static constexpr int RED_BARRIER_BYTES = CLUSTER_SPLIT ? 16 : 0;
  // Block scales through the scale warp: a slot per stage beside the ring,
  // the tile's BM row scales of A, then its column block's scale of B,
  // padded to 16 bytes.
  static constexpr bool SCALE_WARP =
      C.scaling == Scaling::block && C.block_scale_loads == BlockScaleLoads::scale_warp;
  static constexpr int SCALE_SLOT_BYTES = SCALE_WARP ? BM * 4 + 16 : 0;
  static constexpr int SCALE_BYTES = STAGES * SCALE_SLOT_BYTES;
  static constexpr int THREADS = (1 + CONSUMERS) * kWarpgroup;
  static constexpr int A_BYTES = BM * kRowBytes, B_BYTES = BN * kRowBytes;
  static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  static constexpr int SMEM =
      1024 + STAGES * STAGE_BYTES + C_BYTES + BIAS_BYTES + RED_BYTES + SCALE_BYTES +
      sched::Pipeline<STAGES>::kBarrierBytes + RED_BARRIER_BYTES;
  // 128 * 40 + 256 * 232 <= 65536 registers of the SM; with three consumer
  // warpgroups 128 * 40 + 384 * 152 (setmaxnreg counts are multiples of 8).
  static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = CONSUMERS == 3 ? 152 : 232;
  // setmaxnreg.inc may only raise a warp's count (PTX ISA: setmaxnreg); ptxas
  // keeps the launch count within the targets: 168 with 384 threads, 232
  // (seen in cuobjdump --dump-resource-usage) with 256, 128 with 512.
  static constexpr int GROUP = C.raster_group;
  // FP8: a stage holds 128 k (128 bytes per row, one swizzle row, as 64 k of
  // a 16-bit type), so a block scale's 128-K block is exactly one stage.
  static constexpr bool FP8 = C.fp8 != Fp8::none;
  static constexpr DType A8 = C.fp8 == Fp8::e5m2_e4m3 ? DType::e5m2 : DType::e4m3;
  static constexpr DType B8 = C.fp8 == Fp8::e4m3_e5m2 ? DType::e5m2 : DType::e4m3;
  static constexpr int K_STAGE = FP8 ? 128 : BK;  // K elements per stage
  static constexpr bool EPILOGUE_SCALES = C.scaling == Scaling::epilogue;
  static constexpr bool BLOCK_SCALES = C.scaling == Scaling::block;
  static constexpr bool PROMOTED = BLOCK_SCALES || C.promotion != Promotion::none;
  static constexpr bool OVERLAPPED = C.promotion == Promotion::overlapped;
  static_assert(FP8 == (C.scaling != Scaling::none), "FP8 configurations say where their scales go; 16-bit ones have none");
  static_assert(!FP8 || ((!SPLIT_K || CLUSTER_SPLIT || (EPILOGUE_SCALES && CTAS == 1)) && !STREAM_K && CLUSTER_N == 1 &&
                         (BN == 128 || BN == 256 || (BN == 192 && CONSUMERS == 3) || (SWAP_AB && BN <= 128))),
                "FP8: whole tiles, the split tail (tensor / row-wise scales, no cluster) or the cluster split, "
                "clusters along M only, 128 or 256 wide (192 with three consumers: 192 x 192 tiles; the swap "
                "16-128)");
  // The FP8 split tail: each slice's partial is scaled before it is stored
  // (the scales are linear), and splitk_reduce writes 16-bit pairs -- the
  // TMA-store configuration, whose launch takes bf16 / fp16 output only.
  static_assert(!FP8 || !SPLIT_K || CLUSTER_SPLIT || TMA_STORE,
                "the FP8 split tail: the TMA-store epilogue (bf16 / fp16 output, as its reduction writes)");
  // Three consumer warpgroups (192-row tiles, one m64 block each): 152
  // registers a thread, room for n192's 96 accumulators, not for a fresh sum
  // beside them; the epilogue stores from registers (the TMA store's staging
  // and its named barriers are laid out for two).
  static_assert(CONSUMERS == 1 || CONSUMERS == 2 ||
                    (CONSUMERS == 3 && C.math == Math::cooperative && C.m_blocks == 1 && BN <= 192 && !TMA_STORE &&
                     !SPLIT_K && !STREAM_K && !SWAP_AB && C.promotion == Promotion::none &&
                     C.scaling != Scaling::block),
                "one or two consumer warpgroups; three: cooperative whole tiles up to 192 wide, stored from "
                "registers, not promoted");
  // The swap's transposed store packs 16-bit pairs (epilogue_cluster_split.cuh), and a block scale's
  // factor would vary along the swapped tile's columns (x's rows): FP8 swaps take bf16 / fp16 output
  // (launch_ws_scaled_out) and tensor / row-wise scales.
  static_assert(!FP8 || !SWAP_AB || (CLUSTER_SPLIT && EPILOGUE_SCALES), "FP8 swap: the cluster split, tensor / row-wise scales");
  // The TMA-store epilogue's boxes are 16-bit (C_BOX_BYTES): FP8 kernels
  // that store through it take bf16 / fp16 output only (launch_ws_scaled_out).
  static_assert(!FP8 || !TMA_STORE || EPILOGUE_SCALES, "FP8 with the TMA-store epilogue: tensor / row-wise scales");
  // A promoting consumer holds a block's fresh sum beside its accumulators
  // (overlapped: two). At n128 that is 2-3 x 64 fp32 registers a thread; a
  // whole-width fresh sum at n256 would make 256, past 232, so a 256-wide
  // tile is summed afresh one 128-column part at a time (FRESH_N): 128 + 64,
  // and each part is one 128-column block of B's block scales. The swap's
  // narrow tiles (x's rows, n16-n128) are one part of their own width.
  static constexpr int FRESH_N = BN < kScaleBlockSize ? BN : kScaleBlockSize;
  static constexpr int FRESH_PARTS = PROMOTED ? BN / FRESH_N : 1;
  static_assert(!BLOCK_SCALES || BN % kScaleBlockSize == 0, "block scales: a tile is whole 128-column blocks of B's scales");
  static_assert(!PROMOTED || (FP8 && (BN == 128 || (BN == 256 && !OVERLAPPED) || (SWAP_AB && !OVERLAPPED)) && !PINGPONG),
                "promotion: FP8, cooperative consumers, 128-wide tiles, 256-wide ones promoted part by part (not "
                "overlapped: two parts' fresh sums would make 256 registers) or the swap's n16-n128, waited on");
  // (The waiting and the wide forms with the scale warp ran slower than with
  // the consumers' loads, bench/results/h100_fp8_scale_warp.md: only the
  // overlapped form reads its scales so.)
  static_assert(C.block_scale_loads == BlockScaleLoads::consumers ||
                    (BLOCK_SCALES && OVERLAPPED && BM == 128 && BN == kScaleBlockSize && !CLUSTER_SPLIT),
                "the scale warp: block scales, overlapped promotion, 128 x 128 whole tiles (four rows a lane)");
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
  static_assert(!STREAM_K || (CTAS == 1 && !PINGPONG && TMA_STORE && !SWAP_AB),
                "stream-K: cooperative consumers, no cluster, the TMA-store epilogue for finished tiles");
  // Ping-pong in 2-CTA clusters along M: both CTAs walk the same units in the same order, so the
  // consumer that owns a tile in one owns its B peer's tile in the other, and the owners' warps
  // of both CTAs free each slot (READERS).
  static_assert(!PINGPONG || (CONSUMERS == 2 && PERSISTENT && (CTAS == 1 || (CLUSTER == 2 && CLUSTER_N == 1)) &&
                              TMA_STORE && !SPLIT_K),
                "ping-pong: two consumers of a persistent TMA-store kernel, alone or in 2-CTA clusters along M");
  static_assert(C.m_blocks == 1 || (C.m_blocks == 2 && !PINGPONG && !FP8 && !CLUSTER_SPLIT && !SWAP_AB && !STREAM_K &&
                                    M_BLOCKS * BN <= 256),
                "two row blocks per consumer: 16-bit, cooperative, whole tiles or the split tail, at most 128 "
                "accumulator registers a thread");
};

}  // namespace tcgemm::sm90
