// The Ada family's launch functions, one per registry entry, compiled only
// for sm_89 and sm_90a.
#pragma once
#include <vector>

#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm89 {

// The ladder: every registry entry sm89.<step>.s<stages> is one
// configuration of the one kernel template (mma_sync_gemm.cuh's Config), a
// line here -- not a translation unit of its own. Each line: the part
// (ladder_<part>.cu compiles the entries of its part, so the parts build in
// parallel), the step, its stage count. The step's configuration is
// ladder::<step> (mma_config.h), each the step it grows from with one idea
// added (registry_sm89.cpp names it); the base step keeps the seed's stage
// sweep, later steps one stage count (other counts are tuning candidates
// below).
#define TCGEMM_SM89_LADDER(X)     \
  X(0, mma, 2)                    \
  X(0, mma, 3)                    \
  X(0, mma, 4)                    \
  X(0, mma, 5)                    \
  X(0, mma_swz, 3)                \
  X(1, mma_swz_x4, 3)             \
  X(1, mma_bk32, 3)               \
  X(1, mma_wt64, 3)               \
  X(1, mma_wt64_k64, 3)           \
  X(2, mma_2blk, 3)               \
  X(2, mma_iter, 3)               \
  X(3, mma_iter_db, 3)            \
  X(3, mma_iter_8w, 3)            \
  X(3, mma_iter_8w_db, 3)         \
  X(4, mma_spread, 3)             \
  X(4, mma_spread_8w, 3)          \
  X(5, mma_unroll, 3)             \
  X(5, mma_unroll_8w, 3)          \
  X(6, mma_spread_8w_k32, 4)      \
  X(7, mma_ldsm_first_8w_k32, 4)  \
  X(7, mma_copies_last_8w, 3)     \
  X(8, mma_ldsm_first, 3)         \
  X(8, mma_ldsm_first_8w, 3)      \
  X(8, mma_ldsm_unroll_8w_k32, 4)

#define TCGEMM_SM89_DECLARE(part, variant, stages) Status launch_##variant##_s##stages(const GemmArgs& a);
TCGEMM_SM89_LADDER(TCGEMM_SM89_DECLARE)
#undef TCGEMM_SM89_DECLARE

// sm89.mma_ragged.s2 (mma_ragged.cu): operands and output at any leading
// dimension and 2-byte aligned start.
Status launch_mma_ragged_s2(const GemmArgs& a);
// sm89.mma_skinny.s4 (mma_skinny.cu): x @ w.T for few rows of x, w's rows
// anywhere, read by aligned 16-byte loads.
Status launch_mma_skinny_s4(const GemmArgs& a);

// The FP8 entries (mma_fp8_gemm.cuh), sm89.<step>.s<stages>: the step
// (its configuration is ladder::<step>, mma_config.h), its stage count and
// the scale modes it is compiled for. fp8_<p>.cu compiles operand pair p of
// every entry, so the pairs build in parallel; fp8_0.cu also holds the
// entries' launches.
#define TCGEMM_SM89_FP8(X)                         \
  X(fp8_mma, 3, sm89::Fp8Scales::tensor_row_block) \
  X(fp8_mma_8w, 4, sm89::Fp8Scales::tensor_row)

#define TCGEMM_SM89_FP8_DECLARE(step, stages, ...)                           \
  Status launch_##step##_s##stages(const GemmArgs& a);                       \
  Status launch_##step##_s##stages##_e4m3_e4m3(const GemmArgs& a);           \
  Status launch_##step##_s##stages##_e4m3_e5m2(const GemmArgs& a);           \
  Status launch_##step##_s##stages##_e5m2_e4m3(const GemmArgs& a);
TCGEMM_SM89_FP8(TCGEMM_SM89_FP8_DECLARE)
#undef TCGEMM_SM89_FP8_DECLARE

// Tuning candidates (-DTCGEMM_TUNING=ON), fp32 accumulation only: the part
// (which tuning_<part>.cu compiles it, so candidates build in parallel), the
// name, then its MmaConfig's fields by name (mma_config.h). The first five were timed for
// docs/performance.md's Ada tuning table (mma_2blk graduated); the *_db ones
// double-buffer fragments (.frag_double_buffer); it* use the address iterators,
// *_sp spreads the next slice's copies over the k16 steps, *_u unrolls those
// iterations by the stage count (.unroll_stages); the last five are
// the early steps at other stage counts (docs/performance.md's Ada ladder
// quotes the .s4 ones).
#define TCGEMM_SM89_TUNING(X)                                                                                    \
  X(0, b128x128k64_w2x4_s3_2, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3,           \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                         \
  X(0, b128x256k64_w2x4_s4_1, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 4,           \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true)                                                          \
  X(0, b256x128k64_w4x2_s3_1, .bm = 256, .bn = 128, .bk = 64, .warps_m = 4, .warps_n = 2, .stages = 3,           \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true)                                                          \
  X(0, b128x128k32_w2x2_s4_2, .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 2, .stages = 4,           \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                         \
  X(0, b128x128k64_w2x2_s3_2, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 3,           \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                         \
  X(0, b128x128k32_w2x2_s4_2_db, .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 2, .stages = 4,        \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .frag_double_buffer = true)             \
  X(0, b128x256k64_w2x4_s3_1_db, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3,        \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true)                              \
  X(0, b128x256k32_w2x4_s4_1_db, .bm = 128, .bn = 256, .bk = 32, .warps_m = 2, .warps_n = 4, .stages = 4,        \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true)                              \
  X(0, b256x128k32_w4x2_s4_1_db, .bm = 256, .bn = 128, .bk = 32, .warps_m = 4, .warps_n = 2, .stages = 4,        \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true)                              \
  X(1, it_sp, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 3, .swizzle_a = true,        \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .addr_iter = true, .spread_copies = true)                  \
  X(1, it_db_sp, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 3, .swizzle_a = true,     \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .frag_double_buffer = true, .addr_iter = true,             \
    .spread_copies = true)                                                                                       \
  X(2, it8_sp, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3, .swizzle_a = true,       \
    .swizzle_b = true, .b_x4 = true, .addr_iter = true, .spread_copies = true)                                   \
  X(2, it8_db_sp, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3, .swizzle_a = true,    \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true, .spread_copies = true)       \
  X(3, it8_s4, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true,       \
    .swizzle_b = true, .b_x4 = true, .addr_iter = true)                                                          \
  X(3, it8_db_sp_s4, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true, \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true, .spread_copies = true)       \
  X(4, it8t_db_sp, .bm = 256, .bn = 128, .bk = 64, .warps_m = 4, .warps_n = 2, .stages = 3, .swizzle_a = true,   \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true, .spread_copies = true)       \
  X(4, it8_k32_db_sp_s5, .bm = 128, .bn = 256, .bk = 32, .warps_m = 2, .warps_n = 4, .stages = 5,                \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true,           \
    .spread_copies = true)                                                                                       \
  X(5, it_k32_db_sp_s5, .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 2, .stages = 5,                 \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .frag_double_buffer = true,             \
    .addr_iter = true, .spread_copies = true)                                                                    \
  X(5, it_k32_sp_s5, .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 2, .stages = 5, .swizzle_a = true, \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .addr_iter = true, .spread_copies = true)                  \
  X(6, w96_sp, .bm = 192, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3, .swizzle_a = true,       \
    .swizzle_b = true, .b_x4 = true, .addr_iter = true, .spread_copies = true)                                   \
  X(6, w96_sp_s4, .bm = 192, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true,    \
    .swizzle_b = true, .b_x4 = true, .addr_iter = true, .spread_copies = true)                                   \
  X(7, it_sp_u, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 3, .swizzle_a = true,      \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2, .addr_iter = true, .spread_copies = true,                  \
    .unroll_stages = true)                                                                                       \
  X(7, it8_sp_u, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 3, .swizzle_a = true,     \
    .swizzle_b = true, .b_x4 = true, .addr_iter = true, .spread_copies = true, .unroll_stages = true)            \
  X(8, it8_db_sp_u_s4, .bm = 128, .bn = 256, .bk = 64, .warps_m = 2, .warps_n = 4, .stages = 4,                  \
    .swizzle_a = true, .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true,           \
    .spread_copies = true, .unroll_stages = true)                                                                \
  X(8, it8t_db_sp_u, .bm = 256, .bn = 128, .bk = 64, .warps_m = 4, .warps_n = 2, .stages = 3, .swizzle_a = true, \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true, .spread_copies = true,       \
    .unroll_stages = true)                                                                                       \
  X(8, swz_s4, .bm = 128, .bn = 128, .bk = 16, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_b = true,       \
    .min_blocks = 2)                                                                                             \
  X(8, swz_x4_s4, .bm = 128, .bn = 128, .bk = 16, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true,    \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                                            \
  X(8, swz_x4_s5, .bm = 128, .bn = 128, .bk = 16, .warps_m = 2, .warps_n = 4, .stages = 5, .swizzle_a = true,    \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                                            \
  X(8, bk32_s4, .bm = 128, .bn = 128, .bk = 32, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true,      \
    .swizzle_b = true, .b_x4 = true, .min_blocks = 2)                                                            \
  X(8, wt64_s4, .bm = 128, .bn = 256, .bk = 32, .warps_m = 2, .warps_n = 4, .stages = 4, .swizzle_a = true,      \
    .swizzle_b = true, .b_x4 = true)
// Warp-specialized candidates (mma_ws_gemm.cuh, compiled in tuning_ws.cu):
// name, copy warps, then the MmaConfig as above.
// Slower than mma_spread (0.74-0.85x; mma_ws_gemm.cuh says where measured),
// so not a ladder step: 4 MMA warps per SM where mma_spread runs 8.
#define TCGEMM_SM89_TUNING_WS(X)                                                                              \
  X(ws_s4, 4, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 4, .swizzle_a = true,     \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true)                           \
  X(ws_s6, 4, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 6, .swizzle_a = true,     \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true)                           \
  X(ws_cw1_s4, 1, .bm = 128, .bn = 128, .bk = 64, .warps_m = 2, .warps_n = 2, .stages = 4, .swizzle_a = true, \
    .swizzle_b = true, .b_x4 = true, .frag_double_buffer = true, .addr_iter = true)
#if TCGEMM_TUNING
#define TCGEMM_SM89_DECLARE_X(part, name, ...) Status launch_x_##name(const GemmArgs& a);
TCGEMM_SM89_TUNING(TCGEMM_SM89_DECLARE_X)
#define TCGEMM_SM89_DECLARE_WS(name, ...) Status launch_x_##name(const GemmArgs& a);
TCGEMM_SM89_TUNING_WS(TCGEMM_SM89_DECLARE_WS)
#undef TCGEMM_SM89_DECLARE_WS
#undef TCGEMM_SM89_DECLARE_X
#endif

// The mma.sync ceilings over every SM (mma_ceiling.cu): the register-only loop,
// the rate the GEMMs are fed toward, or the ldmatrix-fed loop (f32 only).
// Times `launches` launches after a warm-up: ms per launch, FLOPs per launch.
Status time_mma_ceiling(bool f16_accum, bool ldmatrix_fed, int sm_count, int launches, std::vector<float>* ms,
                        double* flops);

}  // namespace tcgemm::sm89
