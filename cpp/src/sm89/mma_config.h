// The Ada mainloop's configuration by name (mma_sync_gemm.cuh's Config<C>
// reads it), and the ladder's steps as configurations. Plain C++: the
// registry and the launch declarations see the same names as the kernels.
#pragma once

namespace tcgemm::sm89 {

// Where a k16 step puts its share of the next slice's copies (spread_copies
// with double-buffered fragments). ptxas keeps an ldmatrix behind an earlier
// cp.async of the same warp (both touch shared memory), so copies issued
// ahead of step kk+1's ldmatrix shorten how far those loads run ahead of the
// MMAs that read them: in mma_spread_8w_k32's loop the nearest is 12 MMAs
// ahead on TN and 6 on NN, in CUTLASS sm80's 128x256x32 4-stage loop, which
// issues its copies after the ldmatrix, 16 (tests/sass/loop_mix.py, lead).
enum class SpreadOrder {
  copies_first,  // the step's copies, step kk+1's ldmatrix, step kk's MMAs
  ldsm_first,    // step kk+1's ldmatrix, the step's copies, step kk's MMAs
  mmas_first,    // ldmatrix, MMAs, then the copies (CUTLASS sm80's order)
};

// One configuration of the mainloop, by name (a C++20 class-type template
// argument: a kernel's type spells out what it is). The fields after
// min_blocks are the ladder's later ideas, off unless a step turns them on.
struct MmaConfig {
  int bm, bn, bk;         // the block's C tile and the K depth of one pipeline slot
  int warps_m, warps_n;   // the warp grid over the tile
  int stages;             // K slices in flight (cp.async groups)
  bool swizzle_a = false, swizzle_b = false;  // XOR-swizzled shared rows (smem_layout.h)
  bool b_x4 = false;      // B fragments by ldmatrix.x4 (two n8 fragments per load)
  int min_blocks = 1;     // resident blocks per SM the registers are budgeted for
  bool frag_double_buffer = false;
  bool addr_iter = false;
  bool spread_copies = false;
  bool unroll_stages = false;
  SpreadOrder spread_order = SpreadOrder::copies_first;
};

// c with `stages` pipeline slots: the ladder's base step is built at 2-5.
constexpr MmaConfig with_stages(MmaConfig c, int stages) {
  c.stages = stages;
  return c;
}

// The ladder (registry_sm89.cpp states each step's idea, docs/ada.md
// measures it): every step is the one it grows from with one thing changed.
namespace ladder {
template <class F>
constexpr MmaConfig from(MmaConfig c, F change) {
  change(c);
  return c;
}
// The seed's kernel: 128x128 tiles, 8 warps of 64x32, 16-deep slices.
constexpr MmaConfig mma{.bm = 128, .bn = 128, .bk = 16, .warps_m = 2, .warps_n = 4, .stages = 3, .min_blocks = 2};
constexpr MmaConfig mma_swz = from(mma, [](MmaConfig& c) { c.swizzle_b = true; });
constexpr MmaConfig mma_swz_x4 = from(mma_swz, [](MmaConfig& c) { c.swizzle_a = c.b_x4 = true; });
constexpr MmaConfig mma_bk32 = from(mma_swz_x4, [](MmaConfig& c) { c.bk = 32; });
constexpr MmaConfig mma_wt64 = from(mma_bk32, [](MmaConfig& c) { c.bn = 256, c.min_blocks = 1; });
constexpr MmaConfig mma_wt64_k64 = from(mma_wt64, [](MmaConfig& c) { c.bk = 64; });
constexpr MmaConfig mma_2blk = from(mma_bk32, [](MmaConfig& c) { c.bk = 64, c.warps_n = 2; });
constexpr MmaConfig mma_iter = from(mma_2blk, [](MmaConfig& c) { c.addr_iter = true; });
constexpr MmaConfig mma_iter_db = from(mma_iter, [](MmaConfig& c) { c.frag_double_buffer = true; });
constexpr MmaConfig mma_iter_8w = from(mma_iter, [](MmaConfig& c) { c.bn = 256, c.warps_n = 4, c.min_blocks = 1; });
constexpr MmaConfig mma_iter_8w_db = from(mma_iter_8w, [](MmaConfig& c) { c.frag_double_buffer = true; });
constexpr MmaConfig mma_spread = from(mma_iter_db, [](MmaConfig& c) { c.spread_copies = true; });
constexpr MmaConfig mma_spread_8w = from(mma_iter_8w_db, [](MmaConfig& c) { c.spread_copies = true; });
constexpr MmaConfig mma_unroll = from(mma_spread, [](MmaConfig& c) { c.unroll_stages = true; });
constexpr MmaConfig mma_unroll_8w = from(mma_spread_8w, [](MmaConfig& c) { c.unroll_stages = true; });
constexpr MmaConfig mma_spread_8w_k32 = from(mma_spread_8w, [](MmaConfig& c) { c.bk = 32, c.stages = 4; });
constexpr MmaConfig mma_ldsm_first_8w_k32 =
    from(mma_spread_8w_k32, [](MmaConfig& c) { c.spread_order = SpreadOrder::ldsm_first; });
constexpr MmaConfig mma_copies_last_8w =
    from(mma_unroll_8w, [](MmaConfig& c) { c.spread_order = SpreadOrder::mmas_first; });
// ldsm_first on the other spread steps, and on mma_ldsm_first_8w_k32 with
// its iterations unrolled (mma_unroll with ldsm_first spills: 8-120 bytes).
constexpr MmaConfig mma_ldsm_first = from(mma_spread, [](MmaConfig& c) { c.spread_order = SpreadOrder::ldsm_first; });
constexpr MmaConfig mma_ldsm_first_8w =
    from(mma_spread_8w, [](MmaConfig& c) { c.spread_order = SpreadOrder::ldsm_first; });
constexpr MmaConfig mma_ldsm_unroll_8w_k32 = from(mma_ldsm_first_8w_k32, [](MmaConfig& c) { c.unroll_stages = true; });

// mma_bk32 for operands whose rows start anywhere (mma_ragged_gemm.cuh): the
// registers holding the next slice are the third buffer, so two slots.
constexpr MmaConfig mma_ragged = with_stages(mma_bk32, 2);

// The FP8 entries (mma_fp8_gemm.cuh) run the 16-bit mainloop on the bytes of
// their slices: a slot of K FP8 elements is stored, copied and swizzled as
// the slot of K / 2 16-bit elements, so an FP8 configuration's bk is fp8_bk(K).
constexpr int fp8_bk(int fp8_k) { return fp8_k / 2; }
// mma_spread's mainloop on 8 warps of 64x32, a 128-K slice (one block-scale
// block per slot), without double-buffered fragments.
constexpr MmaConfig fp8_mma = from(mma_spread, [](MmaConfig& c) {
  c.bk = fp8_bk(128), c.warps_n = 4, c.min_blocks = 1, c.frag_double_buffer = false;
});
// fp8_mma on the 16-bit 128x256x32 4-stage tile's bytes: 64x64 warp tiles.
constexpr MmaConfig fp8_mma_8w = from(fp8_mma, [](MmaConfig& c) { c.bn = 256, c.bk = fp8_bk(64), c.stages = 4; });
}  // namespace ladder

// The scale modes an FP8 entry is compiled for: tensor and row-wise scales
// are applied in the epilogue; block scales also promote every 128-K block
// into a second set of accumulators, which the 64x64 warp tile has no
// registers for.
enum class Fp8Scales { tensor_row, tensor_row_block };

}  // namespace tcgemm::sm89
