"""Where the benchmark's buffers come from and how cuBLAS is called: through
torch where installed (its cuBLAS, an fp32 reference), else tcgemm's own
buffers with no cuBLAS column and an fp64 reference on a row sample.

Buffers have 16-byte padded rows (the pitch tcgemm needs); cuBLAS gets the
same memory as strided views.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._api import DeviceArray, float16, to_device


class TorchBackend:
    name = "cuBLAS (torch)"

    def __init__(self, torch):
        self.torch = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
        torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
        self.version = f"torch {torch.__version__}, CUDA {torch.version.cuda}"

    def tdtype(self, dt):
        return self.torch.float16 if dt == float16 else self.torch.bfloat16

    def alloc(self, rows, cols, dt, random=True):
        """-> (storage tensor (rows, pitch), logical view (rows, cols), ptr, pitch)."""
        pitch = _core.pitch_for(cols)
        t = self.torch
        st = t.empty((rows, pitch), dtype=self.tdtype(dt), device="cuda")
        if random:
            st.uniform_(-1, 1)
        return st, st[:, :cols], st.data_ptr(), pitch

    def operand_b(self, view, layout):  # TN storage is (N, K): logical B is its transpose
        return view.t() if layout == "TN" else view

    def mm(self, a, b):
        return self.torch.mm(a, b)

    def reference(self, a, b):
        return self.torch.mm(a.float(), b.float())

    def rel_err(self, got, ref):
        g = got.float()
        nonfinite = int((~self.torch.isfinite(g)).sum().item())
        num = self.torch.linalg.vector_norm((g - ref).double()).item()
        den = self.torch.linalg.vector_norm(ref.double()).item()
        return num / (den or 1.0), nonfinite

    def poison(self, storage):
        storage.fill_(float("nan"))

    def time(self, fn, rotation, warmup, iters):
        """ms per call, each call between two events and waited for: the window
        also holds the host's time from the first event to the launch (torch's
        dispatch for cuBLAS, tcgemm's plan lookup and tensor-map encoding), a
        share that grows as the kernel shrinks."""
        t = self.torch
        for i in range(warmup):
            fn(*rotation[i % len(rotation)])
        out = []
        start, stop = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
        for i in range(iters):
            args = rotation[(warmup + i) % len(rotation)]
            start.record()
            fn(*args)
            stop.record()
            stop.synchronize()
            out.append(start.elapsed_time(stop))
        return out

    gate_cycles = 1 << 18  # the gate's first length (~0.13 ms at 2 GHz); doubled while too short

    def time_queued(self, fn, rotation, warmup, iters, chunk=8):
        """GPU ms per call, without the host's launch time: each chunk of calls
        (and their events) is enqueued behind a spin kernel (torch.cuda._sleep)
        that outlasts the enqueueing, so the GPU then runs them back to back
        and an event pair holds one call's GPU work only. A chunk whose gate
        ended before its last call was enqueued is thrown away and enqueued
        again behind a gate twice as long."""
        t = self.torch
        for i in range(warmup):
            fn(*rotation[i % len(rotation)])
        out = []
        while len(out) < iters:
            n = min(chunk, iters - len(out))
            gate = t.cuda.Event()
            t.cuda._sleep(self.gate_cycles)
            gate.record()
            events = []
            for j in range(n):
                start, stop = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
                start.record()
                fn(*rotation[(warmup + len(out) + j) % len(rotation)])
                stop.record()
                events.append((start, stop))
            covered = not gate.query()  # still spinning: every call was queued behind it
            events[-1][1].synchronize()
            if covered:
                out += [start.elapsed_time(stop) for start, stop in events]
            elif self.gate_cycles >= 1 << 31:
                raise RuntimeError("time_queued: a gate of 2^31 cycles did not outlast enqueueing a chunk")
            else:
                self.gate_cycles *= 2
        return out

    def free(self):
        self.torch.cuda.empty_cache()


class NativeBackend:
    """No torch or cupy: tcgemm's own buffers, no cuBLAS, fp64 reference on a row sample."""

    name = None
    version = "none (install torch or cupy for the cuBLAS column)"

    def alloc(self, rows, cols, dt, random=True):
        host = np.random.uniform(-1, 1, size=(rows, cols)).astype(dt) if random else None
        d = to_device(host) if random else DeviceArray.empty((rows, cols), dt)
        return d, (d, host), d.ptr, d.pitch

    def operand_b(self, view, layout):
        return view

    def poison(self, storage):
        storage._buf.fill_bytes(0xFF)

    def free(self):
        pass


def backend_for(prefer: str | None = None):
    if prefer != "none":
        try:
            import torch

            if torch.cuda.is_available():
                return TorchBackend(torch)
        except Exception:
            pass
    return NativeBackend()



def native_err(a, b, c, layout, sample=256):
    (da, ha), (db, hb) = a[1], b[1]
    got = c[0].numpy()[:sample].astype(np.float64)
    A = ha[:sample].astype(np.float64)
    B = hb.astype(np.float64)
    ref = A @ (B.T if layout == "TN" else B)
    nonfinite = int((~np.isfinite(got)).sum())
    return float(np.linalg.norm(got - ref) / (np.linalg.norm(ref) or 1.0)), nonfinite
