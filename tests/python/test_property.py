"""Property-based: random shapes (1..600 per dim), layouts, dtypes, kernels, against float64 (GPU).
40 examples by default, 150 with TCGEMM_TEST_EXHAUSTIVE=1."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgemm
from conftest import EXHAUSTIVE, HAS_GPU, bound, gpu, refuses_layout, rel_err, runnable_kernels

pytestmark = gpu
_KERNELS = [k["name"] for k in runnable_kernels()] if HAS_GPU else ["none"]  # fp16/bf16 ones


@settings(max_examples=150 if EXHAUSTIVE else 40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(M=st.integers(1, 600), N=st.integers(1, 600), K=st.integers(1, 600),
       layout=st.sampled_from(["NN", "TN"]), dtype=st.sampled_from([tcgemm.float16, tcgemm.bfloat16]),
       kernel=st.sampled_from(_KERNELS), seed=st.integers(0, 2**32 - 1))
def test_random_problem_matches_float64(M, N, K, layout, dtype, kernel, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(dtype)
    w = rng.uniform(-1, 1, (N, K)).astype(dtype)
    b = w.T if layout == "TN" else np.ascontiguousarray(w.T)
    # (a b of one row or column is both layouts at once: read as NN)
    if refuses_layout(kernel, layout if min(N, K) > 1 else "NN", lambda: tcgemm.matmul(a, b, kernel=kernel)):
        return
    with tcgemm.DeviceArray.empty((M, N), dtype) as out:
        out._buf.fill_bytes(0xFF)
        tcgemm.matmul(a, b, kernel=kernel, out=out)
        got = out.numpy()
    assert np.isfinite(got.astype(np.float32)).all()
    assert rel_err(got, a.astype(np.float64) @ b.astype(np.float64)) < bound(dtype, "f32")
