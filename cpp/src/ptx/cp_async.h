// cp.async: asynchronous global -> shared copies (sm_80+).
// PTX ISA: "Data Movement and Conversion Instructions: cp.async".
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// 16-byte copy that bypasses L1 (.cg: GEMM tiles are read once per block, so
// caching them in L1 only evicts useful lines). `src_bytes` < 16 copies that
// many bytes and zero-fills the rest: the edge tiles' predication.
TCGEMM_DEVICE void cp_async_cg_16(uint32_t dst_smem, const void* src, uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst_smem), "l"(src),
               "r"(src_bytes)
               : "memory");
}

// The same for a chunk that is either whole or absent: with `zero_fill`
// nothing is read (PTX: the ignore-src predicate) and 16 zero bytes are
// written, without the address arithmetic a byte count costs (SASS encodes
// it in the source address).
TCGEMM_DEVICE void cp_async_cg_16_or_zero(uint32_t dst_smem, const void* src, bool zero_fill) {
  asm volatile(
      "{\n .reg .pred z;\n setp.ne.b32 z, %2, 0;\n"
      " cp.async.cg.shared.global.L2::128B [%0], [%1], 16, z;\n}\n" ::"r"(dst_smem),
      "l"(src), "r"(static_cast<uint32_t>(zero_fill))
      : "memory");
}

// 4-byte copy through L1 (.ca: the only cache mode for copies under 16
// bytes): a block scale, a word the consumers of one stage read.
TCGEMM_DEVICE void cp_async_ca_4(uint32_t dst_smem, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst_smem), "l"(src) : "memory");
}

// cp.async.mbarrier.arrive.noinc: an arrival on the mbarrier `bar` once every
// cp.async this thread issued before it has landed (sm_80+). .noinc: the
// arrival is one of those the barrier was initialised to expect (init it with
// the number of threads that issue this), rather than one added on top.
TCGEMM_DEVICE void cp_async_mbarrier_arrive_noinc(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

TCGEMM_DEVICE void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
TCGEMM_DEVICE void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace tcgemm::ptx
