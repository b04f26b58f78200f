// Registry entry sm90.ws_fp8.pingpong.lines -- sm90.ws_fp8.pingpong on operands
// first copied to rows of whole 128-byte lines where they are not (lines.h).
#include "sm90/launch_lines.h"

namespace tcgemm::sm90 {

Status launch_ws_fp8_pingpong_lines(const GemmArgs& a) { return launch_lines<launch_ws_fp8_pingpong>(a); }

}  // namespace tcgemm::sm90
