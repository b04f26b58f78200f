"""The policy of the split-K workspace cache (python/tcgemm/_workspace.py), on
the host: what is kept, for which stream, what goes and when. The workspaces
here are plain objects; that one is freed shows as its weak reference dying."""
import gc
import threading
import weakref

import pytest

from tcgemm import _workspace
from tcgemm._workspace import WorkspaceCache


class Block:
    """A stand-in for a framework's allocation (weakly referenceable)."""

    def __init__(self, nbytes):
        self.nbytes = nbytes


def get(cache, sh, nbytes, kind="torch", device=0, owner=None):
    """_call.workspace's use of the cache: lookup, else make one and put it."""
    w = cache.lookup(kind, device, sh, nbytes)
    if w is None:
        b = Block(nbytes)
        w = cache.put(kind, device, sh, b, id(b), nbytes, owner)
    return w[0]


def test_a_repeated_request_on_a_stream_reuses_its_workspace():
    c = WorkspaceCache()
    first = get(c, 7, 1000)
    assert get(c, 7, 1000) is first
    assert get(c, 7, 10) is first  # smaller: the kept one serves
    assert len(c) == 1 and c.bytes_held() == 1000


def test_a_larger_request_replaces_the_kept_one_and_frees_it():
    c = WorkspaceCache()
    small = weakref.ref(get(c, 7, 1000))
    big = get(c, 7, 5000)
    assert big.nbytes == 5000 and len(c) == 1
    gc.collect()
    assert small() is None, "the replaced workspace is still held"
    assert get(c, 7, 3000) is big


def test_streams_devices_and_frameworks_each_have_their_own():
    c = WorkspaceCache()
    blocks = {get(c, 7, 100), get(c, 8, 100), get(c, 7, 100, device=1), get(c, 7, 100, kind="cupy")}
    assert len(blocks) == 4 and len(c) == 4


def test_at_most_max_streams_are_kept_per_device_least_recently_used_first():
    c = WorkspaceCache(max_streams=4)
    refs = {sh: weakref.ref(get(c, sh, 100)) for sh in range(10, 14)}
    get(c, 10, 100)  # stream 10 used again: 11 is now the least recently used
    for sh in range(20, 22):
        get(c, sh, 100)
    gc.collect()
    assert c.streams("torch", 0) == [13, 10, 20, 21]
    assert refs[11]() is None and refs[12]() is None, "dropped workspaces are still held"
    assert refs[10]() is not None and refs[13]() is not None
    get(c, 5, 100, device=1)  # another device's bound is its own
    assert len(c.streams("torch", 0)) == 4 and len(c) == 5


def test_workspaces_of_streams_used_once_do_not_accumulate():
    """A server that makes a stream per request: the bytes held stop growing at
    max_streams workspaces, however many streams came and went."""
    c = WorkspaceCache()
    held = []
    for sh in range(1000, 1000 + 50 * _workspace.MAX_STREAMS):
        get(c, sh, 4096)
        held.append(c.bytes_held())
    assert max(held) == _workspace.MAX_STREAMS * 4096
    assert held[-1] == held[_workspace.MAX_STREAMS - 1]


def test_clear_frees_every_stream_s_workspace():
    c = WorkspaceCache()
    refs = [weakref.ref(get(c, sh, 100, device=sh % 2)) for sh in range(10, 16)]
    c.clear()
    gc.collect()
    assert len(c) == 0 and c.bytes_held() == 0
    assert all(r() is None for r in refs)
    assert get(c, 10, 100) is not None  # and it fills again


def _from_another_thread(c, sh, nbytes):
    """What get() hands a new thread for stream handle `sh`."""
    got = []
    t = threading.Thread(target=lambda: got.append(get(c, sh, nbytes)))
    t.start()
    t.join()
    return got[0]


def test_the_per_thread_default_stream_is_a_different_stream_in_each_thread():
    """cudaStreamPerThread (handle 2) names another stream in every thread: two
    threads must not share one workspace through it (their kernels run at once)."""
    c = WorkspaceCache()
    mine = get(c, 2, 100)
    assert _from_another_thread(c, 2, 100) is not mine
    assert get(c, 2, 100) is mine
    assert get(c, 0, 100) is not mine


def test_threads_on_one_stream_do_not_share_a_workspace():
    """A call is several launches made with the GIL released (staging copies, GEMM, reduction):
    two threads on one stream (the legacy default stream here) could interleave them, so each
    thread keeps its own."""
    c = WorkspaceCache()
    mine = get(c, 0, 100)
    assert _from_another_thread(c, 0, 100) is not mine and get(c, 0, 100) is mine


class Owner:
    """A stand-in for a framework's stream object (weakly referenceable)."""


def test_an_entry_goes_with_its_stream_object():
    c = WorkspaceCache()
    s = Owner()
    ref = weakref.ref(get(c, 9, 100, owner=s))
    get(c, 9, 500, owner=s)  # grown: still one entry, still watched
    keep = get(c, 10, 100, owner=Owner())  # its owner is gone at once
    assert c.streams("torch", 0) == [9]
    del s
    gc.collect()
    assert len(c) == 0 and ref() is None
    del keep


def test_an_owner_is_watched_once_however_often_its_entry_is_made():
    c = WorkspaceCache(max_streams=1)
    s = Owner()
    for i in range(50):  # two streams taking turns: every lookup misses
        get(c, 9, 100, owner=s)
        get(c, 10, 100)
    assert len(c._watched) == 1
    assert sum(1 for f in gc.get_objects() if isinstance(f, weakref.finalize) and f.peek()
               and f.peek()[0] is s) == 1


def test_an_owner_that_cannot_be_watched_leaves_the_bound_alone():
    c = WorkspaceCache()
    get(c, 9, 100, owner=3)  # ints take no weak reference
    assert c.streams("torch", 0) == [9]


def test_a_dead_owner_does_not_drop_a_later_stream_s_entry():
    """The owner's entry is dropped when it goes; a new stream given the same
    handle afterwards keeps its own."""
    c = WorkspaceCache()
    s = Owner()
    get(c, 9, 100, owner=s)
    del s
    gc.collect()
    assert len(c) == 0
    s2 = Owner()
    b2 = get(c, 9, 100, owner=s2)
    gc.collect()
    assert c.lookup("torch", 0, 9, 100)[0] is b2


def test_many_threads_at_once():
    """Lookups take no lock: threads on their own streams (and some on shared
    ones), with clears between, never see a torn entry or break the bound."""
    c = WorkspaceCache(max_streams=4)
    errors = []
    stop = threading.Event()

    def work(t):
        try:
            for i in range(2000):
                sh = 100 + (t * 7 + i) % 12
                n = 64 * (1 + i % 5)
                w = get(c, sh, n)
                if not isinstance(w, Block) or w.nbytes < n:
                    errors.append((t, i, w))
                if len(c.streams("torch", 0)) > 4:
                    errors.append((t, i, "bound"))
        except Exception as e:  # pragma: no cover - reported below
            errors.append((t, repr(e)))

    def clearer():
        while not stop.is_set():
            c.clear()

    cl = threading.Thread(target=clearer)
    cl.start()
    ths = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    stop.set()
    cl.join()
    assert not errors, errors[:5]
    assert len(c.streams("torch", 0)) <= 4


@pytest.mark.parametrize("sh", [0, 1, 7, 2])
def test_stream_key(sh):
    assert _workspace.stream_key(sh) == (sh, threading.get_ident())
