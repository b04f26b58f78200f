// tcgen05: the 5th-generation tensor core of sm_100a -- Tensor Memory
// allocation, the MMA, its commit to an mbarrier, TMEM -> register loads and
// the tcgen05 fences. PTX ISA 9.7.16, "TensorCore 5th Generation Family
// Instructions". Each wrapper emits the one instruction it is named after.
//
// All tcgen05 instructions of a kernel must use the same .cta_group (PTX ISA
// 9.7.16.5 "Issue Granularity"), so every wrapper takes it as a template
// argument: 1 for the single-CTA kernels, 2 for the CTA-pair (2-SM) ones.
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

#define TCGEMM_CTA_GROUP_ASSERT(G) static_assert((G) == 1 || (G) == 2, ".cta_group is ::1 or ::2")

// ---- Tensor Memory allocation (PTX ISA "Tensor Memory Allocation and
// Management Instructions": tcgen05.alloc / dealloc / relinquish_alloc_permit). One whole warp issues each of them (with
// ::2, one warp in each CTA of the pair). The allocated address is written to
// shared memory at dst_smem; ncols is a power of two >= 32.
template <int G>
TCGEMM_DEVICE void tcgen05_alloc(uint32_t dst_smem, uint32_t ncols) {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols) : "memory");
}

// After its one allocation a CTA gives up the right to allocate again, so a
// CTA of another kernel waiting on this SM's TMEM need not wait for our exit.
template <int G>
TCGEMM_DEVICE void tcgen05_relinquish_alloc_permit() {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}

// Everything allocated must be freed before the kernel exits.
template <int G>
TCGEMM_DEVICE void tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

// ---- The MMA (PTX ISA "tcgen05.mma"): D[tmem] (+)= A[smem] * B[smem],
// both operands by shared memory descriptor, shapes and types by the
// instruction descriptor (sm100/descriptors.h). accumulate = false is the
// first K step of a tile (D = A*B; TMEM is not zeroed beforehand). Issued by
// one thread; it runs asynchronously -- tcgen05.commit tracks completion.
template <int G>
TCGEMM_DEVICE void tcgen05_mma_f16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc, uint32_t idesc, bool accumulate) {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
        "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(static_cast<uint32_t>(accumulate))
        : "memory");
  else
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
        "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(static_cast<uint32_t>(accumulate))
        : "memory");
}

// ---- tcgen05.commit (PTX ISA "tcgen05.commit"): the mbarrier at `mbar` (a shared::cta
// address, valid as shared::cluster for the own CTA) receives one arrive once
// every tcgen05.mma this thread issued before has completed. Also frees the
// smem operands: the commit is how a consumer says "buffer empty".
template <int G>
TCGEMM_DEVICE void tcgen05_commit(uint32_t mbar) {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(mbar) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(mbar) : "memory");
}

// .multicast::cluster: the arrive goes to the mbarrier at the same shared
// memory offset in every CTA of the cluster whose bit is set in cta_mask --
// how the pair's MMA issuer tells both CTAs that their operands are consumed
// and their accumulators ready. (So both CTAs must lay out their barriers
// identically.)
template <int G>
TCGEMM_DEVICE void tcgen05_commit_multicast(uint32_t mbar, uint16_t cta_mask) {
  TCGEMM_CTA_GROUP_ASSERT(G);
  if constexpr (G == 1)
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(mbar),
        "h"(cta_mask)
        : "memory");
  else
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(mbar),
        "h"(cta_mask)
        : "memory");
}

// ---- TMEM -> registers (PTX ISA "tcgen05.ld"; "Matrix fragments
// for tcgen05.ld/st", shape .32x32b), shape .32x32b: warp w of
// a warpgroup reads TMEM lanes 32*(w%4) .. +31, one lane per thread, and .x32
// gives each thread 32 consecutive 32-bit columns from taddr's column.
// Asynchronous: the registers are valid only after tcgen05.wait::ld.
TCGEMM_DEVICE void tcgen05_ld_32x32b_x32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
      "%15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
        "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
        "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
        "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr));
}

// PTX ISA "tcgen05.wait": every prior tcgen05.ld of this thread is complete.
TCGEMM_DEVICE void tcgen05_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

// ---- Fences (PTX ISA "tcgen05.fence"; "Memory consistency
// model for 5th generation of TensorCore operations"): order tcgen05 operations against
// thread synchronisation (mbarrier waits, bar.sync, cluster barriers).
// before_thread_sync: my earlier tcgen05 ops happen before the sync I do next.
// after_thread_sync: my later tcgen05 ops happen after the sync I just did.
TCGEMM_DEVICE void tcgen05_fence_before_thread_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
TCGEMM_DEVICE void tcgen05_fence_after_thread_sync() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// ---- TMA loads of a CTA pair (PTX ISA "cp.async.bulk.tensor", .cta_group::2,
// sm_100a): the box lands in this CTA's shared memory at dst as usual, but
// the complete_tx goes to an mbarrier that may live in the peer CTA --
// `cluster_bar` is a shared::cluster address, e.g. from mapa_shared(bar, 0)
// for the even CTA's barrier. The 2-SM kernels use it so that the one thread
// issuing the pair's MMAs waits on one local barrier for both CTAs' bytes.
TCGEMM_DEVICE void tma_load_2d_cta_pair(uint32_t dst, const void* map, uint32_t cluster_bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(map), "r"(cluster_bar), "r"(c0), "r"(c1)
      : "memory");
}

#undef TCGEMM_CTA_GROUP_ASSERT

}  // namespace tcgemm::ptx
