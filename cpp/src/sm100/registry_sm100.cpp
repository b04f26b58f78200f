// Registry entries of the Blackwell family (seed 002's tcgen05 ladder and
// past it), in ladder order. No sm_100 GPU is available to this project: the
// kernels are compiled for sm_100a, their SASS is checked for the tcgen05 /
// TMEM / TMA instructions (tests/sass), and every pure function they use is
// host-tested (tests/cpp/test_sm100_*) -- but they have never run. The
// descriptions say so, and kernels() shows it.
#include "core/families.h"
#include "sm100/launch.h"

namespace tcgemm {

std::vector<KernelInfo> sm100_kernels() {
  const std::vector<int> sass = built_ccs({"100a"});
  const unsigned dtypes = bit(DType::f16) | bit(DType::bf16);
  const unsigned layouts = bit(Layout::NN) | bit(Layout::TN);
  const unsigned accums = bit(Accum::f32);
#define TCGEMM_NOT_RUN " -- compiled, not run: no sm_100 GPU available"
  struct Step {
    const char* name;
    const char* idea;
    int tile_m, tile_n, tile_k, stages;
    LaunchFn fn;
  };
#if TCGEMM_BUILD_SM100
#define TCGEMM_FN(step) &sm100::launch_##step
#else
#define TCGEMM_FN(step) nullptr
#endif
  // Each entry is named after its file: sm100.<file stem>, the ladder number first (v6_persistent.cu).
  const Step steps[] = {
      {"sm100.v1a_basic",
       "tcgen05.mma into TMEM, 2-D 16-byte-wide TMA per K slice, unswizzled core-matrix descriptors, "
       "commit to mbarrier, tcgen05.ld epilogue" TCGEMM_NOT_RUN,
       128, 128, 64, 1, TCGEMM_FN(v1a)},
      {"sm100.v1b_tma3d", "+ one 3-D TMA box per operand and K slice" TCGEMM_NOT_RUN, 128, 128, 64, 1, TCGEMM_FN(v1b)},
      {"sm100.v2a_swizzle128",
       "128-byte-wide 2-D TMA with 128B swizzle, descriptor swizzle mode 2" TCGEMM_NOT_RUN, 128, 128, 128, 1,
       TCGEMM_FN(v2a)},
      {"sm100.v2b_swizzle128_3d",
       "+ one 3-D 128B-swizzled TMA box per operand and K slice" TCGEMM_NOT_RUN, 128, 128, 128, 1, TCGEMM_FN(v2b)},
      {"sm100.v3_pipeline",
       "multi-stage mbarrier pipeline (full/empty ring), 128x256 tile" TCGEMM_NOT_RUN, 128, 256, 64, 4, TCGEMM_FN(v3)},
      {"sm100.v4_warp_specialized",
       "warp specialization: TMA warp, MMA warp, separate phases per role" TCGEMM_NOT_RUN, 128, 256, 64, 4,
       TCGEMM_FN(v4)},
      {"sm100.v5_two_sm",
       "2-SM MMA: CTA-pair clusters, cta_group::2, multicast commit, mapa peer barriers, M-first pairing" TCGEMM_NOT_RUN,
       256, 256, 64, 6, TCGEMM_FN(v5)},
      {"sm100.v6_persistent",
       "persistent, static schedule, double-buffered TMEM: epilogue warps overlap the next tile" TCGEMM_NOT_RUN, 256,
       256, 64, 6, TCGEMM_FN(v6)},
      {"sm100.v7_clc",
       "Cluster Launch Control (dynamic persistent scheduling) + grouped L2 raster" TCGEMM_NOT_RUN, 256, 256, 64, 6,
       TCGEMM_FN(v7)},
      {"sm100.v8_tma_store",
       "+ TMA-store epilogue: TMEM -> registers -> 128B-swizzled double-buffered shared staging -> "
       "cp.async.bulk.tensor store, clipped at the edges" TCGEMM_NOT_RUN,
       256, 256, 64, 6, TCGEMM_FN(v8)},
  };
#undef TCGEMM_FN
#undef TCGEMM_NOT_RUN
  std::vector<KernelInfo> v;
  for (const Step& s : steps)
    v.push_back(KernelInfo{s.name, "sm100", s.idea, 100, dtypes, layouts, accums, s.tile_m, s.tile_n, s.tile_k,
                           s.stages, s.fn, sass, kEpilogue});
  return v;
}

}  // namespace tcgemm
