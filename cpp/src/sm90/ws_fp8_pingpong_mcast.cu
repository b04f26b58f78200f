// Registry entry sm90.ws_fp8.pingpong.mcast -- ws_fp8.pingpong in ws_fp8.mcast's
// 2-CTA clusters along M: the two CTAs of a cluster work on vertically
// adjacent 128x128 tiles in step, each loads half of their shared B tile and
// multicasts it to both, and in each CTA the same consumer owns the pair's
// tile. A stage then asks the L2 for 24 KB instead of 32: on rows that start
// 16 bytes into a sector, both sides 1312 or more, ping-pong alone runs at
// 0.58-0.78 of its speed on copies of them at whole lines, copy included
// (bench/results/h100_fp8_lines.md), where the 128x256 tiles in the same
// clusters lose far less.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kFp8PingPongMcast{.tile_n = 128,
                                     .stages = 5,
                                     .math = Math::ping_pong,
                                     .cluster_m = 2,
                                     .schedule = Schedule::data_parallel,
                                     .store = Store::tma,
                                     .fp8 = Fp8::e4m3_e4m3,
                                     .scaling = Scaling::epilogue};

Status launch_ws_fp8_pingpong_mcast(const GemmArgs& a) { return launch_ws_scaled<kFp8PingPongMcast>(a); }

}  // namespace tcgemm::sm90
