"""Workspaces kept between calls, per framework, device, stream and thread.

A split-K kernel needs fp32 scratch for its partial sums, and a call with
operands the kernels cannot read in place needs padded buffers
(``_staging.py``). Taking them from the framework's allocator on every call
costs a few microseconds of host time, so, as cuBLAS keeps a workspace per
handle and stream, one is kept per (framework, device, stream, thread) and
reused: work on one stream is ordered, so one thread's consecutive calls on
it can share the bytes (``stream_key`` says why the thread is in the key).

What is kept is bounded. A process that makes streams as it goes (a server
with a stream per request, threads with their own streams) must not keep a
workspace for every stream it ever used, and a stream handle says nothing of
whether its stream still exists (torch hands out streams from a fixed pool
and never destroys them; a handle of a destroyed stream can be given to a
new one). So each device keeps the workspaces of its ``MAX_STREAMS`` most
recently used streams and drops the least recently used one beyond that;
where the framework's stream is an object that can be watched (cupy), its
entry also goes when the object does. ``clear()`` (``release_memory()``)
drops them all.

Why dropping one is safe at any moment, though work queued on its stream
may still use it: a workspace is allocated by the framework's allocator with
the call's stream current (``_call.workspace`` runs inside the call, where
that stream is the framework's current one) and is only ever used on that
stream. torch's caching allocator and cupy's pool hand a freed block again
only to allocations on the stream it was allocated on, which are ordered
after the queued work -- the rule that lets any tensor be freed while a
kernel on its own stream still reads it (``record_stream`` is needed only
for a tensor used on a stream other than its allocation stream, which a
kept workspace never is). A handle that outlives its stream and is given to
a new one does not share the kept workspace with unfinished work either: a
destroyed stream's resources are released only once its queued work has
completed (cudaStreamDestroy), so its handle cannot name a new stream
before then. Workspaces of calls being captured into a CUDA
graph are never kept (``_call.workspace`` takes fresh memory from the
framework, which serves the graph's private pool), so nothing dropped here
can be in use by a graph.

The cache itself knows nothing of frameworks (``_call.workspace`` asks the
framework for memory on a miss and puts it here), so its policy is tested
without a GPU (tests/python/test_workspace_cache.py).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

MAX_STREAMS = 8  # streams per (framework, device) whose workspace is kept

def stream_key(sh: int):
    """A workspace's key: the stream handle and the calling thread. The thread because a
    call is several launches (the staging copies, the GEMM, a split-K reduction) made with
    the GIL released, so two threads on one stream (torch's or cupy's default stream is
    shared by every thread that does not pick its own) can interleave their launches: with
    one workspace between them, one thread's copy could overwrite the other's operands
    between its copy and its GEMM. Per thread, a workspace is used by calls enqueued in
    program order. (It also keeps apart the per-thread default stream, cudaStreamPerThread:
    one handle, a different stream in every thread.)"""
    return sh, threading.get_ident()


class WorkspaceCache:
    """At most ``max_streams`` workspaces per (framework kind, device), least
    recently used dropped first. Thread-safe: a hit takes no lock."""

    def __init__(self, max_streams: int = MAX_STREAMS):
        self.max_streams = max_streams
        self._lock = threading.Lock()
        self._devices: dict = {}  # (kind, device) -> OrderedDict(stream key -> (keep, ptr, nbytes))
        self._watched = weakref.WeakSet()  # stream objects whose end drops their entry

    def lookup(self, kind, device, sh, nbytes):
        """-> (keep-alive, pointer) of the workspace kept for stream handle `sh`
        if it has at least `nbytes`, else None (then make one and put() it)."""
        lru = self._devices.get((kind, device))
        if lru is None:
            return None
        key = (sh, threading.get_ident())  # stream_key(sh), inlined
        e = lru.get(key)
        if e is None or e[2] < nbytes:
            return None
        try:
            lru.move_to_end(key)
        except KeyError:  # dropped by another thread since: the caller holds `e`
            pass
        return e

    def put(self, kind, device, sh, keep, ptr, nbytes, owner=None):
        """Keep (keep, ptr) of `nbytes` as stream `sh`'s workspace (the one kept
        before, if any, goes), dropping the least recently used beyond
        max_streams. `owner`: an object whose life is the stream's, or None; the
        entry goes with it (a handle cannot name another stream while it lives).
        -> (keep, ptr)."""
        key = stream_key(sh)
        e = (keep, ptr, nbytes)
        dropped = []
        with self._lock:
            lru = self._devices.setdefault((kind, device), OrderedDict())
            old = lru.pop(key, None)
            if old is not None:
                dropped.append(old)
            lru[key] = e
            while len(lru) > self.max_streams:
                dropped.append(lru.popitem(last=False)[1])
        if owner is not None:
            self._watch(owner, kind, device, key)
        del dropped  # freed outside the lock (a framework's free may run Python code)
        return e

    def _watch(self, owner, kind, device, key):
        """Drop `key`'s workspace when `owner` (the stream object) goes: once per owner."""
        try:
            if owner in self._watched:
                return
            self._watched.add(owner)
        except TypeError:  # not weakly referenceable: the bound alone applies
            return
        weakref.finalize(owner, self._forget, kind, device, key[0])

    def _forget(self, kind, device, sh):
        """Drop stream handle `sh`'s workspaces, of every thread."""
        with self._lock:
            lru = self._devices.get((kind, device))
            gone = [lru.pop(k) for k in [k for k in lru if k[0] == sh]] if lru is not None else []
        del gone  # freed outside the lock

    def clear(self) -> None:
        """Drop every kept workspace (each framework's allocator gets it back)."""
        with self._lock:
            held, self._devices = self._devices, {}
        del held

    def __len__(self) -> int:
        return sum(len(lru) for lru in list(self._devices.values()))

    def bytes_held(self) -> int:
        return sum(e[2] for lru in list(self._devices.values()) for e in list(lru.values()))

    def streams(self, kind, device) -> list:
        """The stream handles with a kept workspace (one per thread that used it), least recently
        used first."""
        lru = self._devices.get((kind, device))
        return [k[0] for k in list(lru)] if lru is not None else []
