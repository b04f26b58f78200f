// The launch of a `.lines` entry (lines.h says why and when it copies): the
// copies of its operands into the workspace at a pitch of whole 128-byte
// lines, then the wrapped entry's launch on them. Host code: the copy is
// core's copy_matrices, the GEMM the wrapped launch, both on the caller's
// stream, so a graph captures the pair.
#pragma once

#include "core/launch_check.h"
#include "core/workspace.h"
#include "sm90/launch.h"
#include "sm90/lines.h"
#include "tcgemm/copy.h"

namespace tcgemm::sm90 {

// The copies go to the launch's workspace (core/workspace.h: the caller's,
// else tcgemm's pool).
template <Status (*Gemm)(const GemmArgs&)>
Status launch_lines(const GemmArgs& a) {
  const LinesPlan plan = lines_plan(a);
  if (!plan.copy_a && !plan.copy_b) return Gemm(a);
  LaunchWorkspace ws;
  TCGEMM_TRY(ws.acquire(a.workspace, a.workspace_bytes, plan.bytes, a.stream));
  MatrixCopy copies[2];
  GemmArgs g;
  const int n = lines_copies(a, plan, ws.ptr(), copies, &g);
  Status s = copy_matrices(copies, n, a.stream);
  if (s.ok()) s = Gemm(g);
  return ws.release(s);
}

}  // namespace tcgemm::sm90
