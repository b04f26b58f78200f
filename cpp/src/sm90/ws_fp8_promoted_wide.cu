// Registry entry sm90.ws_fp8.promoted.wide -- ws_fp8.promoted on ws_fp8.wide's
// tiles: 128 x 256 with 2-CTA clusters along M sharing (multicasting) the B
// tile, so each byte a stage brings feeds twice the wgmma work of a 128 x 128
// tile. A whole-width fresh sum would take 128 registers beside the 128 of
// the accumulators, so each 128-K block is summed afresh one 128-column part
// at a time (WsTraits::FRESH_N, ws_kernel_body.inc), each part's sum waited on
// and added before the next is issued.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PromotedWide{.tile_n = 256,
                                    .stages = 4,
                                    .cluster_m = 2,
                                    .schedule = Schedule::data_parallel,
                                    .store = Store::direct,
                                    .fp8 = Fp8::e4m3_e4m3,
                                    .scaling = Scaling::epilogue,
                                    .promotion = Promotion::per_block};

Status launch_ws_fp8_promoted_wide(const GemmArgs& a) { return launch_ws_scaled<kFp8PromotedWide>(a); }

}  // namespace tcgemm::sm90
