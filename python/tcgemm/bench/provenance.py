"""What a result file records about what it measured: the source commit (and
whether the tree was dirty), the build (version, archs, the CUDA runtime
tcgemm links), the GPU and its driver, torch and the cuBLAS it loaded.

Every field is read where it can be; a field that cannot be read is None and
`missing` says why (no GPU, torch absent, not a git checkout, ...), so a file
written without torch or outside a checkout still names what it lacks.
"""
from __future__ import annotations

import ctypes
import os
import pathlib
import platform
import subprocess

import numpy as np

from .._api import build_info, device_info

FIELDS = ("commit", "commit_dirty", "build_commit", "build_commit_dirty", "tcgemm_version", "build_archs",
          "cuda_runtime", "gpu", "gpu_cc", "sm_count", "driver_version", "driver_cuda_version", "torch", "torch_cuda",
          "cublas", "python", "numpy")


def _git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=20)


def source_commit(repo=None):
    """(sha, dirty, why_not): TCGEMM_COMMIT / TCGEMM_COMMIT_DIRTY where the
    caller sets them (a copy of a tree can carry a stale .git), else
    git rev-parse HEAD and `git status --porcelain`
    (untracked files count as dirty; bench/results/, where results are
    written, does not) in the repository holding this package."""
    sha = os.environ.get("TCGEMM_COMMIT")
    if sha:
        dirty = os.environ.get("TCGEMM_COMMIT_DIRTY")
        return sha, None if dirty is None else dirty not in ("", "0", "false"), None
    here = pathlib.Path(__file__).resolve()
    repo = repo or here.parents[3]
    why = "this package is not in a git checkout (an installed copy)"
    try:
        top = _git("rev-parse", "--show-toplevel", cwd=repo)
        # the checkout must be this package's own (an installed copy may sit inside some other repository)
        mine = top.returncode == 0 and (pathlib.Path(top.stdout.strip()) / "python/tcgemm/bench/provenance.py").exists() \
            and (pathlib.Path(top.stdout.strip()) / "python/tcgemm/bench/provenance.py").resolve() == here
        head = _git("rev-parse", "HEAD", cwd=repo) if mine else None
        if head is not None and head.returncode == 0 and head.stdout.strip():
            # the results a run writes do not make the source dirty
            status = _git("status", "--porcelain", "--", ".", ":(exclude)bench/results", cwd=top.stdout.strip())
            return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None, None
    except (OSError, subprocess.SubprocessError) as e:
        why = f"git: {e}"
    return None, None, f"{why}, and TCGEMM_COMMIT is not set"


def _loaded_library(stem):
    """Path of a shared library this process has loaded whose name starts with `stem`."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith(stem + ".so"):
                    return path
    except OSError:
        pass
    return None


def cublas_version():
    """(version, why_not) of the cuBLAS torch uses: cublasGetProperty of the
    libcublas loaded in this process (torch loads it on its first matmul),
    else of the one torch ships with (the nvidia-cublas wheel), else of the
    system's."""
    candidates = [p for p in [_loaded_library("libcublas")] if p]
    try:
        import nvidia.cublas as nc  # the wheel torch depends on
        for d in nc.__path__:
            lib = pathlib.Path(d) / "lib"
            candidates += sorted(str(p) for p in lib.glob("libcublas.so*") if "Lt" not in p.name)
    except Exception:
        pass
    candidates += ["libcublas.so", "libcublas.so.13", "libcublas.so.12"]
    for c in candidates:
        try:
            get = ctypes.CDLL(c).cublasGetProperty
        except (OSError, AttributeError):
            continue
        parts = []
        for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
            v = ctypes.c_int(0)
            if get(prop, ctypes.byref(v)) != 0:
                break
            parts.append(v.value)
        if len(parts) == 3:
            return ".".join(map(str, parts)), None
    return None, "no libcublas could be loaded (torch absent, or its cuBLAS not found)"


def provenance(torch=None) -> dict:
    """The fields above and `missing` ({field: why}). `torch`: the module when
    the caller has it; else it is imported here if installed."""
    out, missing = {}, {}
    b = build_info()
    # The commit the installed build was made from (CMakeLists.txt stamps it): where neither the caller
    # nor a checkout names the source (an installed wheel, bench/wheel.sh), the build's own is the source.
    out["build_commit"], out["build_commit_dirty"] = b.get("commit"), b.get("commit_dirty")
    if out["build_commit"] is None:
        missing["build_commit"] = "the build recorded none (built outside a git checkout, TCGEMM_SOURCE_COMMIT unset)"
    if out["build_commit_dirty"] is None:
        missing["build_commit_dirty"] = missing.get("build_commit", "TCGEMM_SOURCE_DIRTY was not set")
    sha, dirty, why = source_commit()
    if sha is None and out["build_commit"]:
        sha, dirty, why = out["build_commit"], out["build_commit_dirty"], None
    out["commit"], out["commit_dirty"] = sha, dirty
    if why:
        missing["commit"] = missing["commit_dirty"] = why
    elif dirty is None:
        missing["commit_dirty"] = "TCGEMM_COMMIT_DIRTY is not set"
    out["tcgemm_version"], out["build_archs"] = b.get("version"), list(b.get("archs", []))
    out["cuda_runtime"] = b.get("cuda_version")  # tcgemm links the CUDA runtime statically: its build's version
    d = device_info()
    if d:
        out["gpu"], out["gpu_cc"], out["sm_count"] = d.get("name"), d.get("cc"), d.get("sm_count")
        v = d.get("driver_cuda_version")
        out["driver_cuda_version"] = f"{v // 1000}.{v % 1000 // 10}" if v else None
    else:
        for f in ("gpu", "gpu_cc", "sm_count", "driver_cuda_version"):
            out[f], missing[f] = None, "no CUDA device found"
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=10)
        out["driver_version"] = q.stdout.strip().splitlines()[0].strip() if q.returncode == 0 and q.stdout.strip() \
            else None
        if not out["driver_version"]:
            missing["driver_version"] = (q.stderr.strip() or "nvidia-smi gave no driver version")[:200]
    except (OSError, subprocess.SubprocessError) as e:
        out["driver_version"], missing["driver_version"] = None, f"nvidia-smi: {e}"
    if torch is None:
        try:
            import torch
        except Exception as e:  # ImportError, or a broken install
            torch = None
            for f in ("torch", "torch_cuda", "cublas"):
                out[f], missing[f] = None, f"torch is not importable ({type(e).__name__}: {e})"[:200]
    if torch is not None:
        out["torch"], out["torch_cuda"] = torch.__version__, torch.version.cuda
        if not out["torch_cuda"]:
            missing["torch_cuda"] = "torch was built without CUDA"
        out["cublas"], why = cublas_version()
        if why:
            missing["cublas"] = why
    out["python"], out["numpy"] = platform.python_version(), np.__version__
    out["missing"] = missing
    return out


def build_source(env) -> str:
    """The build line's note on where the installed build came from: nothing when it is the commit above
    (or a file predates the field), else its own commit, which the figures then measured."""
    bc = env.get("build_commit")
    if not bc or bc == env.get("commit"):
        return ""
    return f"; built from another tree, build commit: {bc}" + (" (dirty)" if env.get("build_commit_dirty") else "")


def provenance_markdown(env) -> list:
    """The header lines a result file's Markdown gives its provenance."""
    if "commit" not in env and "missing" not in env:
        return []  # a file written before these fields existed
    sha = env.get("commit") or "unknown"
    dirty = env.get("commit_dirty")
    tree = " (a dirty tree: uncommitted changes)" if dirty else " (clean tree)" if dirty is False else ""
    lines = [f"- commit: {sha}{tree}",
             f"- build: tcgemm {env.get('tcgemm_version')} for {', '.join(env.get('build_archs') or []) or 'no arch'}, "
             f"CUDA runtime {env.get('cuda_runtime')}" + build_source(env),
             (f"- GPU: {env.get('gpu')} (sm_{env.get('gpu_cc')}, {env.get('sm_count')} SMs)" if env.get("gpu")
              else "- GPU: none found") + f", driver {env.get('driver_version')} (CUDA {env.get('driver_cuda_version')})",
             f"- torch {env.get('torch')} (CUDA {env.get('torch_cuda')}), cuBLAS {env.get('cublas')}; "
             f"Python {env.get('python')}, NumPy {env.get('numpy')}"]
    if env.get("missing"):
        lines.append("- not recorded: " + "; ".join(f"{k} ({v})" for k, v in env["missing"].items()))
    return lines
