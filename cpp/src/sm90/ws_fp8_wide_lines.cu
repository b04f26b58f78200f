// Registry entry sm90.ws_fp8.wide.lines -- sm90.ws_fp8.wide on operands
// first copied to rows of whole 128-byte lines where they are not (lines.h).
#include "sm90/launch_lines.h"

namespace tcgemm::sm90 {

Status launch_ws_fp8_wide_lines(const GemmArgs& a) { return launch_lines<launch_ws_fp8_wide>(a); }

}  // namespace tcgemm::sm90
