"""A fake device framework for host tests and timings of the Python call path.

``FakeTensor`` stands for a torch/cupy tensor (an address, a shape, strides in
elements); ``FakeAdapter`` is its adapter, shaped like ``_fw_torch``: what the
call path asks of a framework, answered without a GPU. ``install`` registers
it and replaces the C++ entry points that need a device (plan, capture
status, run) with stand-ins that record what they were given.
"""
import numpy as np

from tcgemm import _call, _core
from tcgemm._operands import Operand, classify, float16

HANDLE = 12345  # the plan handle the stand-in planner gives


class FakeTensor:
    """A float16 matrix (or batch) at a made-up, 16-byte aligned address."""

    def __init__(self, shape, ptr=1 << 20, strides=None, device=0):
        self.shape = tuple(shape)
        self.ptr, self.device = ptr, device
        if strides is None:
            strides = tuple(int(np.prod(self.shape[i + 1:])) for i in range(len(self.shape)))
        self.strides = tuple(strides)
        self.dtype = float16

    @property
    def T(self):
        return FakeTensor(self.shape[::-1], self.ptr, self.strides[::-1], self.device)


class FakeResult:
    """A result: its Operand's fields, and zeros when read as an array."""

    def __init__(self, d, shape):
        self.d, self.shape = d, shape
        self.ptr, self.rows, self.cols, self.batch = d.ptr, d.rows, d.cols, d.batch

    def __array__(self, dtype=None, copy=None):
        return np.zeros(self.shape, dtype or float16)


class FakeAdapter:
    kind = "fake"
    capturable_outputs = True
    STREAM = 7  # the framework's current stream
    allocations = []  # (nbytes, pointer) of every workspace made

    @staticmethod
    def device_of(x):
        return x.device

    @staticmethod
    def stream(device):
        return FakeAdapter.STREAM

    @staticmethod
    def stream_object(sh):
        return None

    @staticmethod
    def operand(x, what, any_rows=False):
        v = classify(x.ptr, x.shape, x.strides, any_rows=any_rows)
        if v is None:
            return None
        t, ld, sb = v
        if len(x.shape) == 3:
            nb, r, c = x.shape
            return Operand(x.ptr, r, c, ld, t, float16, x, nb, sb)
        r, c = x.shape
        return Operand(x.ptr, r, c, ld, t, float16, x)

    @staticmethod
    def strided(x, what):
        return x.ptr, x.shape, x.strides

    @staticmethod
    def dtype_of(x, what):
        return float16

    @staticmethod
    def scratch(nbytes, device, like, stream_):
        ptr = (1 << 36) + 4096 * len(FakeAdapter.allocations)
        FakeAdapter.allocations.append((nbytes, ptr))
        return object(), ptr

    @staticmethod
    def empty(batch, rows, cols, dtype, device, stream_, like, any_rows=False):
        p = cols if any_rows else (cols + 7) // 8 * 8
        return Operand(1 << 30, rows, cols, p, False, dtype, None, batch or 1, rows * p if batch else 0)

    @staticmethod
    def workspace(nbytes, device, like):
        ptr = (1 << 32) + 4096 * len(FakeAdapter.allocations)
        FakeAdapter.allocations.append((nbytes, ptr))
        return object(), ptr

    @staticmethod
    def result(d, batch, rows, cols):
        return FakeResult(d, (rows, cols) if d.bstride == 0 and batch == 1 else (batch, rows, cols))

    @staticmethod
    def vector(x, what):
        return x.ptr, float16, x.shape[0], x

    @staticmethod
    def mark_used(d, stream_):
        pass


class Launches:
    """The stand-ins for _core.plan / capture_status / run, and what run was given."""

    def __init__(self, workspace_bytes=0):
        self.workspace_bytes = workspace_bytes
        self.capturing = "none"
        self.runs = []  # every RunArgs given to run
        self.plans = []  # the arguments of every plan made

    def plan(self, *args, **kw):
        self.plans.append(args + ((kw,) if kw else ()))  # (scaled_matmul's plans: dtype_b, dtype_c, scale_mode)
        return HANDLE, "fake", self.workspace_bytes

    def capture_status(self, sh):
        return self.capturing

    def run(self, *args):
        self.runs.append(args[0] if len(args) == 1 else args)


def install(setattr_, workspace_bytes=0, run=None):
    """Register the fake framework; `setattr_` is monkeypatch.setattr (or plain
    setattr for a script). -> the Launches record."""
    rec = Launches(workspace_bytes)
    FakeAdapter.allocations = []
    _call._ADAPTERS[FakeTensor] = FakeAdapter
    setattr_(_call, "_PLANS", {})
    if hasattr(_call, "_RAGGED_AUTO"):
        setattr_(_call, "_RAGGED_AUTO", {})
    if hasattr(_call, "WORKSPACES"):
        from tcgemm._workspace import WorkspaceCache
        setattr_(_call, "WORKSPACES", WorkspaceCache())
    else:  # the positional launch before the call record (for timings side by side)
        _call._WORKSPACES.clear()
        setattr_(_core, "run_full", run or rec.run)
    setattr_(_core, "plan", rec.plan)
    setattr_(_core, "capture_status", rec.capture_status)
    setattr_(_core, "run", run or rec.run)
    return rec
