import numpy as np
import pytest

import tcgemm
from tcgemm import _core

HAS_GPU = _core.device_count() > 0


def pytest_report_header(config):
    d = tcgemm.device_info()
    b = tcgemm.build_info()
    where = f"{d['name']} (sm_{d['cc']})" if d else "no CUDA device: GPU tests will be skipped"
    return f"tcgemm {b['version']} built for {','.join(b['archs'])}; device: {where}"


gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device found: GPU tests need one")


@pytest.fixture
def rng():
    return np.random.default_rng()  # fresh data every test


def runnable_kernels():
    return [k for k in tcgemm.kernels() if k["runnable"]]


def rel_err(got, ref):
    got = np.asarray(got, dtype=np.float64)
    return float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) or 1.0))


# fp32 accumulation: within output rounding (2^-11 fp16, 2^-8 bf16) plus a margin;
# fp16 accumulation: error grows with K (~sqrt(K) ulps); 1e-2 holds for K <= 4096 on U(-1,1) data.
def bound(dtype, acc):
    if acc == "f16":
        return 1e-2
    return 8e-3 if np.dtype(dtype) == tcgemm.bfloat16 else 2e-3
