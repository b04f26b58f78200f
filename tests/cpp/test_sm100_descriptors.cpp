// The tcgen05 encodings of cpp/src/sm100/descriptors.h, field by field against
// the PTX ISA tables (no GPU: there is no sm_100 device here, so these host
// tests are what proves the bits the Blackwell kernels hand the hardware).
#include <cstdint>
#include <initializer_list>

#include "check.h"
#include "sm100/descriptors.h"

using namespace tcgemm;
using namespace tcgemm::sm100;

static uint32_t bits32(uint32_t v, int lo, int hi) { return (v >> lo) & ((1u << (hi - lo + 1)) - 1u); }
static uint64_t bits64(uint64_t v, int lo, int hi) { return (v >> lo) & ((uint64_t{1} << (hi - lo + 1)) - 1u); }

// PTX ISA 9.7.16.4.2, Table "Instruction descriptor format for .kind::tf32,
// .kind::f16, .kind::f8f6f4 and .kind::i8", column .kind::f16.
static void instruction_descriptor() {
  for (DType dt : {DType::f16, DType::bf16})
    for (Major am : {Major::K, Major::MN})
      for (Major bm : {Major::K, Major::MN})
        for (int m : {64, 128, 256})
          for (int n = 8; n <= 256; n += 8)
            for (bool f32 : {true, false}) {
              SCOPED_CASE("%s A %s-major B %s-major m%d n%d %s accumulate", to_string(dt), am == Major::K ? "K" : "MN",
                          bm == Major::K ? "K" : "MN", m, n, f32 ? "f32" : "f16");
              const uint32_t d = idesc_f16(dt, m, n, am, bm, f32);
              const uint32_t ab = dt == DType::bf16 ? 1u : 0u;
              CHECK(bits32(d, 0, 1) == 0);                      // sparsity selector
              CHECK(bits32(d, 2, 2) == 0);                      // dense
              CHECK(bits32(d, 3, 3) == 0);                      // saturate: NA for f16
              CHECK(bits32(d, 4, 5) == (f32 ? 1u : 0u));        // dtype: F16 = 0, F32 = 1
              CHECK(bits32(d, 6, 6) == 0);                      // reserved
              CHECK(bits32(d, 7, 9) == ab);                     // atype: F16 = 0, BF16 = 1
              CHECK(bits32(d, 10, 12) == ab);                   // btype
              CHECK(bits32(d, 13, 14) == 0);                    // no negate
              CHECK(bits32(d, 15, 15) == (am == Major::MN));    // transpose A = MN-major
              CHECK(bits32(d, 16, 16) == (bm == Major::MN));    // transpose B = MN-major
              CHECK(bits32(d, 17, 22) == static_cast<uint32_t>(n >> 3));  // N >> 3
              CHECK(bits32(d, 23, 23) == 0);                    // reserved
              CHECK(bits32(d, 24, 28) == static_cast<uint32_t>(m >> 4));  // M >> 4
              CHECK(bits32(d, 29, 31) == 0);                    // reserved, no .ws shift
            }
  // Spot values worked by hand: bf16, f32 accumulate, K-major A and B,
  // M = 128, N = 256 -> 1<<4 | 1<<7 | 1<<10 | 32<<17 | 8<<24.
  CHECK(idesc_f16(DType::bf16, 128, 256, Major::K, Major::K) == 0x08400490u);
  // fp16, MN-major B (the NN layout), 2-SM M = 256, N = 256.
  CHECK(idesc_f16(DType::f16, 256, 256, Major::K, Major::MN) == (0x10u | 1u << 16 | 32u << 17 | 16u << 24));
  // The shapes the kernels use are ones the ISA has ("Matrix shape" table).
  CHECK(valid_mma_shape(1, 128, 128));
  CHECK(valid_mma_shape(1, 128, 256));
  CHECK(valid_mma_shape(2, 256, 256));
  CHECK(!valid_mma_shape(1, 256, 128));  // M = 256 needs the CTA pair
  CHECK(!valid_mma_shape(1, 128, 264));
  CHECK(!valid_mma_shape(2, 256, 48));  // cta_group::2: N step 32
  CHECK(!valid_mma_shape(1, 128, 24));  // M = 128: N step 16
}

// PTX ISA 9.7.16.4.1, Table "Shared memory descriptor layout":
//   0-13 encode(start), 16-29 encode(LBO), 32-45 encode(SBO), 46-48 = 0b001,
//   49-51 base offset, 52 LBO mode, 53-60 = 0, 61-63 swizzle mode;
//   encode(x) = (x & 0x3FFFF) >> 4.
static void check_smem_desc_fields(uint64_t d, uint32_t addr, uint32_t lbo, uint32_t sbo, uint32_t swz) {
  CHECK(bits64(d, 0, 13) == ((addr & 0x3FFFFu) >> 4));
  CHECK(bits64(d, 14, 15) == 0);
  CHECK(bits64(d, 16, 29) == ((lbo & 0x3FFFFu) >> 4));
  CHECK(bits64(d, 30, 31) == 0);
  CHECK(bits64(d, 32, 45) == ((sbo & 0x3FFFFu) >> 4));
  CHECK(bits64(d, 46, 48) == 0b001);  // the fixed constant of sm_100 descriptors
  CHECK(bits64(d, 49, 51) == 0);      // base offset: tiles start on their pattern boundary
  CHECK(bits64(d, 52, 52) == 0);      // LBO relative
  CHECK(bits64(d, 53, 60) == 0);
  CHECK(bits64(d, 61, 63) == swz);
}

static void shared_memory_descriptor() {
  // Swizzle-mode encodings of the table: none 0, 128B/32B-atom 1, 128B 2, 64B 4, 32B 6.
  CHECK(static_cast<uint32_t>(Swizzle::none) == 0);
  CHECK(static_cast<uint32_t>(Swizzle::b128_atom32) == 1);
  CHECK(static_cast<uint32_t>(Swizzle::b128) == 2);
  CHECK(static_cast<uint32_t>(Swizzle::b64) == 4);
  CHECK(static_cast<uint32_t>(Swizzle::b32) == 6);
  for (Swizzle sw : {Swizzle::none, Swizzle::b128_atom32, Swizzle::b128, Swizzle::b64, Swizzle::b32})
    for (uint32_t addr : {0u, 1024u, 0x12340u, 227u * 1024u, 0x3FFF0u})
      for (uint32_t lbo : {16u, 128u, 2048u, 8192u})
        for (uint32_t sbo : {128u, 1024u, 4096u})
          check_smem_desc_fields(smem_desc(addr, lbo, sbo, sw), addr, lbo, sbo, static_cast<uint32_t>(sw));
  // Only address bits 4..17 reach the descriptor (18-bit shared window, 16-byte units).
  CHECK(desc_encode(0x40010u) == 1u);
  CHECK(desc_encode(0x3FFFFu) == 0x3FFFu);
  // A hand-assembled one: K-major SW128 tile at 0x8000: start 0x800, LBO 1, SBO 64.
  CHECK(smem_desc(0x8000, 16, 1024, Swizzle::b128) == (0x800ull | 1ull << 16 | 64ull << 32 | 1ull << 46 | 2ull << 61));
}

// LBO / SBO of the tiles the TMA loads build, against the PTX ISA's canonical
// layouts ("Shared Memory Matrix Layouts", T = 16 bytes):
//   K-major  none : ((8,m),(T,2k)):((1T,SBO),(1,LBO))   -> SBO 8 rows, LBO next 16-B column
//   K-major  128B : ((8,m),(T,2k)):((8T,SBO),(1,T))     -> SBO 8 rows of 128 B, LBO unused (1)
//   MN-major none : ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) -> LBO next 8 k-rows, SBO next 16-B chunk
//   MN-major 128B : ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) -> SBO next 8 k-rows, LBO next 64-wide atom
// and the ISA's worked bf16 examples beside the LBO/SBO definitions.
static void canonical_layouts() {
  for (int rows : {128, 256}) {
    const int bk = 64;
    LboSbo k0 = tile_lbo_sbo(Major::K, Swizzle::none, rows, bk);
    CHECK(k0.sbo == 8 * 16);         // "SBO = 8 * 16 = 128; 8 spans along M-mode"
    CHECK(k0.lbo == static_cast<uint32_t>(rows / 8 * 128));  // "LBO = (ATOM_MMODE_DIM / 8) * SBO"
    LboSbo k128 = tile_lbo_sbo(Major::K, Swizzle::b128, rows, bk);
    CHECK(k128.sbo == 8 * 128);  // "SBO = 8 * 128 = 1024"
    CHECK(k128.lbo == 16);       // "Not used, assumed to be 1" (encoded 1)
    LboSbo mn0 = tile_lbo_sbo(Major::MN, Swizzle::none, rows, bk);
    CHECK(mn0.lbo == 16 * 8);              // "LBO = 16 * 8 = 128; 8 spans along K-mode"
    CHECK(mn0.sbo == bk / 8 * mn0.lbo);    // "SBO = (ATOM_KMODE_DIM / 8) * LBO"
    LboSbo mn128 = tile_lbo_sbo(Major::MN, Swizzle::b128, rows, bk);
    CHECK(mn128.sbo == 128 * 8);              // "SBO = 128 * 8 = 1024"
    CHECK(mn128.lbo == bk / 8 * mn128.sbo);   // "LBO = (ATOM_KMODE_DIM / 8) * SBO"
  }
  // Where the kk-th k16 step starts, from the element offsets of the layouts:
  // element (r, k) of a K-major no-swizzle tile lies at (k/8)*rows*16 + r*16 + (k%8)*2.
  for (int rows : {128, 256})
    for (int kk = 0; kk < 4; ++kk) {
      const uint32_t k = 16u * kk;
      CHECK(kstep_offset(Major::K, Swizzle::none, rows, kk) == (k / 8) * static_cast<uint32_t>(rows) * 16);
      // K-major 128B: logical (r, k) at (k/64)*rows*128 + r*128 + (k%64)*2 before the XOR.
      CHECK(kstep_offset(Major::K, Swizzle::b128, rows, kk) == (k / 64) * static_cast<uint32_t>(rows) * 128 + (k % 64) * 2);
      // MN-major none: (n, k) at (n/8)*bk*16 + k*16 + (n%8)*2.
      CHECK(kstep_offset(Major::MN, Swizzle::none, rows, kk) == k * 16);
      // MN-major 128B: (n, k) at (n/64)*bk*128 + k*128 + (n%64)*2 before the XOR.
      CHECK(kstep_offset(Major::MN, Swizzle::b128, rows, kk) == k * 128);
    }
  // A 128-deep K slice of a K-major SW128 tile is two 64-wide column blocks.
  CHECK(kstep_offset(Major::K, Swizzle::b128, 128, 5) == 128 * 128 + 32);
  // Every step of a swizzled MN-major tile starts on a 1024-B atom (base offset 0).
  for (int kk = 0; kk < 8; ++kk) CHECK(kstep_offset(Major::MN, Swizzle::b128, 256, kk) % 1024 == 0);
  // operand_desc = smem_desc(tile + kstep_offset, LBO, SBO, swizzle).
  const uint64_t d = operand_desc(0x4000, Major::MN, Swizzle::b128, 128, 64, 3);
  check_smem_desc_fields(d, 0x4000 + 3 * 2048, 64 * 128, 1024, 2);
}

// PTX ISA 9.7.16.1.1 "Tensor Memory Addressing": bits 31-16 lane, 15-0 column.
static void tmem_addressing() {
  for (uint32_t lane : {0u, 1u, 32u, 64u, 96u, 127u})
    for (uint32_t col : {0u, 8u, 255u, 256u, 511u}) {
      const uint32_t a = tmem_addr(0, lane, col);
      CHECK((a >> 16) == lane);
      CHECK((a & 0xFFFFu) == col);
    }
  CHECK(tmem_addr(0x00000100u, 96, 8) == 0x00600108u);  // base column 256, warp 3's lanes
  // Allocation unit: powers of two, at least 32 columns (9.7.16.1.2).
  CHECK(tmem_columns(1) == 32);
  CHECK(tmem_columns(32) == 32);
  CHECK(tmem_columns(128) == 128);
  CHECK(tmem_columns(129) == 256);
  CHECK(tmem_columns(512) == 512);
}

int main() {
  instruction_descriptor();
  shared_memory_descriptor();
  canonical_layouts();
  tmem_addressing();
  return finish("test_sm100_descriptors");
}
