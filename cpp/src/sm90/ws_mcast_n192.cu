// Registry entry sm90.ws_mcast.n192 -- sm90.ws_mcast's kernel with 128x192
// tiles (see ws_splitk_n192.cu for the width): 2-CTA clusters along M
// multicasting B (TN: 96 rows per CTA; NN: the tile's three 64-column boxes
// as 2 + 1), the split tail. Chosen by auto's model.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kMcast192{
    .tile_n = 192, .stages = 4, .cluster_m = 2, .schedule = Schedule::split_k, .store = Store::tma};

Status launch_ws_mcast_n192(const GemmArgs& a) { return launch_ws_variant<WsTraits<kMcast192>>(a); }
Status workspace_ws_mcast_n192(const GemmArgs& a, size_t* bytes) {
  return workspace_bytes<WsTraits<kMcast192>>(a, bytes);
}

}  // namespace tcgemm::sm90
