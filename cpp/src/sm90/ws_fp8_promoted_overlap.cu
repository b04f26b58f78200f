// Registry entry sm90.ws_fp8.promoted.overlap -- ws_fp8.promoted with its
// promotion under the consumer's own wgmmas (Promotion::overlapped): two
// fresh sums take turns, block kt's wgmmas running while block kt-1's sum is
// added (ws_kernel_body.inc).
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PromotedOverlap{.tile_n = 128,
                                       .stages = 6,
                                       .schedule = Schedule::data_parallel,
                                       .store = Store::direct,
                                       .fp8 = Fp8::e4m3_e4m3,
                                       .scaling = Scaling::epilogue,
                                       .promotion = Promotion::overlapped};

Status launch_ws_fp8_promoted_overlap(const GemmArgs& a) { return launch_ws_scaled<kFp8PromotedOverlap>(a); }

}  // namespace tcgemm::sm90
