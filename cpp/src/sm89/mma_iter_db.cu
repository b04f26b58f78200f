// Registry entry sm89.mma_iter_db.s3 -- see mma_sync_gemm.cuh for the ladder.
#include "sm89/launch.h"
#include "sm89/mma_sync_gemm.cuh"

namespace tcgemm::sm89 {

// mma_iter with double-buffered fragments (Config::FRAG_DBUF).
Status launch_mma_iter_db_s3(const GemmArgs& a) {
  return launch_variant<Config<128, 128, 64, 2, 2, 3, true, true, true, 2, true, true>>(a);
}

}  // namespace tcgemm::sm89
