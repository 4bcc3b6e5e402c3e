"""The suite's architecture, checked on the import graph of src/ (``benchmarks/import_graph.py``, built with ``ast``
from module-level and function-level imports alike): no import cycle beyond the known exceptions below, and the
layering rules of DESIGN.md.

Layers, lowest first (a module imports only its own layer or lower ones):

1. ``causal_suite`` (the shared ground: errors, files, fragility, params, ... and the commands) imports no benchmark
   package and loads none by name at run time (``importlib.import_module("pkg...")``, registry names, entry-point
   values: ``import_graph.runtime_loads``); it finds the benchmarks through the inspect entry points
   (``causal_suite.registration``). Its commands (``SUITE_APPS``) are imported by nothing else.
2. In each benchmark package, pure text modules (``PURE``) import nothing of their package; the data tooling
   (``DATA_TOOLING``) imports only itself, the pure modules and ``causal_suite``; the eval layer (task, dataset,
   prompts, solvers, scorers, metrics) sits on top.
3. Benchmark packages do not import each other; Frail reads glass logs through the corpus contract and the answer
   grouping only (``CONSUMERS``), never the glass eval layer.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("import_graph", REPO / "benchmarks" / "import_graph.py")
import_graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = import_graph
_spec.loader.exec_module(import_graph)

GRAPH = import_graph.build_graph(REPO / "src")

# Cycles that exist and are scheduled for removal. Each entry is the full set of modules of one strongly connected
# component; a cycle is accepted only if it lies inside one of these sets.
KNOWN_CYCLES: list[set[str]] = []

BENCHMARKS = ("cobe_inspect", "glass_inspect", "causalverify_inspect", "frail")
SUITE_APPS = ("causal_suite.cli", "causal_suite.compare", "causal_suite.report", "causal_suite.rescore")  # causal-suite
GROUND = "causal_suite"
PURE = {"glass_inspect": ("glass_inspect.answers", "glass_inspect.prompts")}
DATA_TOOLING = {
    "glass_inspect": "glass_inspect.corpus",
    "cobe_inspect": "cobe_inspect.records",
    "causalverify_inspect": "causalverify_inspect.scenarios",
}
# consumer package -> the modules (prefixes) of other benchmark packages it may import
CONSUMERS = {"frail": ("glass_inspect.corpus", "glass_inspect.answers")}
PRIVATE_INSPECT_HOME = "causal_suite.inspect_compat"


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _package(module: str) -> str:
    return module.split(".")[0]


def _edges():
    return GRAPH.edge_list()


def _fmt(edges) -> str:
    return "\n".join(f"  {a} -> {b}{' (function-level)' if (a, b) in GRAPH.deferred else ''}" for a, b in edges)


def test_the_graph_covers_every_package():
    assert {"causal_suite", *BENCHMARKS} <= set(GRAPH.packages())
    assert "glass_inspect.corpus.build" in GRAPH.modules and "frail.cli" in GRAPH.modules
    assert ("frail.logs", "glass_inspect.corpus") in _edges()


def test_function_level_imports_are_edges(tmp_path):
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import g\n    import pkg.c as c\n")
    (pkg / "c.py").write_text("")
    graph = import_graph.build_graph(tmp_path / "src")
    assert graph.edge_list() == [("pkg.a", "pkg.b"), ("pkg.b", "pkg.a"), ("pkg.b", "pkg.c")]
    assert graph.deferred == {("pkg.b", "pkg.a"), ("pkg.b", "pkg.c")}
    assert import_graph.cycles(graph.edges) == [["pkg.a", "pkg.b"]]


def test_run_time_loads_by_name_are_edges_and_type_only_imports_make_no_cycle(tmp_path):
    """A string naming another package's module is a load (import_module, a registry name, an f-string's fixed
    part); a docstring, a computed name and a line marked as names are not; an import under TYPE_CHECKING is an
    edge that makes no cycle."""
    src = tmp_path / "src"
    for package in ("causal_suite", "bench"):
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").write_text("")
    (src / "bench" / "task.py").write_text("import causal_suite.b\n")
    (src / "causal_suite" / "a.py").write_text(
        '"""Mentions bench.task in a docstring."""\n'
        "import importlib\n"
        "def f(name, package):\n"
        "    importlib.import_module('bench.task')\n"
        "    importlib.import_module(f'{package}._registry')\n"
        "    return f'bench/{name}'\n"
    )
    (src / "causal_suite" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from bench import task\n"
        "# import-graph: names, not loads\n"
        "FOLDERS = ('bench', 'causal_suite')\n"
    )
    graph = import_graph.build_graph(src)
    assert graph.edge_list() == [
        ("bench.task", "causal_suite.b"),
        ("causal_suite.a", "bench"),
        ("causal_suite.a", "bench.task"),
        ("causal_suite.b", "bench.task"),
    ]
    assert graph.runtime == {("causal_suite.a", "bench"), ("causal_suite.a", "bench.task")}
    assert graph.type_only == {("causal_suite.b", "bench.task")}
    assert import_graph.cycles(graph.edges) == [["bench.task", "causal_suite.b"]]
    assert import_graph.cycles(graph.executed()) == []
    info = import_graph.summary(graph)
    assert info["runtime_edges"] == 2 and len(info["ground_to_benchmark_edges"]) == 3


def test_no_new_import_cycle():
    new = [c for c in import_graph.cycles(GRAPH.executed()) if not any(set(c) <= known for known in KNOWN_CYCLES)]
    assert not new, "import cycle(s) outside the known exceptions:\n" + "\n".join(
        " <-> ".join(c) + "\n" + _fmt([(a, b) for a, b in _edges() if a in c and b in c]) for c in new
    )


def test_the_ground_neither_imports_nor_loads_a_benchmark_and_nothing_imports_the_suite_apps():
    bad = [(a, b) for a, b in _edges() if _package(a) == GROUND and _package(b) in BENCHMARKS]
    bad += [(a, b) for a, b in _edges() if b in SUITE_APPS and a not in SUITE_APPS]
    assert not bad, "causal_suite layering violated:\n" + _fmt(bad)


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_text_modules_import_nothing_of_their_package(package):
    bad = [(a, b) for a, b in _edges() if a in PURE[package] and _package(b) == package]
    assert not bad, f"{package}: a pure module imports its package:\n" + _fmt(bad)


@pytest.mark.parametrize("package", sorted(DATA_TOOLING))
def test_data_tooling_never_imports_the_eval_layer(package):
    tooling = DATA_TOOLING[package]
    allowed = (tooling, *PURE.get(package, ()))
    bad = [
        (a, b)
        for a, b in _edges()
        if _under(a, tooling) and _package(b) == package and not any(_under(b, p) for p in allowed)
    ]
    assert not bad, f"{tooling} (data tooling) imports the eval layer of {package}:\n" + _fmt(bad)


def test_benchmarks_do_not_import_each_other():
    bad = [
        (a, b)
        for a, b in _edges()
        if _package(a) in BENCHMARKS
        and _package(b) in BENCHMARKS
        and _package(a) != _package(b)
        and not any(_under(b, p) for p in CONSUMERS.get(_package(a), ()))
    ]
    assert not bad, "imports across benchmark packages outside the allowed contracts:\n" + _fmt(bad)


def test_private_inspect_imports_only_in_the_compat_module():
    import ast

    found = []
    for module, path in GRAPH.modules.items():
        if module == PRIVATE_INSPECT_HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            )
            found += [f"{module}: {n}" for n in names if n.startswith("inspect_ai") and "._" in f".{n}"]
    assert not found, f"private inspect imports outside {PRIVATE_INSPECT_HOME}:\n  " + "\n  ".join(found)
