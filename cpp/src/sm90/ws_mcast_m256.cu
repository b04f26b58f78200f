// Registry entry sm90.ws_mcast.m256 -- ws_mcast's other orientation: 256 x
// 128 tiles (each consumer two m64 row blocks, m64n128k16, 128 accumulator
// registers) in clusters of 1 x 2 CTAs along N, which share the A tile (each
// loads 128 of its 256 rows and multicasts them), and ws_splitk's split tail.
// The tile cuBLAS picks where a shape's 256 x 128 tiles make whole waves and
// the 128 x 256 ones do not (docs/hopper.md). Compiled, not run.
#include "sm90/launch.h"
#include "sm90/launch_ws.cuh"

namespace tcgemm::sm90 {

constexpr WsConfig kMcastM256{.tile_n = 128,
                              .stages = 4,
                              .cluster_n = 2,
                              .schedule = Schedule::split_k,
                              .store = Store::tma,
                              .m_blocks = 2};
using McastM256 = WsTraits<kMcastM256>;
static_assert(McastM256::BM == 256 && McastM256::a_mask(0) == 0b11, "256-row tiles, A to both CTAs of the row");
static_assert(McastM256::STAGE_BYTES == 48 * 1024, "a stage: 256 + 128 rows of 128 bytes, as ws_mcast's");

Status launch_ws_mcast_m256(const GemmArgs& a) { return launch_ws_variant<McastM256>(a); }

Status workspace_ws_mcast_m256(const GemmArgs& a, size_t* bytes) { return workspace_bytes<McastM256>(a, bytes); }

}  // namespace tcgemm::sm90
