// Registry entries of the sm100 family (none yet).
#include "core/families.h"

namespace tcgemm {

std::vector<KernelInfo> sm100_kernels() { return {}; }

}  // namespace tcgemm
