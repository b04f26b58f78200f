// Each kernel family contributes its registry entries (host code, always
// compiled, so unbuilt kernels are still listed -- as not runnable) and its
// `auto` heuristic. core/ reaches the kernels through this table only.
#pragma once
#include <initializer_list>
#include <vector>

#include "tcgemm/registry.h"

namespace tcgemm {

struct Family {
  const char* name;  // the prefix of its kernels' names
  std::vector<KernelInfo> (*kernels)();
  // The family's kernels that `auto` tries, best first, on a device of
  // compute capability `cc` with `sms` SMs; empty where the family has no
  // measured order for that device. Pure. nullptr: no heuristic.
  std::vector<const char*> (*preference)(int cc, const GemmArgs& args, int sms);
};

// Every family, oldest first: kernels() lists their entries in this order,
// and auto_preference asks them newest first.
const std::vector<Family>& families();

std::vector<KernelInfo> sm89_kernels();   // cpp/src/sm89/registry_sm89.cpp
std::vector<KernelInfo> sm90_kernels();   // cpp/src/sm90/registry_sm90.cpp
std::vector<KernelInfo> sm100_kernels();  // cpp/src/sm100/registry_sm100.cpp
std::vector<const char*> sm89_preference(int cc, const GemmArgs& args, int sms);  // cpp/src/sm89/heuristics.cpp
std::vector<const char*> sm90_preference(int cc, const GemmArgs& args, int sms);  // cpp/src/sm90/heuristics.cpp

// Device compute capabilities whose SASS this build holds, for the given
// TCGEMM_CUDA_ARCHS targets of a family (e.g. {"89","90a"} -> {89, 90}).
std::vector<int> built_ccs(std::initializer_list<const char*> family_targets);

}  // namespace tcgemm
