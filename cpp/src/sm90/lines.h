// FP8 operands read as whole 128-byte lines: the `.lines` entries
// (ws_fp8_*_lines.cu, launch_lines.h).
//
// An FP8 stage loads, per operand row, one 128-byte TMA box row (128 k). Rows
// a multiple of 128 bytes apart start every box row at a line of the L2;
// at any other pitch each box row straddles two lines (at K % 32 == 16 also
// two sectors at each end), and the L2 serves more requests per byte. A
// `.lines` entry first copies each operand whose rows are not whole lines
// apart into its workspace at a pitch of whole lines -- both copies in one
// copy_matrices launch -- and runs its kernel on the copies. The bytes past
// K in each copied row are never written and never read: TMA fills a box's
// columns past the tensor's K with zeros, as it does for every K tail.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tcgemm/copy.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm::sm90 {

inline constexpr int64_t kLineBytes = 128;

// Where a `.lines` launch puts its copies. Offsets are bytes from the
// workspace's first line boundary (a caller's workspace need only be 16-byte
// aligned: the plan reserves a line more), 256 bytes apart at least; the
// copies' rows are whole lines only if their start is one.
struct LinesPlan {
  int64_t pitch = 0;  // bytes (FP8 elements) between a copy's rows: K rounded up to whole lines
  bool copy_a = false, copy_b = false;
  size_t a_offset = 0, b_offset = 0;
  size_t bytes = 0;  // the workspace: a line of slack, A's copy, then B's
};

// The plan for these arguments: an operand is copied when K is not a whole
// number of lines (and is even: the copy moves 2-byte elements) and its rows
// do not start at lines -- a leading dimension (bytes) or a start that is no
// multiple of 128. A K of whole lines is read in place whatever its pitch, so
// that the bytes reserved before the operands are known (lines_workspace_bytes)
// always hold the copies. Pure, host-tested.
LinesPlan lines_plan(const GemmArgs& a);

// The copies of a plan into the workspace at `ws` (its first line boundary
// taken as the base), and in *g the arguments of the GEMM on them -> the
// number of copies (0-2). Pure, host-tested.
int lines_copies(const GemmArgs& a, const LinesPlan& plan, void* ws, MatrixCopy* copies, GemmArgs* g);

// The workspace a `.lines` entry reserves for a shape (KernelInfo::workspace:
// leading dimensions unknown): both copies where K % 128 != 0, else none.
size_t lines_workspace_bytes(const GemmArgs& a);

// KernelInfo::workspace of every `.lines` entry.
Status workspace_ws_fp8_lines(const GemmArgs& a, size_t* bytes);

}  // namespace tcgemm::sm90
