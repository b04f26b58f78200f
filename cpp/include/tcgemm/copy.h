// Strided copies of 2-byte matrices, several in one launch.
//
// The GEMM kernels read rows that are 16 bytes apart and start 16 bytes in (TMA global strides,
// cp.async chunks). An operand that is not -- a leading dimension that is no multiple of 8
// elements, an odd start, a column-major A, a view with a zero or negative stride -- is staged:
// copied into a padded row-major buffer before the GEMM, and a padded result copied out after it.
// copy_matrices does every copy of one direction in a single launch, so a call with ragged
// operands costs the GEMM plus two launches, whatever the number of operands staged.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "tcgemm/status.h"

namespace tcgemm {

// dst(b, r, c) = src(b, r, c) for b < batch, r < rows, c < cols; element strides, any sign.
struct MatrixCopy {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, batch = 1;
  int64_t src_row = 0, src_col = 1, src_batch = 0;
  int64_t dst_row = 0, dst_col = 1, dst_batch = 0;
};

inline constexpr int kMaxMatrixCopies = 4;

// The checks alone (pure, host-tested): 0..kMaxMatrixCopies copies, sizes >= 0, 2-byte aligned
// non-null pointers for a copy with elements.
Status check_copies(const MatrixCopy* copies, int count);

// The kernel indexes a copy's 8-element chunks in 32 bits: at most this many per launch.
inline constexpr int64_t kMaxCopyChunks = int64_t{1} << 31;

// A copy of more than `max_chunks` chunks as pieces of at most that many, cut by matrices, then
// by rows, then (a row of more) by columns in multiples of 8; appended to `pieces` (pure,
// host-tested: the pieces move every element once).
void split_copy(const MatrixCopy& m, int64_t max_chunks, std::vector<MatrixCopy>* pieces);

// Checks, then enqueues one kernel on `stream` that does all `count` copies (nothing when every
// copy is empty; a copy over kMaxCopyChunks goes in pieces, a launch per kMaxMatrixCopies of
// them). Overlapping source and destination are not supported.
Status copy_matrices(const MatrixCopy* copies, int count, cudaStream_t stream);

}  // namespace tcgemm
