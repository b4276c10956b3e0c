"""The package's layout (issue 43, "layers that run one way"; docs/python.md, "Package layout").

* The old import paths of the modules that moved warn once and give the new module itself.
* ``tcplab.sweep`` is the function and ``tcplab.sweeps`` the subpackage; ``tcplab.ns2``
  re-exports what the one-module ``ns2.py`` had.
* The layers import one way. Each module's imports are read with :mod:`ast` (``import
  tcplab.x``, ``from tcplab.x import y``, relative imports), counting the statements that run
  when the module is imported: its top level, ``if``/``try``/``with`` blocks (also ``if
  TYPE_CHECKING:``) and class bodies. **Imports inside a function are allowed** to reach any
  layer (``tcplab.cli`` imports the reproduction code in the command that needs it, and
  ``tcplab.repro.reproduce`` imports ``tcplab.ns2`` where a run uses ns-2): they run only
  when called, after every module they name could load, so they neither cost the lower
  layer anything at import nor form a cycle. The user API imports nothing from the
  reproduction, ns-2, reporting or command-line layers; no subpackage or top-level module
  imports, through any chain, one that imports it back; the checker is tried on a
  deliberately cyclic pair of fake modules first.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import types
from pathlib import Path

import pytest

from conftest import REPO

PKG = REPO / "python" / "tcplab"

#: Old path -> new path: the shims of this release (one test per shim).
MOVED = {
    "tcplab.claims": "tcplab.repro.claims",
    "tcplab.metrics": "tcplab.repro.metrics",
    "tcplab.papers": "tcplab.repro.papers",
    "tcplab.reproduce": "tcplab.repro.reproduce",
    "tcplab.plots": "tcplab.reporting.plots",
    "tcplab.report": "tcplab.reporting.report",
}

#: The layers, lowest first, by unit (a top-level module or subpackage of tcplab). A module
#: imports (at module level) only from its own unit, from lower layers, and (in the user
#: API, layer 0) from the other units of its layer.
LAYERS = {
    "tcplab": 0, "tcplab._core": 0, "tcplab._moved": 0, "tcplab.scenario": 0, "tcplab.fileio": 0,
    "tcplab.builders": 0, "tcplab.results": 0, "tcplab.runner": 0, "tcplab.analysis": 0, "tcplab.sweeps": 0,
    "tcplab.reporting": 1, "tcplab.ns2": 1,
    "tcplab.repro": 2,
    "tcplab.cli": 3,
    # the shims: nothing of the package imports them (test_nothing_uses_the_old_paths)
    **{old: 4 for old in MOVED},
}
USER_API = ("tcplab.scenario", "tcplab.runner", "tcplab.results", "tcplab.builders", "tcplab.fileio",
            "tcplab.analysis", "tcplab.sweeps")
NOT_FROM_USER_API = ("tcplab.repro", "tcplab.ns2", "tcplab.reporting", "tcplab.cli", *MOVED)


# -- the checker ------------------------------------------------------------------------------


def modules(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's ``__init__``) for every ``.py`` under
    ``root`` (the folder of ``package``), plus ``.pyi`` stubs of extension modules."""
    out: dict[str, tuple[Path, bool]] = {}
    for f in sorted(root.rglob("*.py*")):
        if f.suffix not in (".py", ".pyi") or "__pycache__" in f.parts:
            continue
        if f.relative_to(root).parts[0] == "examples":  # scripts shipped as data (`tcplab examples`), not modules
            continue
        parts = [package, *f.relative_to(root).with_suffix("").parts]
        init = parts[-1] == "__init__"
        if init:
            parts.pop()
        name = ".".join(parts)
        if f.suffix == ".py" or name not in out:
            out[name] = (f, init)
    return out


def _module_level(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported (not inside functions)."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            todo.append(child)
    return found


def imports(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level (``from P import name``
    counts as ``P.name`` where that is a module, else as ``P``)."""
    mods = modules(root, package)
    graph: dict[str, set[str]] = {}
    for name, (path, is_init) in mods.items():
        deps: set[str] = set()
        if path.suffix == ".py":
            for node in _module_level(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                else:
                    if node.level:
                        base = (name if is_init else name.rpartition(".")[0]).split(".")
                        base = base[: len(base) - (node.level - 1)]
                        mod = ".".join(base + ([node.module] if node.module else []))
                    else:
                        mod = node.module or ""
                    targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
                deps |= {t for t in targets if t == package or t.startswith(package + ".")}
        graph[name] = deps - {name}
    return graph


def unit(module: str, package: str = "tcplab") -> str:
    """The top-level module or subpackage a module belongs to."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == package and len(parts) > 1 else module


def unit_graph(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, deps in graph.items():
        out.setdefault(unit(a, package), set()).update(unit(b, package) for b in deps)
    return {u: deps - {u} for u, deps in out.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def reachable(graph: dict[str, set[str]], start: str) -> dict[str, list[str]]:
    """Every module ``start`` imports through a chain of module-level imports -> one chain."""
    seen: dict[str, list[str]] = {start: [start]}
    todo = [start]
    while todo:
        a = todo.pop()
        for b in sorted(graph.get(a, ())):
            if b not in seen:
                seen[b] = seen[a] + [b]
                todo.append(b)
    del seen[start]
    return seen


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


# -- the checker's self-tests -------------------------------------------------------------------


def test_the_checker_finds_a_cycle_between_two_fake_modules(tmp_path: Path) -> None:
    root = _write(tmp_path / "fakepkg", {
        "__init__.py": "",
        "a.py": "from fakepkg import b\n",
        "b.py": "from . import a\n",
        "c.py": "def later():\n    from fakepkg import a\n",  # inside a function: not an edge
        "d.py": "import fakepkg.a\nif True:\n    from .sub.e import f\n",
        "sub/__init__.py": "from .e import f\n",
        "sub/e.py": "from ..c import later\nclass K:\n    from fakepkg import d\n",
    })
    graph = imports(root, "fakepkg")
    assert graph["fakepkg.a"] == {"fakepkg.b"} and graph["fakepkg.b"] == {"fakepkg.a"}
    assert graph["fakepkg.c"] == set()
    assert graph["fakepkg.d"] == {"fakepkg.a", "fakepkg.sub.e"}
    assert graph["fakepkg.sub"] == {"fakepkg.sub.e"}
    assert graph["fakepkg.sub.e"] == {"fakepkg.c", "fakepkg.d"}  # class bodies run at import
    assert cycles(graph) == [["fakepkg.a", "fakepkg.b"], ["fakepkg.d", "fakepkg.sub.e"]]
    assert cycles(unit_graph(graph, "fakepkg")) == [["fakepkg.a", "fakepkg.b"], ["fakepkg.d", "fakepkg.sub"]]
    assert reachable(graph, "fakepkg.sub")["fakepkg.b"] == ["fakepkg.sub", "fakepkg.sub.e", "fakepkg.d", "fakepkg.a",
                                                           "fakepkg.b"]
    # Without the back edge there is none.
    (root / "b.py").write_text("def later():\n    from . import a\n")
    (root / "sub" / "e.py").write_text("from ..c import later\n")
    assert cycles(imports(root, "fakepkg")) == []


# -- the real package ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    g = imports(PKG, "tcplab")
    assert len(g) >= 30 and "tcplab.ns2.translate" in g and "tcplab._core" in g
    return g


def test_every_unit_has_a_layer(graph: dict[str, set[str]]) -> None:
    units = {unit(m) for m in graph}
    assert units, "no module found"
    assert sorted(units - set(LAYERS)) == [], "put the new module in a layer (LAYERS above, docs/python.md)"
    assert sorted(set(LAYERS) - units) == []


def test_the_user_api_imports_no_higher_layer(graph: dict[str, set[str]]) -> None:
    """scenario, runner, results, builders, fileio, analysis and sweeps (and ``tcplab``
    itself) import nothing from tcplab.repro, tcplab.ns2, tcplab.reporting, tcplab.cli or an
    old path, directly or through any chain of module-level imports."""
    bad = []
    starts = [m for m in graph if unit(m) in (*USER_API, "tcplab")]
    assert len(starts) >= len(USER_API) + 1
    for m in starts:
        for target, chain in reachable(graph, m).items():
            if unit(target) in NOT_FROM_USER_API:
                bad.append(" -> ".join(chain))
    assert bad == []


def test_layers_import_one_way(graph: dict[str, set[str]]) -> None:
    bad = []
    for a, deps in sorted(graph.items()):
        for b in sorted(deps):
            ua, ub = unit(a), unit(b)
            if ua == ub or LAYERS[ub] < LAYERS[ua] or LAYERS[ua] == LAYERS[ub] == 0:
                continue
            bad.append(f"{a} (layer {LAYERS[ua]}) imports {b} (layer {LAYERS[ub]})")
    assert bad == []


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    assert cycles(unit_graph(graph, "tcplab")) == []
    assert cycles(graph) == []  # nor between the modules of one subpackage


def test_ns2_modules_run_one_way(graph: dict[str, set[str]]) -> None:
    order = ["common", "agents", "translate", "run", "compare"]
    for i, name in enumerate(order):
        deps = {d.rsplit(".", 1)[1] for d in graph[f"tcplab.ns2.{name}"] if d.startswith("tcplab.ns2.")}
        assert deps <= set(order[:i]), (name, deps)


# -- old paths, sweep/sweeps, ns2's names ---------------------------------------------------------


def test_the_shims_are_the_ones_listed() -> None:
    from tcplab import _moved

    assert _moved.MOVED == MOVED
    for old in MOVED:
        text = (PKG / f"{old.split('.')[1]}.py").read_text()
        assert "alias(__name__)" in text and len(text.splitlines()) <= 6, old


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_old_path_warns_and_gives_the_new_module(old: str, new: str) -> None:
    assert MOVED
    target = importlib.import_module(new)
    saved = sys.modules.pop(old, None)
    try:
        ns: dict[str, object] = {}
        with pytest.warns(DeprecationWarning, match=re.escape(f"{old} is deprecated")) as rec:
            exec(compile(f"import {old} as mod\nfrom {old} import __name__ as name\n", __file__, "exec"), ns)  # noqa: S102
        assert ns["mod"] is target and ns["name"] == new
        assert len(rec) == 1 and new in str(rec[0].message)
        assert rec[0].filename == __file__, "the warning points at the importing line"
        assert sys.modules[old] is target
        # A second import is silent (the module is cached) and still the new one.
        exec(compile(f"import {old} as again\n", __file__, "exec"), ns)  # noqa: S102
        assert ns["again"] is target
    finally:
        if saved is not None:
            sys.modules[old] = saved
        else:
            sys.modules.pop(old, None)


def test_old_paths_keep_their_names() -> None:
    """What callers used under the old paths is there (private helpers too: same module)."""
    import tcplab.reporting.plots
    import tcplab.reporting.report
    import tcplab.repro.claims
    import tcplab.repro.metrics
    import tcplab.repro.reproduce

    assert callable(tcplab.repro.reproduce.reproduce) and callable(tcplab.repro.reproduce._load)
    assert callable(tcplab.repro.claims._python_ref) and callable(tcplab.repro.metrics.jain)
    assert callable(tcplab.reporting.plots.plot_sweep) and callable(tcplab.reporting.report.print_run)
    assert tcplab.repro.reproduce.PAPERS_DIR == PKG / "repro" / "papers"
    assert (REPO / "scenarios").resolve() == tcplab.repro.reproduce.PAPERS_DIR
    import tcplab.repro.papers

    assert [Path(p) for p in tcplab.repro.papers.__path__] == [PKG / "repro" / "papers"]


def test_nothing_uses_the_old_paths() -> None:
    """The package, the tests, bench/, examples/ and docs/ import the new paths (pytest turns
    the deprecation warning into an error, so the tests would fail; bench/, examples/ and
    docs/ are not all run)."""
    old = "|".join(re.escape(o.split(".")[1]) for o in MOVED)
    pattern = re.compile(rf"(\bimport tcplab\.({old})\b|\bfrom tcplab\.({old})\b|\bfrom tcplab import .*\b({old})\b"
                         rf"|python:tcplab\.({old})\.|\btcplab\.({old})\.[a-z_]+\()")
    skip = {PKG / f"{o.split('.')[1]}.py" for o in MOVED} | {PKG / "_moved.py", Path(__file__)}
    files = [p for d in ("python", "tests", "bench", "examples", "docs") for p in sorted((REPO / d).rglob("*"))
             if p.suffix in (".py", ".toml", ".md", ".ipynb") and p not in skip and "__pycache__" not in p.parts]
    files += [REPO / "README.md"]
    assert len(files) > 50
    bad = [f"{p.relative_to(REPO)}:{i}" for p in files for i, line in enumerate(p.read_text().splitlines(), 1)
           if pattern.search(line)]
    assert bad == []


def test_sweep_is_the_function_and_sweeps_the_subpackage() -> None:
    import tcplab
    import tcplab.sweeps
    import tcplab.sweeps.spec  # noqa: F401 (binds tcplab.sweeps.spec, never tcplab.sweep)

    assert callable(tcplab.sweep) and not isinstance(tcplab.sweep, types.ModuleType)
    assert tcplab.sweep is tcplab.sweeps.sweep and tcplab.sweep.__module__ == "tcplab.sweeps.api"
    assert isinstance(tcplab.sweeps, types.ModuleType) and hasattr(tcplab.sweeps, "__path__")
    assert type(sys.modules["tcplab"]) is types.ModuleType, "no module class is needed any more"
    assert "tcplab.sweep" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tcplab.sweep.spec")


def test_ns2_package_keeps_the_module_names() -> None:
    import tcplab.ns2 as ns2
    import tcplab.ns2.compare
    import tcplab.ns2.translate  # noqa: F401 (the submodules are already loaded: the names stay)

    public = ["Ns2Unsupported", "Ns2Error", "Ns2Script", "FLOW_METRICS", "LINK_METRICS", "SAMPLE_PERIOD_S",
              "EXACT_CLOCK_TICK_S", "INTERVAL_COLUMNS", "expanded", "translate", "to_otcl", "run_ns2",
              "run_ns2_result", "ns2_result", "run_tcplab", "compare", "run_both", "ns2_available"]
    assert [n for n in public if not hasattr(ns2, n)] == []
    assert sorted(ns2.__all__) == sorted(set(public) - {"EXACT_CLOCK_TICK_S", "INTERVAL_COLUMNS"})
    assert isinstance(ns2.translate, types.FunctionType) and isinstance(ns2.compare, types.FunctionType)
    assert ns2.translate is sys.modules["tcplab.ns2.translate"].translate
    assert ns2.compare is sys.modules["tcplab.ns2.compare"].compare
    assert "tcplab.ns2" in ns2.to_otcl({"duration": "1s", "nodes": {"a": "host", "b": "host"},
                                        "links": {"ab": {"from": "a", "to": "b", "rate": "1Mbps"}}})
