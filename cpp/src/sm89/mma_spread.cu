// Registry entries sm89.mma_spread{,_8w}.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// mma_iter_db with the next slice's copies spread over the k16 steps
// (Config::SPREAD_COPIES): two 4-warp 128x128x64 blocks per SM, and one
// 8-warp 128x256x64 block (mma_iter_8w_db's).
Status launch_mma_spread_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 3, true, true, true, 2, true, true, true>>(a);
}
Status launch_mma_spread_8w_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 256, 64, 2, 4, 3, true, true, true, 1, true, true, true>>(a);
}

}  // namespace tcgemm::sm89
