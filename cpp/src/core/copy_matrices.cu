// copy_matrices: every staging copy of one direction in one launch (tcgemm/copy.h).
//
// One thread moves one 8-element chunk of a row: one 16-byte access on a side whose columns are
// contiguous and whose chunk starts 16-byte aligned (a padded staging buffer always is), eight
// 2-byte accesses otherwise. Threads of a warp take consecutive chunks of a row, unless one side
// is column-major (a transposed view): then they take consecutive rows at one chunk, so that
// side's accesses are still consecutive addresses (64 bytes a warp, coalesced).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/launch_check.h"
#include "tcgemm/copy.h"

namespace tcgemm {
namespace {

struct CopyParams {
  MatrixCopy copy[kMaxMatrixCopies];
  uint32_t items[kMaxMatrixCopies];   // batch * rows * chunks
  uint32_t chunks[kMaxMatrixCopies];  // 8-column chunks of a row
  bool rows_fast[kMaxMatrixCopies];   // consecutive threads take consecutive rows
};

__global__ void copy_matrices_kernel(const __grid_constant__ CopyParams p) {
  const int k = blockIdx.y;
  const MatrixCopy& m = p.copy[k];
  const uint32_t items = p.items[k], chunks = p.chunks[k], rows = static_cast<uint32_t>(m.rows);
  const auto* src = static_cast<const uint16_t*>(m.src);
  auto* dst = static_cast<uint16_t*>(m.dst);
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items; i += gridDim.x * blockDim.x) {
    uint32_t r, ch, b;
    if (p.rows_fast[k]) {
      r = i % rows, ch = (i / rows) % chunks, b = i / rows / chunks;
    } else {
      ch = i % chunks, r = (i / chunks) % rows, b = i / chunks / rows;
    }
    const int64_t c0 = int64_t{ch} * 8;
    const int n = m.cols - c0 < 8 ? static_cast<int>(m.cols - c0) : 8;
    const uint16_t* s = src + b * m.src_batch + r * m.src_row + c0 * m.src_col;
    uint16_t* d = dst + b * m.dst_batch + r * m.dst_row + c0 * m.dst_col;
    union {
      uint4 v;
      uint16_t e[8];
    } x;
    if (n == 8 && m.src_col == 1 && !(reinterpret_cast<uintptr_t>(s) & 15)) {
      x.v = *reinterpret_cast<const uint4*>(s);
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (j < n) x.e[j] = s[j * m.src_col];
    }
    if (n == 8 && m.dst_col == 1 && !(reinterpret_cast<uintptr_t>(d) & 15)) {
      *reinterpret_cast<uint4*>(d) = x.v;
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (j < n) d[j * m.dst_col] = x.e[j];
    }
  }
}

}  // namespace

// One launch for `count` copies, each of at most kMaxCopyChunks chunks.
static Status launch_copies(const MatrixCopy* copies, int count, cudaStream_t stream) {
  CopyParams p{};
  uint32_t most = 0;
  for (int i = 0; i < count; ++i) {
    const MatrixCopy& m = copies[i];
    p.copy[i] = m;
    const bool empty = m.rows == 0 || m.cols == 0 || m.batch == 0;
    p.chunks[i] = empty ? 1 : static_cast<uint32_t>((m.cols + 7) / 8);
    p.items[i] = empty ? 0 : static_cast<uint32_t>(m.batch * m.rows * p.chunks[i]);
    p.rows_fast[i] = (m.src_col != 1 || m.dst_col != 1) && (m.src_row == 1 || m.dst_row == 1) && m.rows > 1;
    most = p.items[i] > most ? p.items[i] : most;
  }
  if (most == 0) return Status::Ok();
  // A grid-stride loop: at most 1024 blocks of 256 threads (about 8 per SM on a 132-SM GPU),
  // fewer where the largest copy has fewer chunks.
  constexpr uint32_t kThreads = 256;
  const uint32_t blocks = (most + kThreads - 1) / kThreads < 1024 ? (most + kThreads - 1) / kThreads : 1024;
  copy_matrices_kernel<<<dim3(blocks, count), kThreads, 0, stream>>>(p);
  return check_launch("copy_matrices");
}

Status copy_matrices(const MatrixCopy* copies, int count, cudaStream_t stream) {
  if (Status s = check_copies(copies, count); !s) return s;
  bool fits = true;
  for (int i = 0; i < count; ++i) {
    const MatrixCopy& m = copies[i];
    fits = fits && (m.rows == 0 || m.cols == 0 || m.batch == 0 ||
                    m.batch * m.rows * ((m.cols + 7) / 8) <= kMaxCopyChunks);
  }
  if (fits) return launch_copies(copies, count, stream);
  // A copy beyond 32 GiB (2^31 chunks of 16 bytes): in pieces, kMaxMatrixCopies per launch, in order.
  std::vector<MatrixCopy> pieces;
  for (int i = 0; i < count; ++i) split_copy(copies[i], kMaxCopyChunks, &pieces);
  for (size_t i = 0; i < pieces.size(); i += kMaxMatrixCopies) {
    const int n = static_cast<int>(std::min<size_t>(kMaxMatrixCopies, pieces.size() - i));
    if (Status s = launch_copies(pieces.data() + i, n, stream); !s) return s;
  }
  return Status::Ok();
}

}  // namespace tcgemm
