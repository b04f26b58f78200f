// The family table, without a GPU: every kernel belongs to one family, and
// every name a family's heuristic gives `auto` is one of that family's
// registered kernels (pick_auto skips a name it cannot find, so a renamed
// kernel would drop out of `auto` silently).
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "core/families.h"
#include "tcgemm/tcgemm.h"

using namespace tcgemm;

int main() {
  const std::vector<Family>& fams = families();
  CHECK(!fams.empty());
  std::set<std::string> family_names;
  size_t listed = 0;
  for (const Family& f : fams) {
    CHECK_MSG(family_names.insert(f.name).second, "duplicate family %s", f.name);
    CHECK(f.kernels != nullptr);
    for (const KernelInfo& k : f.kernels()) {
      CHECK_MSG(std::string(k.family) == f.name, "%s registered by family %s", k.name, f.name);
      CHECK_MSG(std::strncmp(k.name, f.name, std::strlen(f.name)) == 0 && k.name[std::strlen(f.name)] == '.',
                "%s does not start with %s.", k.name, f.name);
      // kernels() lists the families' entries in table order.
      CHECK(listed < kernels().size() && std::string(kernels()[listed].name) == k.name);
      ++listed;
    }
  }
  CHECK(listed == kernels().size());

  const int64_t dims[] = {1, 16, 64, 65, 128, 129, 1000, 4096, 8192, 14336};
  int asked = 0;
  for (int cc : {75, 80, 86, 89, 90, 100, 120})
    for (int sms : {132, 114, 78})
      for (int64_t M : dims)
        for (int64_t N : dims)
          for (int64_t K : {int64_t{64}, int64_t{1000}, int64_t{4104}, int64_t{14336}})
            for (Layout layout : {Layout::NN, Layout::TN})
              for (int split_k : {0, 1, 2})
                for (int64_t batch : {int64_t{1}, int64_t{3}})
                for (bool ragged : {false, true}) {
                  GemmArgs a;
                  a.M = M, a.N = N, a.K = K, a.layout = layout, a.split_k = split_k, a.batch = batch;
                  a.b_ragged = ragged;
                  // auto_preference is the families' orders, the newest family's first.
                  std::vector<const char*> joined;
                  for (auto f = fams.rbegin(); f != fams.rend(); ++f) {
                    if (!f->preference) continue;
                    for (const char* name : f->preference(cc, a, sms)) {
                      const KernelInfo* k = find_kernel(name);
                      CHECK_MSG(k != nullptr, "family %s prefers %s, which is not registered", f->name, name);
                      if (k) CHECK_MSG(std::string(k->family) == f->name, "family %s prefers %s", f->name, name);
                      joined.push_back(name);
                    }
                  }
                  const std::vector<const char*> got = auto_preference(cc, a, sms);
                  CHECK(got.size() == joined.size());
                  std::set<std::string> seen;
                  for (size_t i = 0; i < got.size(); ++i) {
                    if (i < joined.size()) CHECK(std::strcmp(got[i], joined[i]) == 0);
                    CHECK_MSG(seen.insert(got[i]).second, "%s twice for cc %d", got[i], cc);
                  }
                  // Only the devices a family has measured get an order.
                  if (cc != 89 && cc != 90) CHECK(got.empty());
                  else CHECK(!got.empty());
                  // The decode kernel that reads a ragged weight in place: named for x @ w.T with B
                  // off the 16-byte grid and at most 32 rows of x, on the Hopper devices it was timed on.
                  const bool skinny = cc == 90 && ragged && layout == Layout::TN && M <= 32;
                  bool named = false;
                  for (const char* name : got) named = named || std::strcmp(name, "sm89.mma_skinny.s4") == 0;
                  CHECK_MSG(named == skinny, "cc %d M %lld ragged %d: sm89.mma_skinny.s4 %s", cc, (long long)M,
                            int(ragged), named ? "named" : "not named");
                  ++asked;
                }
  CHECK(asked > 0);
  return finish("test_families");
}
