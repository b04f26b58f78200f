// Registry entry sm90.ws_fp8.block.wide.turns -- ws_fp8.block.wide with its
// two consumers issuing each part's wgmmas in turn (Promotion::in_turn): one's
// part is scaled and added while the other's wgmmas run.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8BlockWideTurns{.tile_n = 256,
                                      .stages = 4,
                                      .cluster_m = 2,
                                      .schedule = Schedule::data_parallel,
                                      .store = Store::direct,
                                      .fp8 = Fp8::e4m3_e4m3,
                                      .scaling = Scaling::block,
                                      .promotion = Promotion::in_turn};

Status launch_ws_fp8_block_wide_turns(const GemmArgs& a) { return launch_ws_scaled<kFp8BlockWideTurns>(a); }

}  // namespace tcgemm::sm90
