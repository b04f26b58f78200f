"""The benchmark harness runs on a tiny sweep and its JSON has the promised fields."""
import json
import os
import pathlib

import pytest

from conftest import gpu
from tcgemm import bench


def test_shape_parsing_and_presets():
    assert bench.parse_shapes(["4096", "16x8192x8192"]) == [(4096, 4096, 4096), (16, 8192, 8192)]
    assert (4095, 4097, 4093) in bench.parse_shapes(["odd"])
    assert len(bench.select_kernels(["sm89.mma.s*"])) == 4


def test_random_and_llm_presets():
    from tcgemm.bench import shapes as bs
    a, b = bs.random_jobs(7, 40), bs.random_jobs(7, 40)
    assert a == b and a != bs.random_jobs(8, 40)  # a seed is a fixed set of shapes
    dims = [d for j in a for d in j[:3]]
    assert all(256 <= d <= 8192 for d in dims)
    assert any(d % 8 for d in dims) and sum(d % 8 == 0 for d in dims) > len(dims) // 4  # ragged and aligned
    assert {j[3] for j in a} == {"fp16", "bf16"} and {j[4] for j in a} == {"TN", "NN"}
    assert {j[3] for j in bs.random_jobs(7, 10, dtypes=("bf16",))} == {"bf16"}
    # --aligned-share 1: the same seed's shapes, every dimension rounded down to a multiple of 8
    al = bs.random_jobs(7, 40, aligned=1.0)
    assert [j[3:] for j in al] == [j[3:] for j in a] and all(d % 8 == 0 for j in al for d in j[:3])
    assert [d // 8 * 8 for j in a for d in j[:3]] == [d for j in al for d in j[:3]]
    jobs = bs.jobs_for([(64, 64, 64)], ["fp16"], ["TN", "NN"], seeds=[1, 2], count=3)
    assert len(jobs) == 2 + 6 and jobs[0] == (64, 64, 64, "fp16", "TN", None) and jobs[-1][-1] == 2
    assert (16, 14336 * 2, 4096) in bs.PRESETS["llm"] and (4096, 8192, 28672) in bs.PRESETS["llm"]
    assert bs.geomean([0.5, 2.0]) == pytest.approx(1.0)
    rows = [{"kernel": "auto", "seed": 1, "M": m, "N": 16, "K": 24, "dtype": "fp16", "layout": "TN",
             "vs_cublas_paired": v, "picked": "sm90.ws_persistent"} for m, v in ((1, 0.5), (8, 2.0))]
    rows.append({"kernel": "cuBLAS (torch)", "seed": 1, "M": 1, "N": 2, "K": 3, "vs_cublas_paired": 1.0})
    by_subset = {r["subset"]: r for r in bench.ratio_summary(rows)}
    assert set(by_subset) == {"all", "multiples of 8", "not multiples of 8"}
    summ, aligned, ragged = by_subset["all"], by_subset["multiples of 8"], by_subset["not multiples of 8"]
    assert aligned["rows"] == 1 and aligned["min"] == 2.0 and "8x16x24" in aligned["worst"]
    assert ragged["rows"] == 1 and ragged["min"] == 0.5 and "1x16x24" in ragged["worst"]
    assert summ["rows"] == 2 and summ["min"] == 0.5 and summ["geomean"] == pytest.approx(1.0)
    assert "(sm90.ws_persistent)" in summ["worst"]
    for name in ("decode", "ragged", "split_tail"):
        assert bs.PRESETS[name] and len(set(bs.PRESETS[name])) == len(bs.PRESETS[name])
    assert all(d % 8 for s in bs.PRESETS["ragged"] for d in s)  # every dimension ragged
    assert {m for m, _, _ in bs.PRESETS["llm"]} >= {1, 256, 4096}  # one-token decode up to prefill


@gpu
def test_random_preset_with_auto(tmp_path):
    out = tmp_path / "r.json"
    rc = bench.main(["--preset", "random", "--seed", "3", "--count", "2", "--kernels", "auto", "--iters", "3",
                     "--warmup", "1", "--paired", "2", "--json", str(out), "--md", str(tmp_path / "r.md")])
    assert rc == 0
    rows = [r for r in json.loads(out.read_text())["rows"] if r["kernel"] == "auto"]
    assert len(rows) == 2 and all(r["seed"] == 3 and r["status"] == "ok" and r["picked"] for r in rows)
    if "vs_cublas" in rows[0]:
        assert "geometric mean" in (tmp_path / "r.md").read_text()


@gpu
def test_tiny_sweep_json(tmp_path):
    out = tmp_path / "r.json"
    rc = bench.main(["--shapes", "256", "130x200x70", "--kernels", "sm89.mma_swz_x4.s3", "--iters", "3",
                     "--warmup", "1", "--layouts", "TN", "NN", "--sustain", "0.02", "--json", str(out),
                     "--md", str(tmp_path / "r.md")])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["environment"]["gpu"]
    rows = [r for r in res["rows"] if r["kernel"] == "sm89.mma_swz_x4.s3"]
    assert len(rows) == 4
    for r in rows:
        assert {"M", "N", "K", "dtype", "layout", "median_ms", "min_ms", "max_ms", "tflops", "rel_err",
                "status"} <= set(r)
        assert r["status"] == "ok" and r["min_ms"] <= r["median_ms"] <= r["max_ms"]
        assert r["sustained"]["calls"] >= 1 and r["sustained"]["tflops"] > 0
        if "vs_cublas" in r:  # cuBLAS present: the paired re-timing too
            assert r["paired"]["rounds"] == 4 and r["vs_cublas_paired"] > 0
    env = res["environment"]
    if env.get("mma_sync_peak_tflops"):  # an Ada kernel ran: its ceiling, and sustained with --sustain
        assert env["mma_sync_peak_sustained"]["calls"] >= 1
        assert 0 < env["mma_sync_peak_sustained"]["tflops"] < 2 * env["mma_sync_peak_tflops"]["f32"]
        fed = env["mma_sync_ldmatrix_peak_sustained"]["tflops"]
        assert 0 < fed < 2 * env["mma_sync_peak_tflops"]["f32_ldmatrix"]


def test_markdown_sustained_columns():
    """The sustained columns: the kernel's settled TFLOPS over cuBLAS's, its clock and power."""
    base = {"M": 64, "N": 64, "K": 64, "dtype": "fp16", "layout": "TN", "accumulate": "f32", "median_ms": 1.0,
            "min_ms": 0.9, "max_ms": 1.1, "tflops": 100.0, "rel_err": 1e-4}
    res = {"environment": {"gpu": "X"}, "rows": [
        dict(base, kernel="cuBLAS (torch)", vs_cublas=1.0,
             sustained={"tflops": 200.0, "sm_clock_mhz": 1900, "power_w": 650.0, "calls": 10}),
        dict(base, kernel="k", vs_cublas=0.5, status="ok",
             sustained={"tflops": 150.0, "sm_clock_mhz": 1700, "power_w": 700.0, "calls": 10})]}
    text = bench.to_markdown(res)
    assert "sustained TFLOPS | vs cuBLAS | MHz | W" in text
    assert "| 150.0 | 0.75x | 1700 | 700 | ok |" in text


def test_markdown_sustained_ceiling():
    """The header names the ceiling and, when measured, the same ceiling at the power limit."""
    env = {"gpu": "X", "mma_sync_peak_tflops": {"f32": 640.0, "f16": 648.0}, "mma_sync_peak_sm_clock_mhz": 1980}
    assert "sustained" not in bench.to_markdown({"environment": env, "rows": []})
    env["mma_sync_peak_tflops"]["f32_ldmatrix"] = 512.3
    env["mma_sync_peak_sustained"] = {"tflops": 600.4, "sm_clock_mhz": 1755, "power_w": 698.2, "calls": 300}
    env["mma_sync_ldmatrix_peak_sustained"] = {"tflops": 455.6, "sm_clock_mhz": 1620, "power_w": 699.0, "calls": 250}
    text = bench.to_markdown({"environment": env, "rows": []})
    assert "640 TFLOPS f32 accumulate, 648 f16 accumulate (at 1980 MHz)" in text
    assert "no global loads): 512 TFLOPS f32 accumulate" in text
    assert "register-only ceiling sustained (back to back, settled half): 600 TFLOPS at 1755 MHz, 698 W" in text
    assert "ldmatrix-fed ceiling sustained (back to back, settled half): 456 TFLOPS at 1620 MHz, 699 W" in text


def test_time_mma_ceiling_rejects_no_launches():
    """Checked before any device call, so this runs without a GPU too."""
    from tcgemm import _core

    with pytest.raises(ValueError, match="launches"):
        _core.time_mma_ceiling(_core.Accum.f32, 0)
    with pytest.raises(ValueError, match="launches"):
        _core.time_mma_ceiling(_core.Accum.f32, -3, True)


def test_replot_the_committed_results_without_a_gpu(tmp_path):
    """The committed H200 results regenerate their table (and plots, where matplotlib is installed)."""
    import pathlib

    src = pathlib.Path(__file__).resolve().parents[2] / "bench" / "results" / "h200.json"
    res = json.loads(src.read_text())
    assert {"gpu", "driver_version", "tcgemm", "cublas_via"} <= set(res["environment"])
    md = tmp_path / "t.md"
    args = ["--replot", str(src), "--md", str(md)]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(tmp_path / "plots")]
    except ImportError:
        pass
    assert bench.main(args) == 0
    text = md.read_text()
    assert "| 4096x4096x4096 | fp16 | TN | cuBLAS" in text and "sm90.ws_persistent" in text
    rows = [r for r in res["rows"] if "median_ms" in r]
    assert all(r["min_ms"] <= r["median_ms"] <= r["max_ms"] for r in rows)
    assert all(r.get("status") in ("ok", None) for r in rows if not r["kernel"].startswith("cuBLAS"))


def test_ratio_plot_for_listed_shapes_not_for_cubes(tmp_path):
    """A list of non-cubic shapes (the committed pick checks) gets a ratio-vs-size plot; the cubes
    of h200.json get only their TFLOPS plots."""
    pytest.importorskip("matplotlib")
    import pathlib

    from tcgemm.bench import plots

    results = pathlib.Path(__file__).resolve().parents[2] / "bench" / "results"
    listed = plots.plot(json.loads((results / "h200_pick_checks.json").read_text()), str(tmp_path / "listed"))
    cubes = plots.plot(json.loads((results / "h200.json").read_text()), str(tmp_path / "cubes"))
    assert [os.path.basename(p) for p in listed] == ["ratio_vs_size.png"]
    assert "ratio_vs_size.png" not in [os.path.basename(p) for p in cubes] and cubes


def test_fp8_replot_of_the_committed_results_without_a_gpu(tmp_path):
    """The committed FP8 results redraw their table and, where matplotlib is installed, the plot of
    auto's paired ratio to torch._scaled_mm and the block-scaled TFLOPS beside DeepGEMM's."""
    import pathlib

    src = pathlib.Path(__file__).resolve().parents[2] / "bench" / "results" / "h100_fp8.json"
    md = tmp_path / "t.md"
    args = ["--fp8", "--replot", str(src), "--md", str(md)]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", str(tmp_path / "plots")]
        plotted = True
    except ImportError:
        plotted = False
    assert bench.main(args) == 0
    text = md.read_text()
    assert "scaled_matmul beside torch._scaled_mm" in text and "| block | auto | f32 |" in text
    if plotted:
        assert os.listdir(tmp_path / "plots") == ["fp8_vs_size.png"]


def test_a_cut_off_run_keeps_its_rows(tmp_path):
    """report.Checkpoint: after each job the rows so far in `<json>.partial` (replaced whole, never
    half-written); its replot says the table is partial; the whole file's write removes it. The FP8
    rows of the committed H100 file stand in for a run stopped after its first eight jobs."""
    import json
    import pathlib

    from tcgemm.bench import fp8
    from tcgemm.bench.report import Checkpoint

    full = json.loads((pathlib.Path(__file__).resolve().parents[2] / "bench" / "results" / "h100_fp8.json").read_text())
    out = tmp_path / "r.json"
    ck = Checkpoint(str(out))
    ck.env = full["environment"]  # (computed on the first call where a GPU run makes one)
    rows = []
    for r in full["rows"][:8]:
        rows.append(r)
        ck(rows, summary=fp8.summary(rows), d2d_gbps=full["d2d_gbps"])
        saved = json.loads(pathlib.Path(str(out) + ".partial").read_text())
        assert saved["partial"] is True and saved["rows"] == rows and saved["environment"] == full["environment"]
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["r.json.partial"]
    md = tmp_path / "r.md"
    assert bench.main(["--fp8", "--replot", str(out) + ".partial", "--md", str(md)]) == 0
    text = md.read_text()
    assert "- partial: the run stopped before its last job" in text
    assert text.count("\n| ") >= 8 and "partial" not in fp8.to_markdown(full)
    out.write_text(json.dumps(full))
    ck.done()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.md"]


def test_user_path_table_from_rows():
    from tcgemm.bench import user as bench_user
    res = {"environment": {"gpu": "G", "date": "d", "pcie": {"pageable_h2d_gbps": 22.0, "pinned_h2d_gbps": 55.0},
                           "tcgemm": {"version": "0", "archs": ["90a"]}},
           "rows": [dict(path="overhead", variant="out", M=64, N=64, K=64, dtype="fp16", tcgemm_ms=0.02,
                         ref="torch.matmul", ref_ms=0.01),
                    dict(path="numpy", variant="pageable", M=4096, N=4096, K=4096, dtype="fp16", tcgemm_ms=5.0,
                         ref="cupy round trip", ref_ms=25.0, bound_ms=4.8)]}
    md = bench_user.to_markdown(res)
    assert "| overhead | out | 64x64x64 | fp16 | 0.0200 | torch.matmul | 0.0100 | 0.50 |" in md
    assert "| numpy | pageable | 4096x4096x4096 | fp16 | 5.0000 | cupy round trip | 25.0000 | 5.00 |  | 4.80 |  |" in md
    assert "pageable_h2d 22.0" in md


def test_ragged_user_shapes_are_ragged_and_reproducible():
    from tcgemm.bench import user as bench_user
    a, b = bench_user.ragged_shapes(), bench_user.ragged_shapes()
    assert a == b and len(a) == len(bench_user.RAGGED) + bench_user.RAGGED_UNTUNED
    assert a[:len(bench_user.RAGGED)] == bench_user.RAGGED
    assert all(d % 8 for s in a[len(bench_user.RAGGED):] for d in s)
    assert len(set(a)) == len(a)


@gpu
def test_user_path_tiny(monkeypatch):
    pytest.importorskip("torch")
    from tcgemm.bench import user as bench_user
    for name, value in (("OVERHEAD", [(64, 64, 64)]), ("GRAPH", [(64, 128, 256)]), ("SQUARES", [256]),
                        ("DECODE", [(16, 256, 512)]), ("NUMPY", [512]), ("RAGGED", [(33, 45, 61)]),
                        ("RAGGED_UNTUNED", 1)):
        monkeypatch.setattr(bench_user, name, value)
    res = bench_user.run(rounds=2, log=lambda *a: None)
    paths = {r["path"] for r in res["rows"]}
    assert paths == {"overhead", "torch_new", "torch_out", "graph", "ragged", "numpy"}
    assert {r["variant"] for r in res["rows"] if r["path"] == "ragged"} == {"NN loop", "TN loop", "NN graph",
                                                                           "TN graph"}
    for r in res["rows"]:
        assert {"path", "M", "N", "K", "dtype", "tcgemm_ms", "ref", "ref_ms"} <= set(r)
        assert r["tcgemm_ms"] > 0 and r["ref_ms"] > 0
        assert r["path"] != "numpy" or r["bound_ms"] > 0
        assert r.get("rel_err", 0) < 1e-2


def test_queued_timing_grows_its_gate_until_it_covers_the_enqueueing():
    """TorchBackend.time_queued against a simulated stream: host calls take time
    to enqueue; the gate (a spin of N cycles) ends N / clock after it was
    enqueued; a chunk whose gate ended before its last call was enqueued is
    discarded and re-timed behind a gate twice as long."""
    from tcgemm.bench.references import TorchBackend

    class Sim:
        host_us, gate_end_us, calls = 0.0, 0.0, 0

    sim = Sim()

    class Event:
        def __init__(self, enable_timing=False):
            self.gate = not enable_timing

        def record(self):
            pass

        def query(self):  # the gate event: reached once the spin has ended
            return sim.host_us >= sim.gate_end_us

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 0.25  # the simulated kernel's GPU time (ms)

    def sleep(cycles):
        sim.gate_end_us = sim.host_us + cycles / 2000.0  # a 2 GHz clock

    class FakeTorch:
        cuda = type("cuda", (), {"Event": Event, "_sleep": staticmethod(sleep)})

    be = TorchBackend.__new__(TorchBackend)
    be.torch = FakeTorch
    be.gate_cycles = 1 << 10  # 0.5 us: far shorter than enqueueing 8 calls

    def call(*args):
        sim.calls += 1
        sim.host_us += 20.0  # host time to enqueue one call

    ms = be.time_queued(call, [(), ()], warmup=2, iters=20)
    assert ms == [0.25] * 20
    assert be.gate_cycles >= 8 * 20.0 * 2000  # now outlasts a chunk of 8 calls
    assert sim.calls > 2 + 20  # the chunks behind a short gate were thrown away and re-run
    before = sim.calls
    be.time_queued(call, [()], warmup=0, iters=8)  # the grown gate is kept: no retry
    assert sim.calls - before == 8


def test_default_timing_is_gpu_time_where_torch_is():
    """`timing="auto"` (the CLI's default) resolves to GPU-only timing when the
    cuBLAS backend can queue calls (torch), and to launch-inclusive timing
    without it; asking for queued timing without torch is a clear error."""
    from tcgemm.bench import harness
    from tcgemm.bench.references import NativeBackend

    class Queueing(NativeBackend):
        def time_queued(self, fn, rotation, warmup, iters, chunk=8):
            raise AssertionError("no rows to time")

    run = lambda backend, **kw: harness.run([], backend=backend, progress=False, paired_rounds=0, **kw)
    assert run(Queueing())["environment"]["timing"] == "queued"
    assert run(NativeBackend())["environment"]["timing"] == "launch"
    assert run(Queueing(), timing="launch")["environment"]["timing"] == "launch"
    with pytest.raises(ValueError, match="needs torch"):
        run(NativeBackend(), timing="queued")
    with pytest.raises(ValueError, match="timing must be"):
        run(NativeBackend(), timing="gpu")


def test_result_header_without_torch_names_what_is_missing(monkeypatch):
    """The provenance every result file records (commit, build, GPU, driver, CUDA runtime, torch,
    cuBLAS): with torch absent the function still gives every field it can read, and `missing`
    names each one it cannot, with the reason."""
    import re
    import sys

    from tcgemm import _core
    from tcgemm.bench import provenance as pv
    from tcgemm.bench.references import NativeBackend
    from tcgemm.bench.timing import environment

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    p = pv.provenance()
    assert set(pv.FIELDS) <= set(p) and isinstance(p["missing"], dict)
    for f in ("torch", "torch_cuda", "cublas"):
        assert p[f] is None and "torch is not importable" in p["missing"][f]
    assert p["tcgemm_version"] and p["cuda_runtime"] and isinstance(p["build_archs"], list)
    assert p["python"] and p["numpy"]
    if p["commit"] is not None:  # a git checkout: HEAD, and whether the tree has changes
        assert re.fullmatch(r"[0-9a-f]{40}", p["commit"]) and p["commit_dirty"] in (True, False)
    else:
        assert "TCGEMM_COMMIT" in p["missing"]["commit"]
    if _core.device_count() == 0:
        assert p["gpu"] is None and p["missing"]["gpu"] == "no CUDA device found"
    else:
        assert p["gpu"] and p["gpu_cc"] and "gpu" not in p["missing"]
    for f in pv.FIELDS:  # each field read, or said why not
        assert p[f] is not None or f in p["missing"], f
    import types  # torch present (the module the cuBLAS backend holds): its versions, and cuBLAS's or why not
    q = pv.provenance(torch=types.SimpleNamespace(__version__="9.9.9", version=types.SimpleNamespace(cuda="12.8")))
    assert q["torch"] == "9.9.9" and q["torch_cuda"] == "12.8" and not {"torch", "torch_cuda"} & set(q["missing"])
    assert (q["cublas"] is None) == ("cublas" in q["missing"])
    env = environment(NativeBackend())  # what the harness writes into every result file
    assert {"commit", "commit_dirty", "build_archs", "driver_version", "cuda_runtime", "torch", "cublas",
            "missing"} <= set(env)
    text = bench.to_markdown({"environment": env, "rows": []})
    assert f"- commit: {env['commit'] or 'unknown'}" in text and "- not recorded: " in text
    assert "cublas (torch is not importable" in text


def test_an_installed_build_names_its_own_commit(monkeypatch):
    """build_info()'s stamp (CMakeLists.txt): the commit the build is made from. Where neither the
    caller nor a checkout names the source (an installed wheel), the result files take the build's;
    where they name another, the build line says which tree the figures measured."""
    import re

    import tcgemm
    from tcgemm.bench import provenance as pv

    b = tcgemm.build_info()
    assert {"commit", "commit_dirty"} <= set(b)
    assert b["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", b["commit"]), b["commit"]
    assert b["commit_dirty"] in (None, True, False)
    stamp = {"version": "0.1.0", "cuda_version": "13.0.88", "archs": ["90a"],
             "commit": "0123456789abcdef0123456789abcdef01234567", "commit_dirty": False}
    monkeypatch.setattr(pv, "build_info", lambda: stamp)
    monkeypatch.setattr(pv, "source_commit", lambda repo=None: (None, None, "not a checkout, TCGEMM_COMMIT unset"))
    p = pv.provenance(torch=None)
    assert (p["commit"], p["commit_dirty"]) == (stamp["commit"], False) and "commit" not in p["missing"]
    assert (p["build_commit"], p["build_commit_dirty"]) == (stamp["commit"], False)
    assert "build commit" not in "\n".join(pv.provenance_markdown(p))
    other = "89abcdef0123456789abcdef0123456789abcdef"
    monkeypatch.setattr(pv, "source_commit", lambda repo=None: (other, False, None))
    q = pv.provenance(torch=None)
    assert q["commit"] == other and q["build_commit"] == stamp["commit"]
    assert f"build commit: {stamp['commit']}" in "\n".join(pv.provenance_markdown(q))
    monkeypatch.setattr(pv, "build_info", lambda: {**stamp, "commit": None, "commit_dirty": None})
    monkeypatch.setattr(pv, "source_commit", lambda repo=None: (None, None, "not a checkout, TCGEMM_COMMIT unset"))
    r = pv.provenance(torch=None)
    assert r["commit"] is None and "TCGEMM_COMMIT unset" in r["missing"]["commit"]
    assert "TCGEMM_SOURCE_COMMIT" in r["missing"]["build_commit"] and "build_commit_dirty" in r["missing"]


def test_commit_outside_a_checkout_comes_from_the_environment(tmp_path, monkeypatch):
    """A tree copied without its .git (the device's copy): the commit its caller passes."""
    from tcgemm.bench.provenance import source_commit

    monkeypatch.delenv("TCGEMM_COMMIT", raising=False)
    monkeypatch.delenv("TCGEMM_COMMIT_DIRTY", raising=False)
    sha, dirty, why = source_commit(tmp_path)
    assert sha is None and dirty is None and "TCGEMM_COMMIT is not set" in why
    monkeypatch.setenv("TCGEMM_COMMIT", "0123456789abcdef0123456789abcdef01234567")
    assert source_commit(tmp_path) == ("0123456789abcdef0123456789abcdef01234567", None, None)
    monkeypatch.setenv("TCGEMM_COMMIT_DIRTY", "1")
    assert source_commit(tmp_path)[1] is True
    monkeypatch.setenv("TCGEMM_COMMIT_DIRTY", "0")
    assert source_commit(tmp_path)[1] is False
    # set by the caller, it wins over a checkout's own git (a copied tree can carry a stale .git)
    assert source_commit(pathlib.Path(__file__).resolve().parents[2])[0] == "0123456789abcdef0123456789abcdef01234567"


def test_regenerate_parts_name_their_files_and_fit_the_device_limit(tmp_path):
    """bench/regenerate.sh (DRY_RUN=1: the device.sh command line it would run): each part writes
    its own file named for the GPU, the 16-bit set is at most 8 JSON files (and FP8's four), and each
    documented command's step limits (a build included, as on a fresh machine) add up to less than
    the device's 10 minutes."""
    import pathlib
    import re
    import shlex
    import shutil
    import subprocess

    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    root = pathlib.Path(__file__).resolve().parents[2]
    script = root / "bench" / "regenerate.sh"

    def steps(*parts, gpu="h200", **extra):
        env = dict(os.environ, DRY_RUN="1", OUT=str(tmp_path / "out"), RESULTS=str(tmp_path / "res"), GPU_PREFIX=gpu,
                   **extra)
        r = subprocess.run(["bash", str(script), *parts], cwd=root, env=env, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        words = shlex.split(r.stdout.strip().splitlines()[-1])
        assert words[:2] == ["bash", "bench/device.sh"]
        return words[2:]

    files = {}
    for part in ("squares", "random", "ragged", "decode", "llm", "split_tail", "features", "user_path", "fp8",
                 "fp8_f32", "fp8_entries", "fp8_deepgemm"):
        s = steps("build", part)
        assert s[:2] == ["timeout=200", "build=90a"] and s[2].startswith("timeout=")
        assert s[3].startswith(("bench=", "user=")) and len(s) == 4
        json_out = re.search(r"--json (\S+)", s[3]).group(1)
        assert re.search(r"--md (\S+)", s[3]).group(1) == json_out[:-len(".json")] + ".md"
        files[part] = pathlib.Path(json_out).name
    assert files["squares"] == "h200_squares.json" and files["user_path"] == "h200_user_path.json"
    assert files["fp8"] == "h200_fp8.json" and "--fp8" in steps("fp8")[1]
    assert files["fp8_entries"] == "h200_fp8_entries.json" and "--fp8-kernels all" in steps("fp8_entries")[1]
    assert files["fp8_f32"] == "h200_fp8_f32.json" and "--fp8-sums f32" in steps("fp8_f32")[1]
    # The CUTLASS comparison builds its own tree (bench/cutlass/run.sh): no package build before it.
    cut = steps("ada_cutlass")
    assert cut[0] == "timeout=540" and cut[1].startswith("cutlass=") and len(cut) == 2
    assert re.search(r"--json \S+/h200_ada_cutlass.json --md \S+/h200_ada_cutlass.md", cut[1])
    assert "--fp8-sums fast" in steps("fp8")[1] and "--fp8-deepgemm" in steps("fp8_deepgemm")[1]
    assert len(set(files.values())) == len(files) and len(files) - 4 <= 8
    assert re.search(r"--json \S+/h100_squares.json", " ".join(steps("squares", gpu="h100")))
    assert "--seed 41 42 43" in " ".join(steps("random")) and "--layouts TN NN" in " ".join(steps("llm"))
    groups = (["build", "squares"], ["build", "random", "decode"], ["build", "llm"], ["build", "ragged", "split_tail"],
              ["build", "features", "user_path"], ["build", "fp8"], ["build", "fp8_f32"], ["build", "fp8_entries"],
              ["build", "fp8_deepgemm"])
    assert sorted(p for g in groups for p in g if p != "build") == sorted(files)  # every part in one command
    for group in groups:
        limits = [int(w.split("=")[1]) for w in steps(*group) if w.startswith("timeout=")]
        assert sum(limits) < 600, (group, limits)
    # A wheel built on a CPU machine (bench/wheel.sh) takes the build's place: installed, not compiled.
    w = steps("fp8", "squares", WHEEL=".whl/tcgemm-0.1.0-cp312-cp312-linux_x86_64.whl")
    assert w[:2] == ["timeout=60", "install=.whl/tcgemm-0.1.0-cp312-cp312-linux_x86_64.whl"]
    assert not any(x.startswith("build=") for x in w) and sum(1 for x in w if x.startswith("install=")) == 1
    bad = subprocess.run(["bash", str(script), "nope"], cwd=root, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, DRY_RUN="1", OUT=str(tmp_path / "out"), RESULTS=str(tmp_path / "res")))
    assert bad.returncode == 2 and "unknown part 'nope'" in bad.stdout


def test_fp8_bench_jobs_summary_and_table():
    """The FP8 bench's shape sets (multiples of 16 where torch._scaled_mm needs them, fixed per seed),
    its per-part summary and its table, on made-up rows (the timing itself needs a GPU)."""
    from tcgemm.bench import fp8
    assert fp8.random_shapes(51) == fp8.random_shapes(51) != fp8.random_shapes(52)
    assert all(256 <= d <= 8192 and d % 16 == 0 for s in fp8.random_shapes(51) for d in s)
    jobs = fp8.jobs(fp8.PARTS, (51, 52))
    assert {j[0] for j in jobs} == set(fp8.PARTS) - ({"deepgemm"} if not fp8.DEEPGEMM_H800 else set())
    assert all(j[5] in ("tensor", "rowwise", "block") for j in jobs)
    assert not [j for j in jobs if j[6].startswith("sm89") and j[5] == "block"]  # Ada takes no block scales
    assert {j[1] for j in jobs if j[0] == "random"} == {51, 52}
    # Each Hopper entry of the mode beside auto: on the squares always, on every part with every=True.
    sq = {(j[5], j[6]) for j in jobs if j[0] == "squares"}
    assert all((mode, k) in sq for mode, ks in fp8.HOPPER.items() for k in ks)
    assert {j[6] for j in jobs if j[0] != "squares"} == {"auto"}
    every = fp8.jobs(["deepgemm", "llm"], (), every=True)
    assert {j[6] for j in every if j[0] == "deepgemm"} == {"auto", *fp8.HOPPER["block"]}
    assert {(j[5], j[6]) for j in every if j[0] == "llm"} == {(m, k) for m, ks in fp8.HOPPER.items()
                                                              for k in ["auto", *ks]}
    with pytest.raises(ValueError, match="unknown FP8 part"):
        fp8.jobs(["nope"], ())
    # auto runs both sums for tensor-wise and row-wise scales, once (promoting) for block scales; a named
    # entry runs the sum it keeps; sums and modes narrow the set.
    for part, _s, M, N, K, mode, k, fast in jobs:
        if k != "auto":
            assert fast == (k.startswith("sm90.") and "block" not in k and "promoted" not in k), k
    auto = {(j[0], j[2], j[3], j[4], j[5]): set() for j in jobs if j[6] == "auto"}
    for j in jobs:
        if j[6] == "auto":
            auto[j[0], j[2], j[3], j[4], j[5]].add(j[7])
    assert all(v == ({False} if key[4] == "block" else {True, False}) for key, v in auto.items())
    fast_only = fp8.jobs(["squares"], (), sums=("fast",), modes=("tensor",))
    assert {j[5] for j in fast_only} == {"tensor"} and {j[7] for j in fast_only if j[6] == "auto"} == {True}
    assert ("sm90.ws_fp8.promoted", False) in {(j[6], j[7]) for j in fast_only}
    with pytest.raises(ValueError, match="unknown FP8 sum"):
        fp8.jobs(["squares"], (), sums=("f16",))
    rows = [dict(part="squares", M=8, N=8, K=8, mode="tensor", kernel="auto", accumulate="fast", tflops=1.0,
                 median_ms=1.0, err=1e-3, vs_torch_fast=v, torch_fast_err=2e-3, speedup_over_bf16=1.8)
            for v in (0.5, 2.0)]
    rows.append(dict(part="decode", M=1, N=8, K=8, mode="block", kernel="auto", tflops=1.0, median_ms=1.0,
                     err=1e-3, of_bound=0.8))
    rows.append(dict(part="squares", M=8, N=8, K=8, mode="tensor", kernel="sm89.fp8_mma.s3", status="error: no"))
    s = {(d["part"], d["mode"]): d for d in fp8.summary(rows)}
    assert s[("squares", "tensor")]["accumulate"] == "fast" and s[("decode", "block")]["accumulate"] == "f32"
    assert s[("squares", "tensor")]["vs_torch_fast_geomean"] == pytest.approx(1.0)
    assert s[("squares", "tensor")]["vs_torch_fast_worst"] == 0.5 and s[("squares", "tensor")]["rows"] == 2
    assert s[("decode", "block")]["of_bound_geomean"] == pytest.approx(0.8)
    md = fp8.to_markdown({"environment": {"gpu": "X"}, "d2d_gbps": 3000.0, "summary": fp8.summary(rows), "rows": rows})
    assert "| squares | tensor | auto | fast | 2 | 1.000x, 0.500x |" in md and "error: no" in md
    # DeepGEMM timed in the run: its ratio per row and geomean, its version in the header.
    dg_rows = [dict(part="deepgemm", M=64, N=2112, K=7168, mode="block", kernel="auto", accumulate="f32", tflops=200.0,
                    median_ms=1.0, err=1e-3, deepgemm_ms=v, deepgemm_tflops=200.0 * v, vs_deepgemm=v,
                    deepgemm_err=1e-3, deepgemm_h800_tflops=206) for v in (0.5, 2.0)]
    d = fp8.summary(dg_rows)[0]
    assert d["vs_deepgemm_geomean"] == pytest.approx(1.0) and d["vs_deepgemm_worst"] == 0.5
    dg_md = fp8.to_markdown({"environment": {"gpu": "X"}, "d2d_gbps": 3000.0, "deepgemm": "2.1.0",
                             "summary": fp8.summary(dg_rows), "rows": dg_rows})
    assert "DeepGEMM (fp8_gemm_nt, timed beside the block rows): 2.1.0" in dg_md
    assert "| deepgemm | block | auto | f32 | 2 |  |  |  |  | 1.000x, 0.500x |" in dg_md
    assert "| 206 | 100 | 0.500 | 1.00e-03 |" in dg_md
    assert "vs DeepGEMM 0.500x" in fp8.log_line(dg_rows[0])
    assert "0.80" in md and "3000 GB/s" in md


def test_deepgemm_module_names_why_it_does_not_load(tmp_path, monkeypatch):
    """Where deep_gemm's extension does not load, the bench records the loader's own message (the error
    torch.ops.load_library raises it from), not only "Could not load this library"."""
    fp8 = pytest.importorskip("tcgemm.bench.fp8")
    pkg = tmp_path / "deep_gemm"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "try:\n"
        "    raise OSError('libnvrtc.so.13: cannot open shared object file: No such file or directory')\n"
        "except OSError as e:\n"
        "    raise OSError('Could not load this library: /x/deep_gemm/_C.so') from e\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "deep_gemm", raising=False)
    module, why = fp8.deepgemm_module()
    assert module is None
    assert why == ("deep_gemm does not import: Could not load this library: /x/deep_gemm/_C.so "
                   "(from: libnvrtc.so.13: cannot open shared object file: No such file or directory)"), why
