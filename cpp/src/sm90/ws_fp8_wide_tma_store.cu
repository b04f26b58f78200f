// Registry entry sm90.ws_fp8.wide.tma_store -- ws_fp8.wide with the
// TMA-store epilogue (two 64x64 boxes a consumer, 32 KB beside the four
// 48 KB stages: 225.5 of 227 KB). On rows of part lines ws_fp8.splitk (the
// same 128x256 tile with no cluster, stored through TMA) is 1.25x .wide
// where its last wave is nearly whole (7232x5744x7840,
// bench/results/h100_fp8_tiles.md); the two differ in the cluster and in the
// store, and this entry keeps the cluster and takes the store, to tell which
// costs. bf16 / fp16 output, as the TMA store's 16-bit boxes write.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8WideTmaStore{.tile_n = 256,
                                    .stages = 4,
                                    .cluster_m = 2,
                                    .schedule = Schedule::data_parallel,
                                    .store = Store::tma,
                                    .fp8 = Fp8::e4m3_e4m3,
                                    .scaling = Scaling::epilogue};

Status launch_ws_fp8_wide_tma_store(const GemmArgs& a) { return launch_ws_scaled<kFp8WideTmaStore>(a); }

}  // namespace tcgemm::sm90
