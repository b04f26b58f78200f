// Registry entries sm90.ws_splitk.n192 and sm90.ws_mcast.n192 -- see
// ws_gemm.cuh: ws_splitk's and ws_mcast's configurations with 128x192 tiles.
#include "sm90/launch.h"
#include "sm90/ws_gemm.cuh"

namespace tcgemm::sm90 {

// 4 stages of 40 KB (a fifth would pass the 227 KB beside the staging boxes);
// persistent, grouped raster of 8 rows, TMA-store epilogue, the split-tail
// policy. Mcast192 adds ws_mcast's 2-CTA clusters along M multicasting B
// (TN: 96 rows per CTA; NN: the tile's three 64-column boxes as 2 + 1).
using SplitK192 = WsConfig<192, 4, true, 1, 8, true, 2, true>;
using Mcast192 = WsConfig<192, 4, true, 2, 8, true, 2, true>;

Status launch_ws_splitk_n192(const GemmArgs& a) { return launch_ws_variant<SplitK192>(a); }
Status workspace_ws_splitk_n192(const GemmArgs& a, size_t* bytes) { return ws_workspace_bytes<SplitK192>(a, bytes); }

Status launch_ws_mcast_n192(const GemmArgs& a) { return launch_ws_variant<Mcast192>(a); }
Status workspace_ws_mcast_n192(const GemmArgs& a, size_t* bytes) { return ws_workspace_bytes<Mcast192>(a, bytes); }

}  // namespace tcgemm::sm90
