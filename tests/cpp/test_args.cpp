// Argument checks and the registry, without a GPU.
#include <cstring>
#include <set>
#include <string>

#include "check.h"
#include "tcgemm/tcgemm.h"

using namespace tcgemm;

static GemmArgs good() {
  alignas(16) static char buf[64];
  GemmArgs a;
  a.A = a.B = a.C = buf;
  a.M = 100, a.N = 50, a.K = 30;
  a.lda = 32, a.ldb = 56, a.ldc = 56;  // NN: B rows hold N = 50 -> pitch 56
  return a;
}

static bool rejects(const GemmArgs& a, const char* needle) {
  Status s = check_args(a);
  bool ok = !s.ok() && s.code == StatusCode::invalid_argument && s.message.find(needle) != std::string::npos;
  if (!ok) std::fprintf(stderr, "  expected rejection containing '%s', got '%s'\n", needle, s.message.c_str());
  return ok;
}

int main() {
  CHECK(check_args(good()).ok());
  { GemmArgs a = good(); a.M = 0; CHECK(rejects(a, "must be >= 1")); }
  { GemmArgs a = good(); a.K = -3; CHECK(rejects(a, "must be >= 1")); }
  { GemmArgs a = good(); a.N = int64_t(1) << 31; a.ldb = a.ldc = a.N; CHECK(rejects(a, "2^31")); }
  { GemmArgs a = good(); a.A = nullptr; CHECK(rejects(a, "non-null")); }
  { GemmArgs a = good(); a.C = static_cast<char*>(a.C) + 2; CHECK(rejects(a, "16-byte aligned")); }
  { GemmArgs a = good(); a.lda = 24; CHECK(rejects(a, "lda = 24 is smaller")); }
  { GemmArgs a = good(); a.lda = 36; CHECK(rejects(a, "multiple of 8")); }
  { GemmArgs a = good(); a.ldc = 48; CHECK(rejects(a, "ldc")); }
  // TN: B is stored N x K, so its rows hold K elements.
  { GemmArgs a = good(); a.layout = Layout::TN; a.ldb = 32; CHECK(check_args(a).ok()); }
  { GemmArgs a = good(); a.layout = Layout::TN; a.ldb = 24; CHECK(rejects(a, "ldb")); }
  { GemmArgs a = good(); a.dtype = static_cast<DType>(7); CHECK(rejects(a, "dtype")); }

  CHECK(pitch_for(1) == 8);
  CHECK(pitch_for(8) == 8);
  CHECK(pitch_for(9) == 16);
  CHECK(pitch_for(4097) == 4104);

  // Registry: unique names, every family's ladder present, fields sane.
  std::set<std::string> names;
  for (const auto& k : kernels()) {
    CHECK_MSG(names.insert(k.name).second, "duplicate kernel name %s", k.name);
    CHECK(k.tile_m > 0 && k.tile_n > 0 && k.tile_k > 0 && k.stages >= 1);
    CHECK(k.dtypes != 0 && k.layouts != 0 && k.accums != 0);
    CHECK(std::strncmp(k.name, k.family, std::strlen(k.family)) == 0);
  }
  for (const char* n : {"sm89.mma.s2", "sm89.mma.s5", "sm89.mma_swz.s3", "sm89.mma_swz_x4.s4", "sm89.mma_bk32.s4"})
    CHECK_MSG(find_kernel(n) != nullptr, "missing %s", n);
  CHECK(find_kernel("no.such.kernel") == nullptr);

  // The Ada family is built for sm_89 and sm_90a when both are targets.
  const std::string archs = built_archs();
  const KernelInfo* k = find_kernel("sm89.mma.s3");
  if (archs.find("89") != std::string::npos && archs.find("90a") != std::string::npos) {
    CHECK(k->launch != nullptr);
    CHECK(k->sass_for.size() == 2 && k->sass_for[0] == 89 && k->sass_for[1] == 90);
  }

  // gemm() on bad arguments fails before touching a device.
  { GemmArgs a = good(); a.M = 0; CHECK(gemm(a, "sm89.mma.s3").code == StatusCode::invalid_argument); }
  { Status s = gemm(good(), "no.such.kernel");
    CHECK(s.code == StatusCode::invalid_argument && s.message.find("unknown kernel") != std::string::npos); }

  if (device_count() == 0) {
    // Without a device every kernel reports why it cannot run.
    for (const auto& kk : kernels()) CHECK(check_runnable(kk).code == StatusCode::no_device);
    Status s = gemm(good(), "auto");
    CHECK(s.code == StatusCode::no_device);
    CHECK(s.message.find("no CUDA device") != std::string::npos);
    DeviceBuffer b;
    CHECK(DeviceBuffer::allocate(4, 4, DType::f16, &b).code == StatusCode::no_device);
  }
  return finish("test_args");
}
