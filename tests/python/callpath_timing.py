"""Host time of the Python call path, without a GPU: ``python3 tests/python/callpath_timing.py``.

``tcgemm.matmul`` on fake device operands (tests/python/fake_device.py: an
adapter shaped like the torch adapter, tensors that are plain objects), the
plan already cached, so every Python step of a repeated call runs: the
option checks, the adapters, the call record, the operands, the plan lookup,
the workspace cache and the launch arguments (``_core.RunArgs``, built for
real). ``_core.run`` itself is a no-op here; the binding's own argument
handling is timed apart. Not a test: timings, printed (the best of 15
repeats, microseconds per call).
"""
import os
import sys
import timeit
from pathlib import Path

# TCGEMM_PYTHON: another copy of python/ (with its _core) to time two versions side by side
sys.path.insert(0, os.environ.get("TCGEMM_PYTHON", str(Path(__file__).resolve().parents[2] / "python")))

import tcgemm  # noqa: E402
from tcgemm import _core  # noqa: E402
from fake_device import FakeTensor, install  # noqa: E402


def per_call_us(fn, n=20000):
    fn()
    return min(timeit.repeat(fn, number=n, repeat=15)) / n * 1e6


def binding_us():
    """The launch binding's own cost, plain and with the epilogue fields: up to
    its plan-handle check (a handle it refuses: the arguments are converted,
    nothing is launched), less raising and catching."""
    run = _core.run

    def refused(fn):
        def call():
            try:
                fn()
            except ValueError:
                pass
        return call

    if hasattr(_core, "RunArgs"):  # (building RunArgs is part of the Python rows)
        args = _core.RunArgs(1, 2, 3, 4, 8, 8, 8, 7, 0, 0, True)
        plain = full = refused(lambda: run(args))
    else:  # the positional forms before the call record
        plain = refused(lambda: run(1, 2, 3, 4, 8, 8, 8, 7, 0, 0, True))
        full = refused(lambda: _core.run_full(1, 2, 3, 4, 8, 8, 8, 7, 0, 0, True, 0.5, 0.0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0))
    base = per_call_us(refused(lambda: run_raise()))
    return per_call_us(plain) - base, per_call_us(full) - base


def run_raise():
    raise ValueError("not a plan handle")


def main():
    plain, full = binding_us()
    x, w, o = FakeTensor((64, 64)), FakeTensor((64, 64), 1 << 22), FakeTensor((64, 64), 1 << 23)
    bias = FakeTensor((64,), 1 << 24)
    rows = []
    def no_launch(*args):
        pass
    install(setattr, workspace_bytes=0, run=no_launch)
    rows.append(("matmul(x, w.T, out=o)", plain, per_call_us(lambda: tcgemm.matmul(x, w.T, out=o))))
    rows.append(("matmul(x, w.T)", plain, per_call_us(lambda: tcgemm.matmul(x, w.T))))
    rows.append(("matmul(x, w.T, out=o, stream=7)", plain, per_call_us(lambda: tcgemm.matmul(x, w.T, out=o, stream=7))))
    rows.append(("matmul(x, w.T, alpha=0.5, bias=, out=o)", full,
                 per_call_us(lambda: tcgemm.matmul(x, w.T, alpha=0.5, bias=bias, out=o))))
    # Ragged rows (no dimension a multiple of 8): staged by the launch (_staging.py).
    xr, wr, orr = FakeTensor((64, 65)), FakeTensor((65, 63), 1 << 22), FakeTensor((64, 63), 1 << 23)
    wt = FakeTensor((63, 65), 1 << 22).T
    rows.append(("ragged matmul(x, w, out=o): staged", plain, per_call_us(lambda: tcgemm.matmul(xr, wr, out=orr))))
    rows.append(("ragged matmul(x, w.T, out=o): staged", plain, per_call_us(lambda: tcgemm.matmul(xr, wt, out=orr))))
    install(setattr, workspace_bytes=1 << 20, run=no_launch)
    rows.append(("split-K, kept workspace, out=o", plain, per_call_us(lambda: tcgemm.matmul(x, w.T, out=o, split_k=4))))
    print(f"{'':42s} {'Python':>9s} {'+ launch binding':>17s}")
    for name, launch, us in rows:
        print(f"{name:42s} {us:6.2f} us {us + launch:14.2f} us")


if __name__ == "__main__":
    main()
