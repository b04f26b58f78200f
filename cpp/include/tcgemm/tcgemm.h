// Umbrella header of the tcgemm C++ API.
#pragma once
#include "tcgemm/device.h"
#include "tcgemm/gemm.h"
#include "tcgemm/host.h"
#include "tcgemm/registry.h"
#include "tcgemm/status.h"
#include "tcgemm/types.h"
#include "tcgemm/bench.h"
#include "tcgemm/copy.h"
