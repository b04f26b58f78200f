// The kernel registry: one entry per kernel variant. Tests, the benchmark and
// `auto` dispatch iterate over it, so a variant is tested and timed by being
// registered here and nothing else.
#pragma once
#include <string>
#include <vector>

#include "tcgemm/status.h"
#include "tcgemm/types.h"

namespace tcgemm {

using LaunchFn = Status (*)(const GemmArgs&);
// Bytes of GemmArgs::workspace a launch with these arguments needs (pointers
// are not read: it depends on the shape and the device only).
using WorkspaceFn = Status (*)(const GemmArgs&, size_t*);

// What a kernel can do beyond D = A B for one matrix (KernelInfo::features).
enum Feature : unsigned {
  kEpilogue = 1u << 0,  // alpha, beta * source, bias, activation (GemmArgs::epilogue)
  kBatched = 1u << 1,   // GemmArgs::batch > 1 in one launch
  kSplitK = 1u << 2,    // GemmArgs::split_k: K slices reduced in a fixed order
  // GemmArgs::scales, one bit per ScaleMode (FP8 kernels; the fp16/bf16 ones take none).
  kScaledTensor = 1u << 3,
  kScaledRow = 1u << 4,
  kScaledBlock = 1u << 5,
  // Rows anywhere: A, B, C (and the epilogue's source) at any leading
  // dimension >= the row length and any batch stride, starts 2-byte aligned.
  // Without it a kernel moves 16-byte chunks (cp.async, TMA): rows a multiple
  // of 16 bytes apart, starts 16-byte aligned (check_args).
  kAnyRows = 1u << 6,
};

// The Feature bit of a scale mode (0 for ScaleMode::none, which every kernel takes).
constexpr unsigned scale_feature(ScaleMode m) {
  return m == ScaleMode::tensor ? kScaledTensor : m == ScaleMode::rowwise ? kScaledRow : m == ScaleMode::block ? kScaledBlock : 0u;
}

struct KernelInfo {
  const char* name;         // stable: "<family>.<variant>", the family's name first
  const char* family;       // "sm89", "sm90", "sm100"
  const char* description;  // one line: the idea this variant adds over the previous one
  int arch;                 // compute capability it needs, e.g. 89, 90, 100
  unsigned dtypes;          // bit(DType) mask of A's and B's element types
  unsigned layouts;         // bit(Layout) mask
  unsigned accums;          // bit(Accum) mask
  int tile_m, tile_n, tile_k;
  int stages;
  LaunchFn launch;          // nullptr when the family was not built
  // Device compute capabilities (major*10+minor) whose SASS this build holds
  // for the family, e.g. {89, 90} for the Ada family.
  std::vector<int> sass_for;
  unsigned features = 0;    // Feature mask
  WorkspaceFn workspace = nullptr;  // nullptr: never needs a workspace
  unsigned out_dtypes = 0;  // bit(DType) mask of C's element types; 0: C's type is A's
};

// Every registered kernel, built or not, in ladder order.
const std::vector<KernelInfo>& kernels();

// nullptr if no kernel has that name.
const KernelInfo* find_kernel(const std::string& name);

// Why `k` cannot run on the current device, or ok.
Status check_runnable(const KernelInfo& k);

// Why `k` cannot take these arguments (dtypes, layout, accumulator, epilogue,
// batch, split-K, scale mode), or ok.
Status check_supports(const KernelInfo& k, const GemmArgs& args);

// The kernel that `auto` picks for these arguments on the current device
// (with args.b_ragged, the first kernel of auto_preference that reads rows
// anywhere, if one takes the arguments).
const KernelInfo* pick_auto(const GemmArgs& args, Status* why);

// The names `auto` tries first, in order, on a device of compute capability
// `cc` with `sms` SMs: each family's measured order (its heuristics), the
// newest family's first. Pure, host-tested. pick_auto takes the first that is
// runnable and supports the arguments, else any.
std::vector<const char*> auto_preference(int cc, const GemmArgs& args, int sms);

}  // namespace tcgemm
