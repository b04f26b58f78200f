// The launch of a `.lines` entry (lines.h says why and when it copies): the
// copies of its operands into the workspace at a pitch of whole 128-byte
// lines, then the wrapped entry's launch on them. Host code: the copy is
// core's copy_matrices, the GEMM the wrapped launch, both on the caller's
// stream, so a graph captures the pair.
#pragma once
#include <string>

#include "core/launch_check.h"
#include "core/workspace.h"
#include "sm90/launch.h"
#include "sm90/lines.h"
#include "tcgemm/copy.h"

namespace tcgemm::sm90 {

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

}  // namespace tcgemm::sm90
