// The scale warp's hand-off alone (sm90/ws_kernel_body.inc, BlockScaleLoads::scale_warp), beside two
// reference hand-offs, each checked for the data the consumers read. A producer warp fills a ring of
// shared-memory slots from global memory; two consumer warps read each slot and free it:
//
//   noinc:   cp.async, then cp.async.mbarrier.arrive.noinc on the slot's full barrier (the scale warp's)
//   waited:  cp.async, committed and waited for (cp.async.wait_group 0), then mbarrier.arrive (release)
//   stored:  ld.global + st.shared, then mbarrier.arrive (release)
//
// and every consumer warp reads, __syncwarp()s and has its leader arrive on the slot's empty barrier,
// which the producer waits on before it fills the slot again -- as the scale warp and the consumers do.
//
// Run with a mode's name (noinc, waited, stored) it runs that hand-off alone, so that
// `compute-sanitizer --tool racecheck test_gpu_handoff <mode>` tells the hand-offs apart
// (tests/sanitize.sh): the three are correct by the PTX memory model, and a hazard racecheck reports for
// one and not the others is how it models that hand-off. Without an argument every mode runs. sm_90a
// SASS only: skips (exit 77) where there is no CUDA device of compute capability 9.0.
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"
#include "ptx/common.h"
#include "ptx/cp_async.h"
#include "ptx/mbarrier.h"

namespace {

constexpr int kSlots = 4, kIters = 256, kConsumerWarps = 2, kLanes = 32;
enum Mode { kNoinc, kWaited, kStored };
const char* const kModeNames[] = {"noinc", "waited", "stored"};

__global__ void handoff(const float* src, float* sums, int mode) {
  __shared__ __align__(16) float slot[kSlots][kLanes];
  __shared__ __align__(8) uint64_t full[kSlots], empty[kSlots];
  using namespace tcgemm::ptx;
  const int warp = threadIdx.x / kLanes, lane = threadIdx.x % kLanes;
  if (threadIdx.x == 0)
    for (int s = 0; s < kSlots; ++s) {
      mbarrier_init(smem_addr(&full[s]), kLanes);  // every producer lane arrives
      mbarrier_init(smem_addr(&empty[s]), kConsumerWarps);  // every consumer warp's leader arrives
    }
  __syncthreads();
  if (warp == kConsumerWarps) {  // the producer warp
    for (int i = 0; i < kIters; ++i) {
      const int s = i % kSlots;
      const uint32_t phase = (i / kSlots) & 1;
      mbarrier_wait_parity(smem_addr(&empty[s]), phase ^ 1);  // the first round passes at once
      const uint32_t dst = smem_addr(&slot[s][lane]);
      const float* from = src + i * kLanes + lane;
      if (mode == kStored) {
        st_shared_f32(dst, *from);
        mbarrier_arrive(smem_addr(&full[s]));
      } else {
        cp_async_ca_4(dst, from);
        if (mode == kNoinc) {
          cp_async_mbarrier_arrive_noinc(smem_addr(&full[s]));
        } else {
          cp_async_commit_group();
          cp_async_wait_group<0>();
          mbarrier_arrive(smem_addr(&full[s]));
        }
      }
    }
  } else {  // the consumer warps
    float sum = 0.f;
    for (int i = 0; i < kIters; ++i) {
      const int s = i % kSlots;
      mbarrier_wait_parity(smem_addr(&full[s]), (i / kSlots) & 1);
      sum += ld_shared_f32(smem_addr(&slot[s][lane]));
      __syncwarp();  // every lane's read before the leader frees the slot
      if (lane == 0) mbarrier_arrive(smem_addr(&empty[s]));
    }
    sums[threadIdx.x] = sum;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 0, major = 0, minor = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device found; GPU tests need one\n");
    return 77;
  }
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess);
  CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) == cudaSuccess);
  if (major != 9 || minor != 0) {
    std::printf("SKIP: built for sm_90a only, the device is %d.%d\n", major, minor);
    return 77;
  }
  // Slot i, lane l holds i * 64 + l: a slot read a round early or late changes the sum.
  std::vector<float> host(kIters * kLanes);
  for (int i = 0; i < kIters; ++i)
    for (int l = 0; l < kLanes; ++l) host[i * kLanes + l] = static_cast<float>(i * 64 + l);
  float *src = nullptr, *sums = nullptr;
  CHECK(cudaMalloc(&src, host.size() * sizeof(float)) == cudaSuccess);
  CHECK(cudaMalloc(&sums, kConsumerWarps * kLanes * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemcpy(src, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  int ran = 0;
  for (int mode = kNoinc; mode <= kStored; ++mode) {
    if (argc > 1 && std::strcmp(argv[1], kModeNames[mode]) != 0) continue;
    ++ran;
    CHECK(cudaMemset(sums, 0xff, kConsumerWarps * kLanes * sizeof(float)) == cudaSuccess);  // NaN
    handoff<<<1, (kConsumerWarps + 1) * kLanes>>>(src, sums, mode);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    float got[kConsumerWarps * kLanes];
    CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int t = 0; t < kConsumerWarps * kLanes; ++t) {
      const float want = 64.f * (kIters * (kIters - 1) / 2) + static_cast<float>(kIters * (t % kLanes));
      CHECK_MSG(got[t] == want, "%s: thread %d summed %.1f, want %.1f", kModeNames[mode], t, got[t], want);
    }
    std::printf("test_gpu_handoff: %s checked\n", kModeNames[mode]);
  }
  CHECK_MSG(ran > 0, "unknown mode '%s' (noinc, waited, stored)", argc > 1 ? argv[1] : "");
  CHECK(cudaFree(src) == cudaSuccess && cudaFree(sums) == cudaSuccess);
  return finish("test_gpu_handoff");
}
