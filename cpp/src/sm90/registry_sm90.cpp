// Registry entries of the Hopper family, in ladder order (docs/hopper.md).
#include "core/families.h"
#include "sm90/launch.h"
#include "sm90/lines.h"

namespace tcgemm {

std::vector<KernelInfo> sm90_kernels() {
  const std::vector<int> sass = built_ccs({"90a"});  // wgmma / setmaxnreg: sm_90a only
  const unsigned dtypes = bit(DType::f16) | bit(DType::bf16);
  const unsigned layouts = bit(Layout::NN) | bit(Layout::TN);
  const unsigned accums = bit(Accum::f32);
  const unsigned features = kEpilogue | kBatched;
  const unsigned fp8 = bit(DType::e4m3) | bit(DType::e5m2);
  const unsigned fp8_out = bit(DType::bf16) | bit(DType::f16) | bit(DType::f32);
  // FP8 sums: wgmma's own accumulator over the whole K (Accum::fast), or
  // promoted into fp32 every 128 K, which serves a caller allowing the fast sum too.
  const unsigned fast = bit(Accum::fast), promoted = bit(Accum::f32) | bit(Accum::fast);
#if TCGEMM_BUILD_SM90
#define TCGEMM_FN(f) &sm90::f
#else
#define TCGEMM_FN(f) nullptr
#endif
  std::vector<KernelInfo> v = {
      {"sm90.tma_wgmma", "sm90",
       "TMA loads (128B swizzle, mbarrier complete_tx) + wgmma m64n128k16 from shared memory; one stage; "
       "128x128x64 tile, 2 warpgroups",
       90, dtypes, layouts, accums, 128, 128, 64, 1, TCGEMM_FN(launch_tma_wgmma), sass, features},
      {"sm90.tma_wgmma_pipe.s4", "sm90", "+ 4-stage TMA ring: loads of later K slices overlap the wgmma", 90,
       dtypes, layouts, accums, 128, 128, 64, 4, TCGEMM_FN(launch_tma_wgmma_pipe_s4), sass, features},
      {"sm90.ws", "sm90",
       "+ warp specialization: a TMA producer warpgroup and 2 wgmma consumer warpgroups meet at full/empty "
       "mbarriers; setmaxnreg 40/232",
       90, dtypes, layouts, accums, 128, 128, 64, 4, TCGEMM_FN(launch_ws), sass, features},
      {"sm90.ws_persistent", "sm90",
       "+ 128x256 tiles (m64n256k16 per consumer) on a persistent grid walking the grouped raster; epilogue "
       "registers -> swizzled smem -> TMA store while the producer loads the next tile",
       90, dtypes, layouts, accums, 128, 256, 64, 4, TCGEMM_FN(launch_ws_persistent), sass, features},
      {"sm90.ws_mcast", "sm90",
       "+ 2-CTA clusters along M: each CTA loads half of the shared B tile and TMA multicasts it to both "
       "(and ws_splitk's split tail over cluster rows)",
       90, dtypes, layouts, accums, 128, 256, 64, 4, TCGEMM_FN(launch_ws_mcast), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_mcast)},
      {"sm90.ws_mcast.2x2", "sm90",
       "ws_mcast with 2x2 clusters: B multicast down each tile column, A multicast along each tile row (each CTA "
       "loads half of each operand)",
       90, dtypes, layouts, accums, 128, 256, 64, 4, TCGEMM_FN(launch_ws_mcast_2x2), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_mcast_2x2)},
      {"sm90.ws_mcast.m256", "sm90",
       "ws_mcast turned: 256x128 tiles (two m64 row blocks per consumer) in 1x2 clusters along N multicasting A, "
       "the split tail",
       90, dtypes, layouts, accums, 256, 128, 64, 4, TCGEMM_FN(launch_ws_mcast_m256), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_mcast_m256)},
      {"sm90.ws_splitk", "sm90",
       "ws_persistent + split-K: every tile when the tiles cannot fill the GPU (M <= 64: 64x256 tiles), only the "
       "last partial wave's tile rows otherwise (the split tail); fp32 partials summed in a fixed order "
       "(deterministic) by a second kernel that applies the epilogue",
       90, dtypes, layouts, accums, 128, 256, 64, 4, TCGEMM_FN(launch_ws_splitk), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_splitk)},
      {"sm90.ws_splitk.swap", "sm90",
       "ws_splitk for decode, A and B swapped (D^T = W X^T): the weight's rows fill wgmma's M = 64, x's few rows "
       "its N (n16/n32/n64 by M); 128xN tiles, every one an fp32 partial that the reduction writes back "
       "transposed. NN runs ws_splitk's kernel",
       90, dtypes, layouts, accums, 128, 16, 64, 10, TCGEMM_FN(launch_ws_splitk_swap), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_splitk_swap)},
      {"sm90.ws_splitk.swap.dsmem", "sm90",
       "ws_splitk.swap with a tile's K slices (at most 8) in one cluster: rank 0 sums the others' accumulators "
       "out of their shared memory (distributed shared memory, in rank order: deterministic) and writes D -- "
       "one kernel, no workspace; 64-row tiles of the weight while those fit in one wave, x up to 128 rows "
       "wide (n128). NN reads the weight (K x N) as an MN-major A (wgmma transpose-A)",
       90, dtypes, layouts, accums, 64, 16, 64, 16, TCGEMM_FN(launch_ws_splitk_swap_dsmem), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_splitk_swap_dsmem)},
      {"sm90.ws_splitk.dsmem", "sm90",
       "ws_splitk with a tile's K slices (at most 8) in one cluster, as ws_splitk.swap.dsmem without the swap: "
       "128x128 tiles (64x256 for M <= 64); rank 0 sums its peers' accumulators out of their shared memory in "
       "rank order and stores the tile -- one kernel, no workspace, both layouts",
       90, dtypes, layouts, accums, 128, 128, 64, 5, TCGEMM_FN(launch_ws_splitk_dsmem), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_splitk_dsmem)},
      {"sm90.ws_pingpong", "sm90",
       "ws_persistent with the consumer warpgroups on alternate 128x128 tiles (ping-pong): one's epilogue "
       "overlaps the other's wgmma mainloop",
       90, dtypes, layouts, accums, 128, 128, 64, 6, TCGEMM_FN(launch_ws_pingpong), sass, features},
      {"sm90.ws_streamk", "sm90",
       "ws_persistent + stream-K: whole waves data-parallel, the last waves' MAC-loop iterations shared evenly "
       "by the resident CTAs; a split tile's fp32 partials are added in the same kernel, in a fixed order "
       "(deterministic), by the CTA holding its last K tile (flags: red.release / ld.acquire at GPU scope)",
       90, dtypes, layouts, accums, 128, 256, 64, 4, TCGEMM_FN(launch_ws_streamk), sass, features,
       TCGEMM_FN(workspace_ws_streamk)},
      {"sm90.ws_splitk.n192", "sm90",
       "ws_splitk with 128x192 tiles (m64n192k16 per consumer, 4 stages): a tile grid that quantizes where the "
       "256-wide one does not (a short last wave, N just past a multiple of 256)",
       90, dtypes, layouts, accums, 128, 192, 64, 4, TCGEMM_FN(launch_ws_splitk_n192), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_splitk_n192)},
      {"sm90.ws_mcast.n192", "sm90", "ws_mcast with 128x192 tiles: 2-CTA clusters multicasting B, the split tail",
       90, dtypes, layouts, accums, 128, 192, 64, 4, TCGEMM_FN(launch_ws_mcast_n192), sass, features | kSplitK,
       TCGEMM_FN(workspace_ws_mcast_n192)},
      {"sm90.ws_fp8", "sm90",
       "FP8 (e4m3, one operand e5m2): wgmma m64n128k32 summing the whole K in its accumulator (use_fast_accum=True) "
       "on ws_persistent's parts, 128 k per stage; "
       "tensor-wise or row-wise scales applied in the epilogue before bias and activation; bf16/fp16/fp32 out; TN",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.block", "sm90",
       "ws_fp8 with block scales (A 1x128, B 128x128): each 128-K block's wgmma sum is scaled and promoted "
       "into the fp32 accumulators (DeepSeek-V3's recipe, as DeepGEMM); K any length (the last block partial)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_block), sass,
       kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.mcast", "sm90",
       "ws_fp8 with 2-CTA clusters along M: each CTA loads half of the shared B tile and TMA multicasts it to both",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_mcast), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.wide", "sm90",
       "ws_fp8.mcast with 128x256 tiles (wgmma m64n256k32 per consumer), 4 stages of 48 KB",
       90, fp8, bit(Layout::TN), fast, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_wide), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.wide.tma_store", "sm90",
       "ws_fp8.wide with the TMA-store epilogue (its clusters kept): beside ws_fp8.splitk (no cluster, the "
       "same store) it tells the cluster's cost from the store's on rows of part lines; bf16/fp16 out",
       90, fp8, bit(Layout::TN), fast, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_wide_tma_store), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.tile192", "sm90",
       "ws_fp8.wide's loop on 192x192 tiles (cuBLASLt's FP8 tile): three consumer warpgroups, each wgmma "
       "m64n192k32, 2-CTA clusters along M multicasting B, 4 stages of 48 KB -- a third tile grid for whole waves",
       90, fp8, bit(Layout::TN), fast, 192, 192, 128, 4, TCGEMM_FN(launch_ws_fp8_tile192), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.splitk", "sm90",
       "ws_splitk's schedule for FP8: 128x256 tiles (m64n256k32) without a cluster, the last wave's tile rows "
       "split along K where the policy says, each slice's partial scaled and summed in a fixed order by the "
       "reduction; whole tiles through the TMA store; bf16/fp16 out",
       90, fp8, bit(Layout::TN), fast, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_splitk), sass,
       kEpilogue | kScaledTensor | kScaledRow | kSplitK, TCGEMM_FN(workspace_ws_fp8_splitk),
       bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.pingpong", "sm90",
       "ws_fp8 with ws_pingpong's consumers: each owns whole 128x128 tiles and the two take turns, one's "
       "epilogue (TMA store) under the other's wgmmas; bf16/fp16 out",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_pingpong), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.swap", "sm90",
       "FP8 decode: D^T = W X^T (the weight's rows in wgmma's M, x's few rows its N: n16-n128), a tile's K slices "
       "summed in a cluster's shared memory; tensor/row-wise scales, bf16/fp16 out",
       90, fp8, bit(Layout::TN), fast, 128, 64, 128, 8, TCGEMM_FN(launch_ws_fp8_swap), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.dsmem", "sm90",
       "ws_fp8 with a tile's K slices in one cluster (1-8 CTAs), summed from distributed shared memory by rank 0: "
       "decode and other shapes with fewer tiles than SMs",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_dsmem), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.block.dsmem", "sm90", "ws_fp8.dsmem with block scales (each slice promoted as it goes)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_block_dsmem), sass,
       kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.promoted", "sm90",
       "ws_fp8 with fp32 accumulation (use_fast_accum=False): each 128-K block's wgmma sum added into fp32 "
       "registers (ws_fp8.block's promotion, factor 1), tensor/row-wise scales in the epilogue",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_promoted), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.promoted.dsmem", "sm90", "ws_fp8.dsmem with fp32 accumulation (each slice promoted as it goes)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_promoted_dsmem), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.promoted.swap", "sm90",
       "ws_fp8.swap with fp32 accumulation (use_fast_accum=False): each slice's 128-K blocks promoted into fp32 "
       "registers as it goes; tensor/row-wise scales, bf16/fp16 out",
       90, fp8, bit(Layout::TN), promoted, 128, 64, 128, 8, TCGEMM_FN(launch_ws_fp8_promoted_swap), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.promoted.overlap", "sm90",
       "ws_fp8.promoted with the promotion under the consumer's own wgmmas: two fresh sums take turns, a block's "
       "added while the next block's wgmmas run",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_promoted_overlap), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.block.overlap", "sm90",
       "ws_fp8.block with the promotion under the consumer's own wgmmas: two fresh sums take turns, a block's "
       "scaled and added while the next block's wgmmas run",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_block_overlap), sass,
       kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.promoted.wide", "sm90",
       "ws_fp8.promoted on ws_fp8.wide's 128x256 tiles (2-CTA clusters multicasting B): each 128-K block summed "
       "afresh one 128-column part at a time (a whole-width fresh sum would not fit the registers)",
       90, fp8, bit(Layout::TN), promoted, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_promoted_wide), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.block.wide", "sm90",
       "ws_fp8.block on ws_fp8.wide's 128x256 tiles (2-CTA clusters multicasting B): a tile is two 128-column "
       "blocks of B's scales, each 128-K block summed afresh, scaled and added one such block at a time",
       90, fp8, bit(Layout::TN), promoted, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_block_wide), sass,
       kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.promoted.mcast", "sm90",
       "ws_fp8.promoted.overlap in ws_fp8.mcast's 2-CTA clusters along M (B multicast to both); 0.92-0.95x "
       ".promoted.overlap on 8 of 9 shapes timed (h100_fp8_block.md)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_promoted_mcast), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, fp8_out},
      {"sm90.ws_fp8.block.mcast", "sm90",
       "ws_fp8.block.overlap in ws_fp8.mcast's 2-CTA clusters along M (B multicast to both); within 1-4% of "
       ".block.overlap (h100_fp8_block.md)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_block_mcast), sass,
       kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.block.overlap.scale_warp", "sm90",
       "ws_fp8.block.overlap with its scales copied by a producer warp into a slot beside each stage (cp.async "
       "under the stage's full barrier), read by the consumers from shared memory after each block's wait; "
       "1.03-1.10x .block.overlap on ten shapes (h100_fp8_scale_warp.md)",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_block_overlap_scale_warp),
       sass, kEpilogue | kScaledBlock, nullptr, fp8_out},
      {"sm90.ws_fp8.pingpong.mcast", "sm90",
       "ws_fp8.pingpong in ws_fp8.mcast's 2-CTA clusters along M: the pair's B tile loaded half by each CTA and "
       "multicast, the same consumer owning the pair's tiles in both; bf16/fp16 out; 1.07-1.13x ping-pong on rows "
       "of part lines from 4.5 rounds of tiles (h100_fp8_lines_rotated.md)",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_pingpong_mcast), sass,
       kEpilogue | kScaledTensor | kScaledRow, nullptr, bit(DType::bf16) | bit(DType::f16)},
      // The same kernels on operands copied to rows of whole 128-byte lines first (sm90/lines.h).
      {"sm90.ws_fp8.pingpong.lines", "sm90",
       "ws_fp8.pingpong on operands whose rows are not whole 128-byte lines apart (K % 128 != 0) copied first, "
       "in one launch, into its workspace at a pitch of whole lines: every TMA box row then starts a line; "
       "1.06-1.28x the fastest in-place entry on 10 of 31 rows, hot operands (h100_fp8_lines.md); with operands "
       "from HBM 1.07-1.30x the wide tiles on rows 16 bytes into a sector, K <= 4608 (h100_fp8_lines_rotated.md)",
       90, fp8, bit(Layout::TN), fast, 128, 128, 128, 5, TCGEMM_FN(launch_ws_fp8_pingpong_lines), sass,
       kEpilogue | kScaledTensor | kScaledRow, TCGEMM_FN(workspace_ws_fp8_lines), bit(DType::bf16) | bit(DType::f16)},
      {"sm90.ws_fp8.wide.lines", "sm90",
       "ws_fp8.wide on operands copied to rows of whole 128-byte lines first; 0.59-0.98x ws_fp8.wide in place "
       "(h100_fp8_lines.md)",
       90, fp8, bit(Layout::TN), fast, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_wide_lines), sass,
       kEpilogue | kScaledTensor | kScaledRow, TCGEMM_FN(workspace_ws_fp8_lines), fp8_out},
      {"sm90.ws_fp8.promoted.overlap.lines", "sm90",
       "ws_fp8.promoted.overlap on operands copied to rows of whole 128-byte lines first",
       90, fp8, bit(Layout::TN), promoted, 128, 128, 128, 6, TCGEMM_FN(launch_ws_fp8_promoted_overlap_lines), sass,
       kEpilogue | kScaledTensor | kScaledRow, TCGEMM_FN(workspace_ws_fp8_lines), fp8_out},
      {"sm90.ws_fp8.promoted.wide.lines", "sm90",
       "ws_fp8.promoted.wide on operands copied to rows of whole 128-byte lines first",
       90, fp8, bit(Layout::TN), promoted, 128, 256, 128, 4, TCGEMM_FN(launch_ws_fp8_promoted_wide_lines), sass,
       kEpilogue | kScaledTensor | kScaledRow, TCGEMM_FN(workspace_ws_fp8_lines), fp8_out},
  };
#undef TCGEMM_FN
  return v;
}

}  // namespace tcgemm
