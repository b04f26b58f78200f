// Registry entry sm90.ws_streamk -- sm90.ws_persistent with the stream-K
// tile scheduler (sched/stream_k.h): whole waves of tiles run as
// ws_persistent's; the last waves' MAC-loop iterations are shared evenly
// by the resident CTAs, so a tile's K range may be cut between consecutive
// CTAs, and the CTA holding a tile's last K tile adds its peers' fp32
// partials in a fixed order (epilogue_stream_k.cuh) before the TMA-store
// epilogue. One kernel, no reduction launch; the workspace holds a flag per
// CTA and consumer and a partial tile per streaming CTA.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

// ws_persistent's tile and ring: 128x256, 4 stages of 48 KB, TMA-store staging.
constexpr WsConfig kStreamK{.tile_n = 256, .stages = 4, .schedule = Schedule::stream_k, .store = Store::tma};

Status launch_ws_streamk(const GemmArgs& a) { return launch_ws_variant<WsTraits<kStreamK>>(a); }

Status workspace_ws_streamk(const GemmArgs& a, size_t* bytes) { return workspace_bytes<WsTraits<kStreamK>>(a, bytes); }

}  // namespace tcgemm::sm90
