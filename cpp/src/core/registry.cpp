// The registry: the families' entries in ladder order, runnable checks, and
// `auto` dispatch.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/families.h"
#include "tcgemm/device.h"
#include "tcgemm/registry.h"

namespace tcgemm {

// No iostreams in these paths: inside the Python module on the H200 machine,
// formatting an int through std::ostringstream crashes in libstdc++'s locale
// code (cuda-gdb backtrace check_runnable -> ostream::_M_insert<long> ->
// codecvt: bench/results/logs/h200_kernels_segfault_gdb.txt, in git history);
// plain string operations have no locale to get wrong.
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

const std::vector<Family>& families() {
  // The Blackwell family has never run on a device: no measured order.
  static const std::vector<Family> all = {
      {"sm89", sm89_kernels, sm89_preference},
      {"sm90", sm90_kernels, sm90_preference},
      {"sm100", sm100_kernels, nullptr},
  };
  return all;
}

const std::vector<KernelInfo>& kernels() {
  static const std::vector<KernelInfo> all = [] {
    std::vector<KernelInfo> v;
    for (const Family& f : families())
      for (auto& k : f.kernels()) v.push_back(k);
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
  if (!(k.dtypes & bit(a.b_type()))) return fail(std::string("dtype ") + to_string(a.b_type()) + " for B");
  if (k.out_dtypes ? !(k.out_dtypes & bit(a.c_type())) : a.c_type() != a.dtype)
    return fail(std::string("output dtype ") + to_string(a.c_type()) + " with " + to_string(a.dtype) + " operands");
  if (a.scales.mode != ScaleMode::none && !(k.features & scale_feature(a.scales.mode)))
    return fail(std::string("scale mode '") + to_string(a.scales.mode) + "'");
  if (!(k.layouts & bit(a.layout))) return fail(std::string("layout ") + to_string(a.layout));
  if (a.accum == Accum::fast && !is_fp8(a.dtype))
    return fail("accumulate='fast' on " + std::string(to_string(a.dtype)) + " operands (FP8 only)");
  if (is_fp8(a.dtype) && a.accum == Accum::f32 && !(k.accums & bit(Accum::f32)))
    return fail("fp32 accumulation (accumulate='f32', use_fast_accum=False): it sums a tile's whole K in FP8 "
                "wgmma's accumulator (accumulate='fast', use_fast_accum=True)");
  if (!(k.accums & bit(a.accum))) return fail(std::string("accumulate='") + to_string(a.accum) + "'");
  if (a.dtype == DType::bf16 && a.accum == Accum::f16)
    return fail("bf16 with accumulate='f16' (bf16 tensor-core MMAs accumulate in f32 only)");
  if (!a.epilogue.plain() && !(k.features & kEpilogue)) return fail("a fused epilogue (alpha/beta/bias/activation)");
  if (a.batch > 1 && !(k.features & kBatched)) return fail("batched GEMM");
  if (a.split_k > 1 && !(k.features & kSplitK)) return fail("split-K (split_k > 1)");
  return Status::Ok();
}

// Measured winners first, per device: each family's order for the device, the
// newest family's first (on an H100/H200 the Hopper kernels', then the Ada
// kernels', which are built for sm_90a too). Anything runnable that supports
// the arguments is the fallback, in ladder order from the top.
std::vector<const char*> auto_preference(int cc, const GemmArgs& args, int sms) {
  std::vector<const char*> v;
  const std::vector<Family>& all = families();
  for (auto f = all.rbegin(); f != all.rend(); ++f)
    if (f->preference)
      for (const char* name : f->preference(cc, args, sms)) v.push_back(name);
  return v;
}

const KernelInfo* pick_auto(const GemmArgs& args, Status* why) {
  DeviceInfo dev;
  Status s = current_device(&dev);
  if (!s.ok()) return *why = s, nullptr;
  auto usable = [&](const KernelInfo& k) { return check_runnable(k).ok() && check_supports(k, args).ok(); };
  const std::vector<const char*> order = auto_preference(dev.cc, args, dev.sm_count);
  // B off the 16-byte grid: a kernel that reads rows anywhere, where a family
  // names one for these arguments, before every kernel that needs B copied.
  if (args.b_ragged)
    for (const char* name : order) {
      const KernelInfo* k = find_kernel(name);
      if (k && (k->features & kAnyRows) && usable(*k)) return k;
    }
  for (const char* name : order) {
    const KernelInfo* k = find_kernel(name);
    if (k && usable(*k)) return k;
  }
  // The fallback: the newest runnable kernel that takes the arguments; not
  // one that reads rows anywhere (kAnyRows), which is chosen by name until
  // its family's preference names it.
  const auto& all = kernels();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (!(it->features & kAnyRows) && usable(*it)) return &*it;
  *why = Status::Error(StatusCode::not_runnable,
                       "no built kernel can run " + std::string(to_string(args.dtype)) + " x " +
                           to_string(args.b_type()) + " -> " + to_string(args.c_type()) + " (scales '" +
                           to_string(args.scales.mode) + "') accumulate='" +
                           to_string(args.accum) + "' on " + dev.name + " (sm_" + std::to_string(dev.cc) +
                           "; built for " + built_archs() + ")");
  return nullptr;
}

}  // namespace tcgemm
