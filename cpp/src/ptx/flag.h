// GPU-scope flags between CTAs of one grid (stream-K's fix-up,
// sm90/epilogue_stream_k.cuh): a release that publishes a CTA's earlier
// global writes, an acquire that orders a CTA's later reads after it
// (PTX ISA: "Memory Consistency Model", release and acquire patterns;
// red, ld with .release / .acquire and .gpu scope).
#pragma once
#include "ptx/common.h"

namespace tcgemm::ptx {

// red.release.gpu.global.add.s32: *flag += v, after every write this
// thread has observed (its own, and its CTA's before a bar.sync: causality
// order is transitive) is visible at GPU scope.
TCGEMM_DEVICE void red_release_gpu_add(int* flag, int v) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(flag), "r"(v) : "memory");
}

// ld.acquire.gpu.global.s32: reads *flag; this thread's later reads (and,
// after a bar.sync, its CTA's) see every write the matching release published.
TCGEMM_DEVICE int ld_acquire_gpu(const int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

}  // namespace tcgemm::ptx
