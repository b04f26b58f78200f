// The realignment of ragged rows (cpp/src/core/realign.h): for every skew a
// chunk can start at, the four words cut out of two granules are the chunk's
// 16 bytes, and granule_pair_fits holds exactly when both granules end inside
// the row (so a load never reaches past the row's last element).
#include <cstring>
#include <random>

#include "check.h"
#include "core/realign.h"

using namespace tcgemm;

int main() {
  std::mt19937 rng(7);
  for (uint32_t skew = 0; skew < 16; skew += 2) {
    SCOPED_CASE("skew %u", skew);
    for (int trial = 0; trial < 64; ++trial) {
      uint8_t bytes[32];
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
      uint32_t g[8];
      std::memcpy(g, bytes, sizeof g);  // (little-endian, as the GPU's loads)
      for (int j = 0; j < 4; ++j) {
        uint32_t want;
        std::memcpy(&want, bytes + skew + 4 * j, 4);
        CHECK_MSG(realigned_word(g, j, skew) == want, "word %d: %08x, want %08x", j, realigned_word(g, j, skew),
                  want);
      }
    }
    // The granules span bytes -skew .. 32 - skew (16 - skew where skew is 0: one granule) of
    // the chunk; the row holds bytes 0 .. 2 * rem. They fit exactly when the last is in the row.
    const int64_t end = skew == 0 ? 16 : 32 - static_cast<int64_t>(skew);
    for (int64_t rem = 1; rem <= 24; ++rem) {
      SCOPED_CASE("rem %lld", static_cast<long long>(rem));
      CHECK(static_cast<bool>(granule_pair_fits(skew, rem)) == (end <= 2 * rem));
    }
  }
  CHECK(funnel_right(0x89abcdefu, 0x01234567u, 16) == 0x456789abu);
  CHECK(funnel_right(0x89abcdefu, 0x01234567u, 0) == 0x89abcdefu);
  return finish("test_realign");
}
