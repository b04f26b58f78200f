// The `.lines` entries' copy plan (lines.h): host code, compiled in every
// build so that it is tested without a GPU.
#include "sm90/lines.h"

namespace tcgemm::sm90 {

namespace {
constexpr int64_t kAlign = 256;  // each copy's start from the workspace's
}

LinesPlan lines_plan(const GemmArgs& a) {
  LinesPlan p;
  p.pitch = round_up(a.K, kLineBytes);
  const bool part_lines = a.K % kLineBytes != 0;
  p.copy_a = part_lines && a.lda % kLineBytes != 0;
  p.copy_b = part_lines && a.ldb % kLineBytes != 0;
  p.a_offset = 0;
  p.b_offset = static_cast<size_t>(round_up(a.M * p.pitch, kAlign));
  p.bytes = part_lines ? p.b_offset + static_cast<size_t>(round_up(a.N * p.pitch, kAlign)) : 0;
  return p;
}

size_t lines_workspace_bytes(const GemmArgs& a) { return lines_plan(a).bytes; }

Status workspace_ws_fp8_lines(const GemmArgs& a, size_t* bytes) {
  *bytes = lines_workspace_bytes(a);
  return Status::Ok();
}

}  // namespace tcgemm::sm90
