// Registry entries of the Ada family (seed 000), in ladder order.
#include <string>

#include "core/families.h"
#include "sm89/launch.h"
#include "sm89/mma_config.h"

namespace tcgemm {

std::vector<KernelInfo> sm89_kernels() {
  // SASS for sm_89 and, so an H200 can verify the family, for sm_90a.
  const std::vector<int> sass = built_ccs({"89", "90a"});
  const unsigned dtypes = bit(DType::f16) | bit(DType::bf16);
  const unsigned layouts = bit(Layout::NN) | bit(Layout::TN);
  const unsigned accums = bit(Accum::f32) | bit(Accum::f16);  // f16 accumulation: fp16 inputs only
  // Each step's idea; its configuration is sm89::ladder::<id> (mma_config.h).
  struct Step { const char* id; const char* idea; };
  const Step steps[] = {
      {"mma", "mma.sync m16n8k16 + ldmatrix + cp.async multi-stage; 128x128x16 tile, 2x4 warps of 4x4 MMAs"},
      {"mma_swz", "+ XOR-swizzled B tile in shared memory (conflict-free ldmatrix without padding)"},
      {"mma_swz_x4", "+ swizzled A tile and ldmatrix.x4 for B (two n8 fragments per load)"},
      {"mma_bk32", "+ 32-deep K slice per stage (half the barriers per MMA)"},
      {"mma_wt64", "+ 64x64 warp tile, 128x256 block (twice the MMAs per ldmatrix)"},
      {"mma_wt64_k64", "+ 64-deep K slice (four k16 steps between barriers)"},
      {"mma_2blk", "+ two 4-warp 128x128 blocks per SM instead of one 8-warp block: one block's MMAs cover the other's barrier waits"},
      {"mma_iter", "+ address iterators: each thread's copy and ldmatrix addresses computed once per block and stepped by constants (3 in 4 instructions were address arithmetic)"},
      {"mma_iter_db", "+ double-buffered fragments: step kk+1's ldmatrix issued before step kk's MMAs, the slice barrier before the last step's"},
      {"mma_iter_8w", "mma_iter on one 8-warp 128x256 block per SM (half the operand bytes per FLOP)"},
      {"mma_iter_8w_db", "+ double-buffered fragments"},
      {"mma_spread", "mma_iter_db + the next slice's copies spread over the k16 steps, branch-free while slices are whole (and no predicated copy code: mma_iter_db's ran 4.4 instructions per MMA on TN)"},
      {"mma_spread_8w", "mma_spread on one 8-warp 128x256 block per SM"},
      {"mma_unroll", "mma_spread with its whole-slice iterations unrolled by the stage count: every pipeline slot a constant, folded into the ldmatrix/cp.async addresses (2.24 -> ~1.9 instructions per MMA)"},
      {"mma_unroll_8w", "mma_unroll on one 8-warp 128x256 block per SM"},
      {"mma_spread_8w_k32", "mma_spread_8w with CUTLASS sm80's 128x256x32 4-stage tile (32-deep slices, one more "
                            "stage in flight): 0.83-0.94x CUTLASS's kernel of that tile (h100_ada_cutlass.md)"},
      {"mma_ldsm_first_8w_k32", "mma_spread_8w_k32 with step kk+1's ldmatrix issued ahead of the step's share of "
                                "the next slice's copies (ptxas keeps an ldmatrix behind an earlier cp.async): each "
                                "fragment load at least 16 MMAs ahead of its use on TN, as in CUTLASS sm80's loop, "
                                "not 12 (NN 13, not 6); 1.09x mma_spread_8w_k32 in geomean"},
      {"mma_copies_last_8w", "mma_unroll_8w with each step's share of the copies after its MMAs (CUTLASS sm80's "
                             "order): no local memory in the unrolled loop, where mma_unroll_8w's TN loop stores "
                             "and reloads 8 bytes"},
      {"mma_ldsm_first", "mma_spread (two 4-warp 128x128x64 blocks per SM) with ldsm_first's order: 1.07x it in "
                         "geomean"},
      {"mma_ldsm_first_8w", "mma_spread_8w (one 8-warp 128x256x64 block) with ldsm_first's order: 1.04x it in "
                            "geomean"},
      {"mma_ldsm_unroll_8w_k32", "mma_ldsm_first_8w_k32 with its whole-slice iterations unrolled by the stage "
                                 "count: 0.97x it in geomean (the 32-deep slices gain nothing from it)"},
  };
  std::vector<KernelInfo> v;
  auto add = [&](const char* name, const Step& s, const sm89::MmaConfig& c, int stages, LaunchFn fn) {
    v.push_back(KernelInfo{name, "sm89", s.idea, 89, dtypes, layouts, accums, c.bm, c.bn, c.bk, stages, fn, sass,
                           kEpilogue | kBatched});
  };
#if TCGEMM_BUILD_SM89
#define TCGEMM_FN(variant, stages) &sm89::launch_##variant##_s##stages
#else
#define TCGEMM_FN(variant, stages) nullptr
#endif
#define TCGEMM_SM89_ADD(part, variant, stages) \
  for (const Step& s : steps)                    \
    if (std::string(s.id) == #variant)           \
      add("sm89." #variant ".s" #stages, s, sm89::ladder::variant, stages, TCGEMM_FN(variant, stages));
  TCGEMM_SM89_LADDER(TCGEMM_SM89_ADD)
#undef TCGEMM_SM89_ADD
  // Off the ladder: mma_bk32 for rows that start anywhere (mma_ragged_gemm.cuh).
  {
    const sm89::MmaConfig& c = sm89::ladder::mma_ragged;
    const Step ragged{"mma_ragged",
                      "mma_bk32 with the operands gathered element by element through registers (the next slice's "
                      "loads under this slice's MMAs, 2 slots) and C stored by element: any leading dimension, "
                      "2-byte aligned starts, no padding copy"};
#if TCGEMM_BUILD_SM89
    add("sm89.mma_ragged.s2", ragged, c, c.stages, &sm89::launch_mma_ragged_s2);
#else
    add("sm89.mma_ragged.s2", ragged, c, c.stages, nullptr);
#endif
    v.back().features |= kAnyRows;
  }
  // Off the ladder: decode-shaped x @ w.T with w's rows anywhere (mma_skinny.cu).
  {
    const Step skinny{"mma_skinny",
                      "x @ w.T for few rows of x with w's rows anywhere: w's 16 rows of a block (8 apart, so one "
                      "offset from the 16-byte grid) copied as aligned 16-byte granules by cp.async (4 stages; 6 and 8 "
                      "for 16 and 8 x rows a block), K "
                      "permuted so that a granule is a lane's A operand of two m16n8k16 MMAs, x read shifted to "
                      "match; 8 warps split K, summed in warp order"};
#if TCGEMM_BUILD_SM89
    const LaunchFn fn = &sm89::launch_mma_skinny_s4;
#else
    const LaunchFn fn = nullptr;
#endif
    v.push_back(KernelInfo{"sm89.mma_skinny.s4", "sm89", skinny.idea, 89, dtypes, bit(Layout::TN), bit(Accum::f32),
                           16, 64, 32, 4, fn, sass, kEpilogue | kBatched | kAnyRows});
  }
  // FP8 (mma_fp8_gemm.cuh): e4m3 / e5m2 operands (not both e5m2), TN only,
  // fp32 accumulation, bf16 / fp16 / fp32 output, torch._scaled_mm's scales.
  // Pass the GPU suites on sm_90a (an H200); sm_89 not run.
  // Each FP8 step's idea; its configuration is sm89::ladder::<id>, whose bk
  // counts 16-bit columns (fp8_bk): the registry states the FP8 K depth.
  const Step fp8_steps[] = {
      {"fp8_mma", "FP8 mma.sync m16n8k32 (e4m3/e5m2, fp32 accumulation) on mma_spread's mainloop, a 128-K slice per "
                  "stage, 8 warps of 64x32; tensor, row-wise and 1x128/128x128 block scales (promoted per 128-K "
                  "block); tested on sm_90a, sm_89 not run"},
      {"fp8_mma_8w", "fp8_mma on a 128x256 block of 8 warps of 64x64 (64-K slices, 4 stages); tensor and row-wise "
                     "scales; tested on sm_90a, sm_89 not run"},
  };
  const unsigned fp8_dtypes = bit(DType::e4m3) | bit(DType::e5m2);
  // On sm_90a, where they have run, the FP8 products go through fp16 MMAs
  // into fp32 accumulators: fp32 sums, which serve a caller allowing the
  // fast sum (Accum::fast) too. On sm_89 (not run) FP8 mma.sync adds at the
  // instruction's own precision, and CUTLASS stages those sums into fresh
  // accumulators by default (gemm/threadblock/mma_multistage.h,
  // kStagedAccumulation); these kernels do so with block scales only
  // (docs/fp8.md, "Ada").
  const unsigned fp8_accums = bit(Accum::f32) | bit(Accum::fast);
  const unsigned fp8_out = bit(DType::bf16) | bit(DType::f16) | bit(DType::f32);
  auto add_fp8 = [&](const char* name, const Step& s, const sm89::MmaConfig& c, int stages, sm89::Fp8Scales scales,
                     LaunchFn fn) {
    const unsigned modes =
        kScaledTensor | kScaledRow | (scales == sm89::Fp8Scales::tensor_row_block ? kScaledBlock : 0u);
    KernelInfo k{name, "sm89", s.idea, 89, fp8_dtypes, bit(Layout::TN), fp8_accums, c.bm, c.bn, 2 * c.bk, stages, fn,
                 sass, kEpilogue | modes};
    k.out_dtypes = fp8_out;
    v.push_back(k);
  };
#define TCGEMM_SM89_ADD_FP8(step, stages, scales)                                                      \
  for (const Step& s : fp8_steps)                                                                     \
    if (std::string(s.id) == #step)                                                                   \
      add_fp8("sm89." #step ".s" #stages, s, sm89::ladder::step, stages, scales, TCGEMM_FN(step, stages));
  TCGEMM_SM89_FP8(TCGEMM_SM89_ADD_FP8)
#undef TCGEMM_SM89_ADD_FP8
#undef TCGEMM_FN
#if TCGEMM_TUNING && TCGEMM_BUILD_SM89
  auto add_x = [&](const char* name, const char* idea, const sm89::MmaConfig& c, LaunchFn fn) {
    v.push_back(KernelInfo{name, "sm89", idea, 89, dtypes, layouts, bit(Accum::f32), c.bm, c.bn, c.bk, c.stages, fn,
                           sass});
  };
#define TCGEMM_SM89_ADD_X(part, name, ...) \
  add_x("sm89.x." #name, "tuning candidate", sm89::MmaConfig{__VA_ARGS__}, &sm89::launch_x_##name);
#define TCGEMM_SM89_ADD_WS(name, copy_warps, ...)                                                          \
  add_x("sm89.x." #name, "tuning candidate (warp-specialized, " #copy_warps " copy warps)",                \
        sm89::MmaConfig{__VA_ARGS__}, &sm89::launch_x_##name);
  TCGEMM_SM89_TUNING(TCGEMM_SM89_ADD_X)
  TCGEMM_SM89_TUNING_WS(TCGEMM_SM89_ADD_WS)
#undef TCGEMM_SM89_ADD_WS
#undef TCGEMM_SM89_ADD_X
#endif
  return v;
}

}  // namespace tcgemm
