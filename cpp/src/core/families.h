// Each kernel family contributes its registry entries (host code, always
// compiled, so unbuilt kernels are still listed -- as not runnable).
#pragma once
#include <vector>

#include "tcgemm/registry.h"

namespace tcgemm {

std::vector<KernelInfo> sm89_kernels();   // cpp/src/sm89/registry_sm89.cpp
std::vector<KernelInfo> sm90_kernels();   // cpp/src/sm90/registry_sm90.cpp
std::vector<KernelInfo> sm100_kernels();  // cpp/src/sm100/registry_sm100.cpp

// Device compute capabilities whose SASS this build holds, for the given
// TCGEMM_CUDA_ARCHS targets of a family (e.g. {"89","90a"} -> {89, 90}).
std::vector<int> built_ccs(std::initializer_list<const char*> family_targets);

}  // namespace tcgemm
