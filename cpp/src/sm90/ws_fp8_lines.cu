// Registry entries sm90.ws_fp8.pingpong.lines, sm90.ws_fp8.wide.lines,
// sm90.ws_fp8.promoted.overlap.lines, sm90.ws_fp8.promoted.wide.lines -- the
// kernel of the entry without `.lines`, its operands first copied to rows of
// whole 128-byte lines where they are not (lines.h says why and when). Host
// code only: the copy is core's copy_matrices, the GEMM the wrapped entry's
// launch, both on the caller's stream, so the pair is captured as one.
#include "core/launch_check.h"
#include "core/workspace.h"
#include "sm90/launch.h"
#include "sm90/lines.h"
#include "tcgemm/copy.h"

#include <string>

namespace tcgemm::sm90 {
namespace {

// The workspace: the caller's when given (its allocator's memory), else
// stream-ordered scratch from tcgemm's pool, freed on the stream after the
// GEMM (core/workspace.h) -- neither synchronises.
template <Status (*Gemm)(const GemmArgs&)>
Status launch_lines(const GemmArgs& a) {
  const LinesPlan plan = lines_plan(a);
  if (!plan.copy_a && !plan.copy_b) return Gemm(a);
  void* ws = nullptr;
  const bool pooled = a.workspace == nullptr;
  if (!pooled) {
    if (a.workspace_bytes < plan.bytes)
      return Status::Error(StatusCode::invalid_argument, "workspace of " + std::to_string(a.workspace_bytes) +
                                                             " bytes; this launch needs " + std::to_string(plan.bytes));
    ws = a.workspace;
  } else {
    TCGEMM_TRY(workspace_alloc(plan.bytes, a.stream, &ws));
  }
  // copy_matrices moves 2-byte elements: an FP8 row (K a multiple of 16) is K / 2 of them.
  char* base = static_cast<char*>(ws);
  GemmArgs g = a;
  g.workspace = nullptr, g.workspace_bytes = 0;  // the wrapped kernels need none of their own
  MatrixCopy copies[2];
  int n = 0;
  if (plan.copy_a) {
    copies[n++] = MatrixCopy{a.A, base + plan.a_offset, a.M, a.K / 2, 1, a.lda / 2, 1, 0, plan.pitch / 2, 1, 0};
    g.A = base + plan.a_offset, g.lda = plan.pitch;
  }
  if (plan.copy_b) {
    copies[n++] = MatrixCopy{a.B, base + plan.b_offset, a.N, a.K / 2, 1, a.ldb / 2, 1, 0, plan.pitch / 2, 1, 0};
    g.B = base + plan.b_offset, g.ldb = plan.pitch;
  }
  Status s = copy_matrices(copies, n, a.stream);
  if (s.ok()) s = Gemm(g);
  if (pooled) {
    const Status f = workspace_free(ws, a.stream);
    if (s.ok()) s = f;
  }
  return s;
}

}  // namespace

Status launch_ws_fp8_pingpong_lines(const GemmArgs& a) { return launch_lines<launch_ws_fp8_pingpong>(a); }
Status launch_ws_fp8_wide_lines(const GemmArgs& a) { return launch_lines<launch_ws_fp8_wide>(a); }
Status launch_ws_fp8_promoted_overlap_lines(const GemmArgs& a) {
  return launch_lines<launch_ws_fp8_promoted_overlap>(a);
}
Status launch_ws_fp8_promoted_wide_lines(const GemmArgs& a) { return launch_lines<launch_ws_fp8_promoted_wide>(a); }

Status workspace_ws_fp8_lines(const GemmArgs& a, size_t* bytes) {
  *bytes = lines_workspace_bytes(a);
  return Status::Ok();
}

}  // namespace tcgemm::sm90
