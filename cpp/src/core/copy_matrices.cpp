// copy_matrices' checks (the launch is in copy_matrices.cu): host code, tested without a GPU.
#include <cstdint>
#include <string>

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
    // The kernel indexes (batch, row, 8-column chunk) in 32 bits.
    const int64_t chunks = (m.cols + 7) / 8;
    if (m.rows >= (int64_t{1} << 31) || chunks >= (int64_t{1} << 31) ||
        m.batch > (int64_t{1} << 31) / m.rows / chunks)
      return bad(i, "more than 2^31 chunks of 8 elements");
  }
  return Status::Ok();
}

}  // namespace tcgemm
