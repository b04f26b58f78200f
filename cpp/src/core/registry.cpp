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

// Measured winners first, per device (bench/results/).
// Anything runnable that supports the arguments is the fallback, in ladder
// order from the top.
std::vector<const char*> auto_preference(int cc, const GemmArgs& args, int sms) {
  if (cc == 90) {
    // The Ada kernels (what f16 accumulation runs on here): the spread-copy
    // steps, ahead of every earlier step on both layouts (4096^3 / 8192^3:
    // +5-23% over mma_iter{,_db}, +7-18% over mma_iter_8w{,_db}); the 8-warp
    // 128x256 block once its tiles take many waves (8192^3: +8% TN, +8% NN
    // over the 4-warp blocks), the 4-warp 128x128 blocks below that
    // (bench/results/h200_ada_tune.md, run 1 of 2026-12-03 third session).
    const bool many_waves = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch >= 4 * int64_t{sms};
    const char* four_warps = "sm89.mma_spread.s3";
    const char* eight_warps = "sm89.mma_spread_8w.s3";
    const std::vector<const char*> ada = {many_waves ? eight_warps : four_warps, many_waves ? four_warps : eight_warps,
                                          "sm89.mma_2blk.s3", "sm89.mma_wt64_k64.s3"};
    auto then = [&](std::vector<const char*> v) {
      v.insert(v.end(), ada.begin(), ada.end());
      return v;
    };
    const int k_tiles = static_cast<int>(ceil_div(args.K, 64));
    if (args.split_k > 1) return then({"sm90.ws_splitk"});  // asked for by the caller
    // Too few 128x256 tiles to fill the GPU (decode shapes, small squares).
    // M <= 64 against big weights: the split-K kernel, when its policy would
    // split (sched::choose_splits with ws_splitk's 64 x 256 tile): 1.04-1.08x
    // cuBLAS at M = 16, 0.90-0.95x at M = 64 (bench/results/h200_sweep.md).
    if (args.M <= 64 && args.split_k != 1 &&
        sched::choose_splits(args.split_k, ceil_div(args.N, 256) * args.batch, k_tiles, sms) > 1)
      return then({"sm90.ws_splitk", "sm90.ws_persistent"});
    // Otherwise, while even the 128x128 tiles fit in one wave, the ping-pong
    // kernel's tiles put twice the CTAs to work: M = 128 against 8192^2
    // weights 0.97-0.98x cuBLAS (split-K 0.82x, 128x256 tiles 0.58x), 1000^3
    // 1.21-1.33x (ws_persistent 1.00-1.04x). Once they take two waves
    // (2048^3, 512 x 8192^2) the 128x256 tiles are as fast or faster.
    const int64_t wide_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 256) * args.batch;
    const int64_t square_tiles = ceil_div(args.M, 128) * ceil_div(args.N, 128) * args.batch;
    if (wide_tiles < sms && square_tiles <= sms) return then({"sm90.ws_pingpong", "sm90.ws_persistent"});
    // Split-K with 128-row tiles where that policy splits and the square
    // tiles would take more than one wave.
    if (args.split_k != 1 && sched::choose_splits(args.split_k, wide_tiles, k_tiles, sms) > 1)
      return then({"sm90.ws_splitk", "sm90.ws_persistent"});
    // Enough tiles: the persistent kernel (1.03-1.05x cuBLAS at 4096^3,
    // 1.01-1.06x at 8192^3 paired with cuBLAS at the same clocks), then the
    // multicast one. The Ada kernels cover what the Hopper family does not
    // take (f16 accumulation).
    return then({"sm90.ws_persistent", "sm90.ws_mcast"});
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
  for (const char* name : auto_preference(dev.cc, args, dev.sm_count)) {
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
