// Warpgroup-level controls (sm_90+): register reallocation between
// warpgroups and named barriers over a subset of the CTA's warps.
// PTX ISA: "Miscellaneous Instructions: setmaxnreg" and "Parallel
// Synchronization and Communication Instructions: bar.sync".
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// setmaxnreg.dec / .inc: every warp of a warpgroup changes its per-thread
// register budget to N (24..256, a multiple of 8). A producer warpgroup that
// only issues TMA gives registers back (dec) so the consumer warpgroups can
// hold their big accumulator tiles (inc). Requires the kernel to be compiled
// with a max-threads bound (__launch_bounds__) so the starting budget is known.
template <int N>
TCGEMM_DEVICE void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N>
TCGEMM_DEVICE void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// bar.sync id, count: a barrier over `count` threads (a multiple of 32) that
// use named barrier `id` (1..15; 0 is __syncthreads).
TCGEMM_DEVICE void named_barrier_sync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// bar.arrive id, count: count this thread in without waiting (the other
// side of a producer/consumer handshake whose waiters use bar.sync).
TCGEMM_DEVICE void named_barrier_arrive(uint32_t id, uint32_t count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

}  // namespace tcgemm::ptx
