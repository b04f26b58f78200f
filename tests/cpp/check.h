// A minimal test harness: CHECK records failures and keeps going; the test's
// main returns finish().
//
// SCOPED_CASE(fmt, ...) names the case that the checks below it (until the
// end of the enclosing block) are about, printf-style; scopes nest. A failing
// check prints the open scopes, outermost first, on its line:
//
//   test_gpu_gemm.cpp:80: CHECK failed: ok [case: sm90.ws; f16 TN acc=f32 129x127x200]: rel err ...
#pragma once
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace testing_ {
inline int& failures() { static int n = 0; return n; }
inline int& checks() { static int n = 0; return n; }

// One open case scope: its text and the scope it sits in.
struct CaseScope {
  char text[256];
  const CaseScope* outer;
  static const CaseScope*& innermost() {
    static const CaseScope* top = nullptr;
    return top;
  }
  [[gnu::format(printf, 2, 3)]] explicit CaseScope(const char* fmt, ...) : outer(innermost()) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    innermost() = this;
  }
  ~CaseScope() { innermost() = outer; }
  CaseScope(const CaseScope&) = delete;
  CaseScope& operator=(const CaseScope&) = delete;
};

inline void print_scopes(const CaseScope* s) {
  if (!s) return;
  print_scopes(s->outer);
  std::fprintf(stderr, "%s%s", s->outer ? "; " : "", s->text);
}

// " [case: outer; inner]" on stderr, or nothing outside every scope.
inline void print_case() {
  if (!CaseScope::innermost()) return;
  std::fprintf(stderr, " [case: ");
  print_scopes(CaseScope::innermost());
  std::fprintf(stderr, "]");
}
}  // namespace testing_

#define TESTING_CAT2_(a, b) a##b
#define TESTING_CAT_(a, b) TESTING_CAT2_(a, b)
#define SCOPED_CASE(...) const testing_::CaseScope TESTING_CAT_(case_scope_, __LINE__)(__VA_ARGS__)

#define CHECK(cond)                                                                  \
  do {                                                                               \
    ++testing_::checks();                                                            \
    if (!(cond)) {                                                                   \
      ++testing_::failures();                                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s", __FILE__, __LINE__, #cond);    \
      testing_::print_case();                                                        \
      std::fprintf(stderr, "\n");                                                    \
    }                                                                                \
  } while (0)

#define CHECK_MSG(cond, ...)                                                         \
  do {                                                                               \
    ++testing_::checks();                                                            \
    if (!(cond)) {                                                                   \
      ++testing_::failures();                                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s", __FILE__, __LINE__, #cond);    \
      testing_::print_case();                                                        \
      std::fprintf(stderr, ": ");                                                    \
      std::fprintf(stderr, __VA_ARGS__);                                             \
      std::fprintf(stderr, "\n");                                                    \
    }                                                                                \
  } while (0)

// rows(begin, end) over rows [0, M) of a float64 reference: in one call
// when the product is small (work, its multiply-adds, under 2^22), else
// split across the machine's threads (each row is one thread's).
template <class Rows>
inline void for_rows(int64_t M, int64_t work, Rows rows) {
  const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), M);
  if (threads <= 1 || work < (int64_t(1) << 22)) {
    rows(0, M);
    return;
  }
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) pool.emplace_back(rows, M * t / threads, M * (t + 1) / threads);
  for (auto& th : pool) th.join();
}

inline int finish(const char* name) {
  std::printf("%s: %d checks, %d failed\n", name, testing_::checks(), testing_::failures());
  return testing_::failures() == 0 ? 0 : 1;
}
