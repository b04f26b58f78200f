// The Hopper family's time model behind `auto` (heuristics.cpp says how it
// is built).
#pragma once
#include "tcgemm/types.h"

namespace tcgemm {

// Each kernel's estimated time in K tiles of a 128x256 tile on one SM. The
// split-K configurations (splitk, mcast and the 128x192 ones) are costed with
// the split plan their policy takes for the shape (a split tail, every tile
// split, or none). Pure, host-tested.
struct Sm90Costs {
  bool misaligned = false;  // operand rows start 16 bytes into a 32-byte sector
  double persistent = 0, mcast = 0, pingpong = 0, splitk = 0;
  double splitk192 = 0, mcast192 = 0;  // sm90.ws_splitk.n192, sm90.ws_mcast.n192
  double mcast2x2 = 0;                 // sm90.ws_mcast.2x2
};
Sm90Costs sm90_costs(const GemmArgs& args, int sms);

}  // namespace tcgemm
