// copy_matrices' checks (the launch is in copy_matrices.cu): host code, tested without a GPU.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tcgemm/copy.h"

namespace tcgemm {

Status check_copies(const MatrixCopy* copies, int count) {
  if (count < 0 || count > kMaxMatrixCopies)
    return Status::Error(StatusCode::invalid_argument,
                         "copy_matrices: count " + std::to_string(count) + " is not in 0.." +
                             std::to_string(kMaxMatrixCopies));
  if (count > 0 && copies == nullptr)
    return Status::Error(StatusCode::invalid_argument, "copy_matrices: copies is null");
  // (Each message is built only when it is returned: this runs on every staged call.)
  auto bad = [](int i, const char* why) {
    return Status::Error(StatusCode::invalid_argument, "copy_matrices: copy " + std::to_string(i) + ": " + why);
  };
  for (int i = 0; i < count; ++i) {
    const MatrixCopy& m = copies[i];
    if (m.rows < 0 || m.cols < 0 || m.batch < 0) return bad(i, "rows, cols and batch must be >= 0");
    if (m.rows == 0 || m.cols == 0 || m.batch == 0) continue;
    if (m.src == nullptr || m.dst == nullptr) return bad(i, "src and dst must not be null");
    if ((reinterpret_cast<uintptr_t>(m.src) | reinterpret_cast<uintptr_t>(m.dst)) & 1)
      return bad(i, "src and dst must be 2-byte aligned");
  }
  return Status::Ok();
}

void split_copy(const MatrixCopy& m, int64_t max_chunks, std::vector<MatrixCopy>* pieces) {
  // (Element offsets: the pointers move in 2-byte steps.)
  auto at = [&](int64_t b, int64_t r, int64_t c, int64_t rows, int64_t cols, int64_t batch) {
    MatrixCopy p = m;
    p.src = static_cast<const uint16_t*>(m.src) + b * m.src_batch + r * m.src_row + c * m.src_col;
    p.dst = static_cast<uint16_t*>(m.dst) + b * m.dst_batch + r * m.dst_row + c * m.dst_col;
    p.rows = rows, p.cols = cols, p.batch = batch;
    pieces->push_back(p);
  };
  if (m.rows == 0 || m.cols == 0 || m.batch == 0) return;
  const int64_t row_chunks = (m.cols + 7) / 8, matrix_chunks = m.rows * row_chunks;
  if (row_chunks > max_chunks) {  // a row of more: pieces of max_chunks * 8 columns
    for (int64_t b = 0; b < m.batch; ++b)
      for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t c = 0; c < m.cols; c += max_chunks * 8) at(b, r, c, 1, std::min(max_chunks * 8, m.cols - c), 1);
  } else if (matrix_chunks > max_chunks) {  // a matrix of more: pieces of whole rows
    const int64_t rows = max_chunks / row_chunks;
    for (int64_t b = 0; b < m.batch; ++b)
      for (int64_t r = 0; r < m.rows; r += rows) at(b, r, 0, std::min(rows, m.rows - r), m.cols, 1);
  } else {  // pieces of whole matrices
    const int64_t batch = max_chunks / matrix_chunks;
    for (int64_t b = 0; b < m.batch; b += batch) at(b, 0, 0, m.rows, m.cols, std::min(batch, m.batch - b));
  }
}

}  // namespace tcgemm
