// Registry entries of the sm90 family (none yet).
#include "core/families.h"

namespace tcgemm {

std::vector<KernelInfo> sm90_kernels() { return {}; }

}  // namespace tcgemm
