"""CPU-only fuzz of the argument-checking layers (no GPU needed; runs in CI)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgemm
from tcgemm import _core

D, L, A = _core.DType, _core.Layout, _core.Accum
ints = st.one_of(st.integers(-5, 5000), st.integers(-(2**40), 2**40), st.sampled_from([0, 1, 8, 2**31 - 1, 2**31]))


def model_ok(M, N, K, lda, ldb, ldc, layout, a, b, c):
    """The documented rules, restated independently of the C++ code."""
    if min(M, N, K) < 1 or max(M, N, K) >= 2**31:
        return False
    if 0 in (a, b, c) or any(p % 16 for p in (a, b, c)):
        return False
    bcols = N if layout == L.NN else K
    return all(ld >= need and ld % 8 == 0 for ld, need in ((lda, K), (ldb, bcols), (ldc, N)))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(M=ints, N=ints, K=ints, lda=ints, ldb=ints, ldc=ints, layout=st.sampled_from([L.NN, L.TN]),
       dtype=st.sampled_from([D.float16, D.bfloat16]), a=st.integers(0, 2**48), b=st.integers(0, 2**48),
       c=st.integers(0, 2**48))
def test_check_args_agrees_with_the_rules(M, N, K, lda, ldb, ldc, layout, dtype, a, b, c):
    expect = model_ok(M, N, K, lda, ldb, ldc, layout, a, b, c)
    try:
        _core.check_args(M, N, K, lda, ldb, ldc, dtype, layout, A.f32, a, b, c)
        assert expect
    except ValueError as e:
        assert not expect, str(e)
        assert str(e)  # names the problem
    except TypeError:
        # values pybind11 cannot convert (beyond int64) are refused before the checks
        assert max(abs(x) for x in (M, N, K, lda, ldb, ldc)) >= 2**63 or min(a, b, c) < 0


dtypes = st.sampled_from([np.float16, tcgemm.bfloat16, np.float32, np.float64, np.int8, np.int64, np.bool_,
                          np.complex64, object])
shapes = st.lists(st.integers(0, 6), min_size=0, max_size=3).map(tuple)


@settings(max_examples=300, deadline=None)
@given(sa=shapes, sb=shapes, da=dtypes, db=dtypes, acc=st.sampled_from(["f32", "f16", "bad"]),
       kernel=st.sampled_from(["auto", "sm89.mma.s3", "nope", 7]))
def test_matmul_fails_only_with_clear_exceptions(sa, sb, da, db, acc, kernel):
    a = np.zeros(sa, dtype=da)
    b = np.zeros(sb, dtype=db)
    try:
        c = tcgemm.matmul(a, b, accumulate=acc, kernel=kernel)
    except (TypeError, ValueError, RuntimeError) as e:
        assert str(e).startswith("tcgemm:") or "no CUDA device" in str(e) or "cannot run" in str(e), str(e)
        return
    # accepted: then it is the product NumPy's matmul rules define (2-D, or batched 3-D)
    assert len(sa) in (2, 3) and len(sb) in (2, 3), (sa, sb)
    assert c.shape == np.matmul(np.zeros(sa, np.float32), np.zeros(sb, np.float32)).shape and c.dtype == a.dtype
