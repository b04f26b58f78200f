// A minimal test harness: CHECK records failures and keeps going; the test's
// main returns finish().
#pragma once
#include <cstdio>
#include <cstdlib>

namespace testing_ {
inline int& failures() { static int n = 0; return n; }
inline int& checks() { static int n = 0; return n; }
}  // namespace testing_

#define CHECK(cond)                                                                  \
  do {                                                                               \
    ++testing_::checks();                                                            \
    if (!(cond)) {                                                                   \
      ++testing_::failures();                                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
    }                                                                                \
  } while (0)

#define CHECK_MSG(cond, ...)                                                         \
  do {                                                                               \
    ++testing_::checks();                                                            \
    if (!(cond)) {                                                                   \
      ++testing_::failures();                                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
      std::fprintf(stderr, __VA_ARGS__);                                             \
      std::fprintf(stderr, "\n");                                                    \
    }                                                                                \
  } while (0)

inline int finish(const char* name) {
  std::printf("%s: %d checks, %d failed\n", name, testing_::checks(), testing_::failures());
  return testing_::failures() == 0 ? 0 : 1;
}
