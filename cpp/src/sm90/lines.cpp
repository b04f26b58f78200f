// The `.lines` entries' copy plan (lines.h): host code, compiled in every
// build so that it is tested without a GPU.
#include "sm90/lines.h"

#include <cstdint>

namespace tcgemm::sm90 {

namespace {
constexpr int64_t kAlign = 256;  // each copy's start from the workspace's

bool off_lines(const void* p, int64_t ld) {
  return ld % kLineBytes != 0 || reinterpret_cast<uintptr_t>(p) % kLineBytes != 0;
}
}  // namespace

LinesPlan lines_plan(const GemmArgs& a) {
  LinesPlan p;
  p.pitch = round_up(a.K, kLineBytes);
  const bool part_lines = a.K % kLineBytes != 0 && a.K % 2 == 0;
  p.copy_a = part_lines && off_lines(a.A, a.lda);
  p.copy_b = part_lines && off_lines(a.B, a.ldb);
  p.a_offset = 0;
  p.b_offset = static_cast<size_t>(round_up(a.M * p.pitch, kAlign));
  p.bytes = part_lines ? kLineBytes + p.b_offset + static_cast<size_t>(round_up(a.N * p.pitch, kAlign)) : 0;
  return p;
}

int lines_copies(const GemmArgs& a, const LinesPlan& plan, void* ws, MatrixCopy* copies, GemmArgs* g) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(ws);
  char* base = static_cast<char*>(ws) + (round_up(static_cast<int64_t>(at % kLineBytes), kLineBytes) -
                                         static_cast<int64_t>(at % kLineBytes));
  *g = a;
  g->workspace = nullptr, g->workspace_bytes = 0;  // the wrapped kernels need none of their own
  // copy_matrices moves 2-byte elements: an FP8 row of K bytes (K even) is K / 2 of them.
  int n = 0;
  if (plan.copy_a) {
    copies[n++] = MatrixCopy{a.A, base + plan.a_offset, a.M, a.K / 2, 1, a.lda / 2, 1, 0, plan.pitch / 2, 1, 0};
    g->A = base + plan.a_offset, g->lda = plan.pitch;
  }
  if (plan.copy_b) {
    copies[n++] = MatrixCopy{a.B, base + plan.b_offset, a.N, a.K / 2, 1, a.ldb / 2, 1, 0, plan.pitch / 2, 1, 0};
    g->B = base + plan.b_offset, g->ldb = plan.pitch;
  }
  return n;
}

size_t lines_workspace_bytes(const GemmArgs& a) { return lines_plan(a).bytes; }

Status workspace_ws_fp8_lines(const GemmArgs& a, size_t* bytes) {
  *bytes = lines_workspace_bytes(a);
  return Status::Ok();
}

}  // namespace tcgemm::sm90
