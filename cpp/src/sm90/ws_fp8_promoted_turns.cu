// Registry entry sm90.ws_fp8.promoted.turns -- ws_fp8.promoted with its two
// consumers issuing their wgmmas in turn (Promotion::in_turn): one's block
// sum is added while the other's wgmmas run.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PromotedTurns{.tile_n = 128,
                                     .stages = 6,
                                     .schedule = Schedule::data_parallel,
                                     .store = Store::direct,
                                     .fp8 = Fp8::e4m3_e4m3,
                                     .scaling = Scaling::epilogue,
                                     .promotion = Promotion::in_turn};

Status launch_ws_fp8_promoted_turns(const GemmArgs& a) { return launch_ws_scaled<kFp8PromotedTurns>(a); }

}  // namespace tcgemm::sm90
