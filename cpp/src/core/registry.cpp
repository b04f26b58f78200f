// The registry: the families' entries in ladder order, runnable checks, and
// `auto` dispatch.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/families.h"
#include "sched/persistent.h"
#include "tcgemm/device.h"
#include "tcgemm/registry.h"

namespace tcgemm {

// No iostreams in these paths: inside the Python module on the H200 machine,
// formatting an int through std::ostringstream crashed in libstdc++'s
// locale code (cuda-gdb backtrace: check_runnable -> ostream::_M_insert<long>
// -> codecvt); plain string operations have no locale to get wrong.
std::vector<int> built_ccs(std::initializer_list<const char*> family_targets) {
  std::vector<int> out;
  const std::string archs = built_archs();  // e.g. "89,90a,100a"
  size_t start = 0;
  while (start <= archs.size()) {
    const size_t end = std::min(archs.find(',', start), archs.size());
    const std::string t = archs.substr(start, end - start);
    for (const char* f : family_targets)
      if (t == f) out.push_back(std::atoi(f));  // "90a" -> 90
    start = end + 1;
  }
  return out;
}

const std::vector<KernelInfo>& kernels() {
  static const std::vector<KernelInfo> all = [] {
    std::vector<KernelInfo> v;
    for (auto* family : {sm89_kernels, sm90_kernels, sm100_kernels})
      for (auto& k : family()) v.push_back(k);
    return v;
  }();
  return all;
}

const KernelInfo* find_kernel(const std::string& name) {
  for (const auto& k : kernels())
    if (name == k.name) return &k;
  return nullptr;
}

Status check_runnable(const KernelInfo& k) {
  DeviceInfo dev;
  Status s = current_device(&dev);
  if (!s.ok()) return s;
  if (!k.launch)
    return Status::Error(StatusCode::not_runnable, std::string("kernel '") + k.name +
                                                       "' was not built (TCGEMM_CUDA_ARCHS=" + built_archs() + ")");
  if (std::find(k.sass_for.begin(), k.sass_for.end(), dev.cc) == k.sass_for.end()) {
    std::string m = std::string("kernel '") + k.name + "' cannot run on " + dev.name + " (sm_" +
                    std::to_string(dev.cc) + "): this build holds its code for";
    if (k.sass_for.empty()) m += " no device";
    for (int cc : k.sass_for) m += " sm_" + std::to_string(cc);
    return Status::Error(StatusCode::not_runnable, m);
  }
  return Status::Ok();
}

Status check_supports(const KernelInfo& k, const GemmArgs& a) {
  auto fail = [&](const std::string& what) {
    return Status::Error(StatusCode::not_supported, std::string("kernel '") + k.name + "' does not support " + what);
  };
  if (!(k.dtypes & bit(a.dtype))) return fail(std::string("dtype ") + to_string(a.dtype));
  if (!(k.layouts & bit(a.layout))) return fail(std::string("layout ") + to_string(a.layout));
  if (!(k.accums & bit(a.accum))) return fail(std::string("accumulate='") + to_string(a.accum) + "'");
  if (a.dtype == DType::bf16 && a.accum == Accum::f16)
    return fail("bf16 with accumulate='f16' (bf16 tensor-core MMAs accumulate in f32 only)");
  if (!a.epilogue.plain() && !(k.features & kEpilogue)) return fail("a fused epilogue (alpha/beta/bias/activation)");
  if (a.batch > 1 && !(k.features & kBatched)) return fail("batched GEMM");
  if (a.split_k > 1 && !(k.features & kSplitK)) return fail("split-K (split_k > 1)");
  return Status::Ok();
}

// Measured winners first, per device (bench/results/); the same order won at
// every shape class measured so far (squares, skinny, odd).
// Anything runnable that supports the arguments is the fallback, in ladder
// order from the top.
static std::vector<const char*> preference(int cc, const GemmArgs& args, int sms) {
  if (cc == 90) {
    // Too few output tiles to fill the GPU (decode shapes, M <= 128 against
    // big weights): the split-K kernel, when its policy would split
    // (sched::choose_splits with ws_splitk's tiles, 64 or 128 x 256).
    const int64_t bm = args.M <= 64 ? 64 : 128;
    const int64_t tiles = ceil_div(args.M, bm) * ceil_div(args.N, 256) * args.batch;
    const int k_tiles = static_cast<int>(ceil_div(args.K, 64));
    if (args.split_k != 1 && sched::choose_splits(args.split_k, tiles, k_tiles, sms) > 1)
      return {"sm90.ws_splitk", "sm90.ws_persistent", "sm89.mma_2blk.s3", "sm89.mma_wt64_k64.s3"};
    // H200 (bench/results/h200_ada_tuning.md): among the mma.sync kernels the
    // two-block 128x128x64 step wins at skinny, odd and short-K shapes and
    // ties the 128x256 one on large squares.
    // Hopper family first (bench/results/h200.md): the persistent kernel
    // (1.03-1.05x cuBLAS at 4096^3, 0.98-1.00x at 8192^3 under the power
    // limit), then the multicast one (as fast at 4096^3, less steady at
    // 8192^3); the Ada kernels cover what the Hopper family does not take
    // (f16 accumulation).
    return {"sm90.ws_persistent", "sm90.ws_mcast", "sm89.mma_2blk.s3", "sm89.mma_wt64_k64.s3"};
  }
  // sm_89: until measured on an Ada card, the seed's RTX 4090 figures stand
  // in: the A&B-swizzled x4 variant was fastest from 4096^3 up.
  if (cc == 89) return {"sm89.mma_swz_x4.s3", "sm89.mma_bk32.s3", "sm89.mma_swz_x4.s4"};
  return {};
}

const KernelInfo* pick_auto(const GemmArgs& args, Status* why) {
  DeviceInfo dev;
  Status s = current_device(&dev);
  if (!s.ok()) return *why = s, nullptr;
  auto usable = [&](const KernelInfo& k) { return check_runnable(k).ok() && check_supports(k, args).ok(); };
  for (const char* name : preference(dev.cc, args, dev.sm_count)) {
    const KernelInfo* k = find_kernel(name);
    if (k && usable(*k)) return k;
  }
  const auto& all = kernels();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (usable(*it)) return &*it;
  *why = Status::Error(StatusCode::not_runnable,
                       "no built kernel can run " + std::string(to_string(args.dtype)) + " accumulate='" +
                           to_string(args.accum) + "' on " + dev.name + " (sm_" + std::to_string(dev.cc) +
                           "; built for " + built_archs() + ")");
  return nullptr;
}

}  // namespace tcgemm
