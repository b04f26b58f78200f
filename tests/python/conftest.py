import os

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

# The default run is a representative set: every kernel, both layouts, both
# dtypes, the odd shapes, epilogues and batches, but not their full cross
# product. TCGEMM_TEST_EXHAUSTIVE=1 runs every case; without it the cases
# marked `exhaustive` are skipped with this message.
EXHAUSTIVE = os.environ.get("TCGEMM_TEST_EXHAUSTIVE", "") not in ("", "0")
EXHAUSTIVE_ONLY = "part of the exhaustive sweep: set TCGEMM_TEST_EXHAUSTIVE=1 to run it"


def representative(rule):
    """Marks a parametrized test whose representative cases are those for which
    rule(**params) is true; the rest are marked `exhaustive`."""
    return pytest.mark.representative.with_args(rule)  # with_args: a lone callable would be decorated


@pytest.hookimpl(tryfirst=True)  # before -m selects on the markers added here
def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason=EXHAUSTIVE_ONLY)
    for item in items:
        rule = item.get_closest_marker("representative")
        if rule and hasattr(item, "callspec") and not rule.args[0](**item.callspec.params):
            item.add_marker(pytest.mark.exhaustive)
        if not EXHAUSTIVE and item.get_closest_marker("exhaustive"):
            item.add_marker(skip)


def kernel_index(name):
    """A kernel's place in the registry (0 for names not in it): what the
    representative sets rotate on, so that neighbouring kernels take
    different cases."""
    names = [k["name"] for k in tcgemm.kernels()]
    return names.index(name) if name in names else 0


def turn(i, n, k):
    """Case i of n is case number k's turn (k counted round): the rotation the representative sets use."""
    return i == k % n


@pytest.fixture
def rng():
    return np.random.default_rng()  # fresh data every test


def fp8_only(k):
    """An FP8 entry (float8 operands only, e.g. sm89.fp8_mma.s3): the fp16/bf16 suites leave it to
    the FP8 suite (tests/cpp/test_gpu_fp8.cpp)."""
    return not {"float16", "bfloat16"} & set(k["dtypes"])


def layouts_of(name):
    """The layouts a registered kernel takes ("auto" and unknown names: both)."""
    return next((k["layouts"] for k in tcgemm.kernels() if k["name"] == name), ["NN", "TN"])


def refuses_layout(kernel, layout, call):
    """Where `kernel` does not take `layout` (sm89.mma_skinny.s4 is TN only): checks that `call`
    raises the registry's refusal naming it, and returns True (the case is done); else False."""
    if layout in layouts_of(kernel):
        return False
    with pytest.raises(ValueError, match=f"does not support layout {layout}"):
        call()
    return True


def b_for(kernel, b):
    """b (K x N) stored as NumPy's C order where `kernel` takes NN, else as its transpose's rows
    (Fortran order: the TN layout, x @ w.T)."""
    return b if "NN" in layouts_of(kernel) else np.asfortranarray(b)


def runnable_kernels():
    """The runnable fp16/bf16 kernels (FP8 entries have a suite of their own: fp8_only)."""
    return [k for k in tcgemm.kernels() if k["runnable"] and not fp8_only(k)]


def rel_err(got, ref):
    got = np.asarray(got, dtype=np.float64)
    return float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) or 1.0))


# fp32 accumulation: within output rounding (2^-11 fp16, 2^-8 bf16) plus a margin;
# fp16 accumulation: error grows with K (~sqrt(K) ulps); 1e-2 holds for K <= 4096 on U(-1,1) data.
def bound(dtype, acc):
    if acc == "f16":
        return 1e-2
    return 8e-3 if np.dtype(dtype) == tcgemm.bfloat16 else 2e-3
