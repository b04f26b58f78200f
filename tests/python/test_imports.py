"""No import cycle inside the package: the modules of python/tcgemm/ form a
layered graph (adapters and records below the call path, the call path below
the API), read from their source with ast -- imports inside functions count
too, since they only hide a cycle until the function runs."""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "python" / "tcgemm"


def _modules():
    return {p.stem: p for p in PKG.glob("*.py")}


def _other_module(folder, name):
    """A module of the package that is not a .py file: an extension (_core), a subpackage (bench)."""
    return (folder / name).is_dir() or any(folder.glob(name + ".*.so")) or (folder / (name + ".pyi")).exists()


def _imports(path, modules):
    """The package's own .py modules that `path` imports (at any depth of its code)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or (node.level == 0 and (node.module or "").split(".")[0] == "tcgemm"):
                mod = node.module or ""
                if node.level == 0:
                    mod = mod.partition(".")[2]
                if mod:
                    out.add(mod.split(".")[0])
                else:  # from . import x, y: modules (.py, extension, subpackage), or names __init__ defines
                    out.update(a.name if a.name in modules or _other_module(path.parent, a.name) else "__init__"
                               for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "tcgemm":
                    out.add(parts[1] if len(parts) > 1 else "__init__")
    return {m for m in out if m in modules and m != path.stem}


def _cycle(graph):
    """One cycle of `graph` as a list of nodes, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    modules = _modules()
    assert {"_api", "_call", "_host", "_record", "_workspace"} <= set(modules)
    graph = {name: _imports(path, modules) for name, path in modules.items()}
    assert "_call" in graph["_api"] and "_call" in graph["_host"]  # the reader sees the imports it should
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    assert _cycle({"a": {"a"}}) == ["a", "a"]


def test_lazy_imports_are_read(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    from ._n import g\n    from . import _o, thing\n    import tcgemm.p\n")
    mods = {"m": tmp_path / "m.py", "_n": None, "_o": None, "p": None, "__init__": None}
    assert _imports(tmp_path / "m.py", mods) == {"_n", "_o", "__init__", "p"}
