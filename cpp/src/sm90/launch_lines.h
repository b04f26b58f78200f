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
  MatrixCopy copies[2];
  GemmArgs g;
  const int n = lines_copies(a, plan, ws, copies, &g);
  Status s = copy_matrices(copies, n, a.stream);
  if (s.ok()) s = Gemm(g);
  if (pooled) {
    const Status f = workspace_free(ws, a.stream);
    if (s.ok()) s = f;
  }
  return s;
}

}  // namespace tcgemm::sm90
