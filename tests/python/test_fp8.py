"""FP8: quantize_fp8 on NumPy, the scale shapes torch._scaled_mm's meaning gives, the C++ argument
checks for FP8 operands and scales, and the registry's FP8 entries (host tests).

The Hopper FP8 kernels (sm90.ws_fp8, sm90.ws_fp8.block) are compiled for sm_90a and have not run on a
GPU; tests/python/test_sass.py checks what their code holds. The Python scaled_matmul that would
drive them from NumPy and torch is not part of the package yet (docs/fp8.md), so there is no GPU test
here to skip."""
import numpy as np
import pytest

import tcgemm
from tcgemm import _core
from tcgemm._fp8 import FP8_MAX, scale_layout

ml_dtypes = pytest.importorskip("ml_dtypes")
E4M3, E5M2 = _core.DType.float8_e4m3fn, _core.DType.float8_e5m2


def _dequant(data, scale, block):
    rows, cols = data.shape
    s = np.asarray(scale, np.float64)
    if block in (None, "tensor"):
        full = np.full((rows, cols), float(s))
    elif block == "row":
        full = np.repeat(s, cols, axis=1)
    else:
        br, bc = block
        full = np.repeat(np.repeat(s, br, axis=0), bc, axis=1)[:rows, :cols]
    return data.astype(np.float64) * full


@pytest.mark.parametrize("block", [None, "tensor", "row", (1, 128), (128, 128)])
@pytest.mark.parametrize("shape", [(1, 1), (7, 129), (127, 1000), (300, 256)])
@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_quantize_fp8_round_trips_within_the_format(block, shape, dtype):
    """Each element within half an ulp of its block's format (e4m3: 3 mantissa bits, relative 2^-4;
    e5m2: 2 bits, 2^-3) of its block's largest magnitude scaled -- bounded here per element by
    the relative rounding plus the subnormal floor of the block's scale."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32) * rng.uniform(0.01, 100, (shape[0], 1)).astype(np.float32)
    data, scale = tcgemm.quantize_fp8(x, block=block, dtype=dtype)
    assert data.dtype == getattr(ml_dtypes, dtype) and data.shape == x.shape
    rows, cols = shape
    want = {None: (), "tensor": (), "row": (rows, 1), (1, 128): (rows, -(-cols // 128)),
            (128, 128): (-(-rows // 128), -(-cols // 128))}[block]
    assert scale.shape == want and scale.dtype == np.float32
    back = _dequant(data, scale, block)
    rel = 2.0 ** -4 if dtype == "float8_e4m3fn" else 2.0 ** -3
    s = _dequant(np.ones(shape, np.float32), scale, block)  # each element's scale
    tiny = 2.0 ** (-9 if dtype == "float8_e4m3fn" else -16)  # the smallest subnormal step
    assert np.all(np.abs(back - x) <= rel * np.abs(x) + tiny * s)
    assert np.abs(data.astype(np.float32)).max() <= FP8_MAX[dtype]


def test_quantize_fp8_maps_each_blocks_largest_to_the_formats_largest():
    x = np.zeros((130, 300), np.float32)
    x[0, 0], x[129, 299] = 3.0, -7.0
    data, scale = tcgemm.quantize_fp8(x, block=(128, 128))
    assert scale.shape == (2, 3)
    assert scale[0, 0] == np.float32(3.0 / 448) and scale[1, 2] == np.float32(7.0 / 448)
    assert scale[0, 1] == 1.0  # a block of zeros
    assert float(data[0, 0]) == 448.0 and float(data[129, 299]) == -448.0


@pytest.mark.parametrize("bad,exc,msg", [
    (dict(block=(64, 64)), ValueError, "block must be"),
    (dict(dtype="float16"), TypeError, "float8_e4m3fn or float8_e5m2"),
])
def test_quantize_fp8_refuses_what_it_does_not_do(bad, exc, msg):
    with pytest.raises(exc, match=msg):
        tcgemm.quantize_fp8(np.ones((4, 4), np.float32), **bad)
    with pytest.raises(ValueError, match="2-D"):
        tcgemm.quantize_fp8(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="floating-point"):
        tcgemm.quantize_fp8(np.ones((4, 4), np.int32))


def test_scale_layout_reads_torch_scaled_mm_shapes():
    M, N, K = 7, 200, 300
    assert scale_layout(M, N, K, (), (), (1, 1), (1, 1))[0] == _core.ScaleMode.tensor
    mode, st = scale_layout(M, N, K, (M, 1), (1, 1), (1, N), (N, 1))
    assert mode == _core.ScaleMode.rowwise and st == (1, 0, 1, 0)
    # block: A (M, 3) row-major or MN-major (DeepGEMM's TMA-aligned: column kb at kb * round_up(M, 4)).
    mode, st = scale_layout(M, N, K, (M, 3), (3, 1), (2, 3), (3, 1))
    assert mode == _core.ScaleMode.block and st == (3, 1, 3, 1)
    assert scale_layout(M, N, K, (M, 3), (1, 8), (2, 3), (3, 1))[1] == (1, 8, 3, 1)
    for sa, sb in [((M, 1), (N, 1)), ((M, 2), (2, 2)), ((1, M), (1, N)), ((M, 3), (1, N)), ((M, 1, 1), ())]:
        with pytest.raises(ValueError, match="scale"):
            scale_layout(M, N, K, sa, (1,) * len(sa), sb, (1,) * len(sb))


def _check(M=64, N=64, K=256, dtype=E4M3, layout=_core.Layout.TN, **opts):
    base = dict(dtype_c=_core.DType.bfloat16, scale_mode=_core.ScaleMode.tensor, scale_a=1 << 20,
                scale_b=1 << 21)
    base.update(opts)
    _core.check_args(M, N, K, K, K, N, dtype, layout, _core.Accum.f32, 1 << 22, 1 << 23, 1 << 24, **base)


def test_fp8_argument_checks_name_the_problem():
    _check()
    _check(dtype_b=E5M2)
    _check(dtype=E5M2, dtype_b=E4M3)
    _check(dtype_c=_core.DType.float32, scale_mode=_core.ScaleMode.block, scale_a_strides=(2, 1),
           scale_b_strides=(1, 1))
    for opts, msg in [(dict(dtype=E5M2, dtype_b=E5M2), "float8_e5m2 x float8_e5m2"),
                      (dict(dtype_c=E4M3), "output dtype"),
                      (dict(scale_mode=_core.ScaleMode.none), "FP8 operands need scales"),
                      (dict(scale_b=0), "both scale pointers"),
                      (dict(scale_a=(1 << 20) + 2), "4-byte aligned"),
                      (dict(K=200), "multiple of 16")]:
        K = opts.pop("K", 256)
        with pytest.raises(ValueError, match=msg):
            _check(K=K, **opts)
    with pytest.raises(ValueError, match="scales are for FP8"):
        _check(dtype=_core.DType.float16, dtype_c=_core.DType.float16)


def test_fp8_entries_in_the_registry():
    ks = {k["name"]: k for k in tcgemm.kernels()}
    for name, feature in [("sm90.ws_fp8", "scale_rowwise"), ("sm90.ws_fp8.block", "scale_block")]:
        k = ks[name]
        assert k["dtypes"] == ["float8_e4m3fn", "float8_e5m2"] and k["layouts"] == ["TN"]
        assert k["out_dtypes"] == ["float16", "bfloat16", "float32"]
        assert feature in k["features"] and "epilogue" in k["features"] and k["tile"] == (128, 128, 128)
    # The 16-bit entries take no scales and write their operands' type.
    for name, k in ks.items():
        if "float16" in k["dtypes"] or "bfloat16" in k["dtypes"]:
            assert not any(f.startswith("scale_") for f in k["features"]), name
            assert k["out_dtypes"] == k["dtypes"], name
