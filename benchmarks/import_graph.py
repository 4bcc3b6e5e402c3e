"""The import graph of the suite's packages (everything under ``src/``): edges per package, cycles, module sizes.

    .venv/bin/python benchmarks/import_graph.py [--src src] [--json]

Every ``import`` and ``from ... import`` statement is read with ``ast``, at module level *and* inside functions
(a function-level import is an edge too: it runs whenever the function does, and a cycle through one is still a
cycle, only a deferred one). An import under ``if TYPE_CHECKING:`` is an edge for the layering rules but never runs,
so no cycle is made of one. ``from pkg import name`` is an edge to the module ``pkg.name`` when that is a module,
else to ``pkg`` itself; relative imports are resolved. Imports of anything outside ``src/`` (inspect_ai, numpy,
...) are not edges. A **run-time load** is an edge too: a string constant (docstrings aside) that names a module
of another package, as ``importlib.import_module("pkg.mod")``, an entry-point value or an inspect registry name
(``"pkg/task"``, ``f"pkg/{name}"``) does; it is marked ``!``. A string on a line that says ``import-graph: names, not loads`` in a comment, or right
below such a line, is skipped (package names used as folder names, say). A load whose name is computed (``entry.load()`` over an
entry-point group) names no package and is no edge: that is how the shared ground finds the benchmarks
(``causal_suite.registration``).

Printed: a per-package summary (modules, lines, internal edges, cycles), the edges of each package (``*`` marks a
function-level import), the edges between packages, the cycles (strongly connected components of more than one
module) and the module sizes in lines, largest first. ``--json`` prints the same as one JSON object.

``tests/suite/test_suite_architecture.py`` loads this file and checks the graph: no cycle beyond the listed known
exceptions, and the layering rules of each package.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SRC = Path(__file__).resolve().parents[1] / "src"
GROUND = "causal_suite"  # the shared ground: it imports and loads by name no other package of src/


@dataclass
class ImportGraph:
    """Modules of a source tree, their sizes in lines, and the internal import edges between them."""

    modules: dict[str, Path]
    lines: dict[str, int]
    edges: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    deferred: set[tuple[str, str]] = field(default_factory=set)  # edges only made by function-level imports
    runtime: set[tuple[str, str]] = field(default_factory=set)  # edges only made by strings naming a module
    type_only: set[tuple[str, str]] = field(default_factory=set)  # edges only made under ``if TYPE_CHECKING:``

    def package(self, module: str) -> str:
        return module.split(".")[0]

    def packages(self) -> list[str]:
        return sorted({self.package(m) for m in self.modules})

    def edge_list(self) -> list[tuple[str, str]]:
        return sorted((a, b) for a, targets in self.edges.items() for b in targets)

    def executed(self) -> dict[str, set[str]]:
        """The edges that run (type-only imports left out): what an import cycle is made of."""
        return {a: {b for b in targets if (a, b) not in self.type_only} for a, targets in self.edges.items()}


def discover(src: Path) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of every package under ``src``."""
    modules: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if "__pycache__" in rel.parts or not (src / rel.parts[0]).is_dir():
            continue
        parts = list(rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is one of ``modules`` (None: not an internal import)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i])
        if candidate in modules:
            return candidate
    return None


def _type_checking(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (read by type checkers, never run)."""
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inner.update(
                id(n) for part in node.body for n in ast.walk(part) if isinstance(n, (ast.Import, ast.ImportFrom))
            )
    return inner


def _function_level(tree: ast.AST) -> set[int]:
    """ids of the import nodes that sit inside a function (run when it is called, not at import time)."""
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return inner


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, bool, bool]]:
    """(internal target, function-level?, type-only?) for every import statement of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    inner, typing_only = _function_level(tree), _type_checking(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, bool, bool]] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem for a in node.names]
        for target in targets:
            resolved = _resolve(target, modules)
            if resolved is not None and resolved != module:
                found.append((resolved, id(node) in inner, id(node) in typing_only))
    return found


NOT_A_LOAD = (
    "import-graph: names, not loads"  # a comment saying the package names on its line (or the next) are no loads
)
MODULE_NAME = re.compile(r"([A-Za-z_]\w*)((?:[./][A-Za-z_]\w*)*)[./]?")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of a module, its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def runtime_loads(module: str, path: Path, modules: dict[str, Path]) -> list[str]:
    """The modules of other packages that a string constant of ``module`` names (a run-time load by name)."""
    text = path.read_text(encoding="utf-8")
    tree, lines = ast.parse(text, filename=str(path)), text.splitlines()
    packages = {m.split(".")[0] for m in modules}
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in skip:
            continue
        if NOT_A_LOAD in lines[node.lineno - 1] or (node.lineno > 1 and NOT_A_LOAD in lines[node.lineno - 2]):
            continue
        match = MODULE_NAME.fullmatch(node.value)
        if match and match.group(1) in packages and match.group(1) != module.split(".")[0]:
            found.append(_resolve(node.value.strip("./").replace("/", "."), modules) or match.group(1))
    return found


def build_graph(src: Path = DEFAULT_SRC) -> ImportGraph:
    """The import graph of every package under ``src``."""
    modules = discover(src)
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in modules.items()}
    graph = ImportGraph(modules, lines)
    eager: set[tuple[str, str]] = set()
    executed: set[tuple[str, str]] = set()
    for module, path in modules.items():
        for target, deferred, type_only in imports_of(module, path, modules):
            graph.edges[module].add(target)
            (graph.deferred if deferred else eager).add((module, target))
            (graph.type_only if type_only else executed).add((module, target))
        for target in runtime_loads(module, path, modules):
            graph.edges[module].add(target)
            graph.runtime.add((module, target))
    graph.deferred -= eager
    graph.runtime -= eager | graph.deferred
    graph.type_only -= executed | graph.runtime
    return graph


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(nodes) + 100))
    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(found, key=lambda c: (-len(c), c))


def _edge(graph: ImportGraph, a: str, b: str) -> str:
    """``a -> b``, marked ``*`` for a function-level import and ``!`` for a run-time load by name."""
    marks = {" *": graph.deferred, " !": graph.runtime, " (type-only)": graph.type_only}
    mark = next((m for m, edges in marks.items() if (a, b) in edges), "")
    return f"{a} -> {b}{mark}"


def summary(graph: ImportGraph) -> dict:
    """Everything the script prints, as one JSON-able object."""
    found = cycles(graph.executed())
    packages = {}
    for pkg in graph.packages():
        mods = [m for m in graph.modules if graph.package(m) == pkg]
        internal = [(a, b) for a, b in graph.edge_list() if graph.package(a) == pkg == graph.package(b)]
        packages[pkg] = {
            "modules": len(mods),
            "lines": sum(graph.lines[m] for m in mods),
            "largest": max(mods, key=lambda m: (graph.lines[m], m)),
            "internal_edges": len(internal),
            "function_level_edges": sum((a, b) in graph.deferred for a, b in internal),
            "cycles": [c for c in found if graph.package(c[0]) == pkg],
            "edges": [_edge(graph, a, b) for a, b in internal],
            "sizes": {m: graph.lines[m] for m in sorted(mods, key=lambda m: (-graph.lines[m], m))},
        }
    cross = [_edge(graph, a, b) for a, b in graph.edge_list() if graph.package(a) != graph.package(b)]
    ground = [_edge(graph, a, b) for a, b in graph.edge_list() if graph.package(a) == GROUND != graph.package(b)]
    return {
        "modules": len(graph.modules),
        "lines": sum(graph.lines.values()),
        "edges": len(graph.edge_list()),
        "cycles": found,
        "packages": packages,
        "cross_package_edges": cross,
        "runtime_edges": len(graph.runtime),
        "ground_to_benchmark_edges": ground,
    }


def render(info: dict) -> str:
    out = [
        f"import graph: {info['modules']} modules, {info['lines']} lines, {info['edges']} internal edges, "
        f"{len(info['cycles'])} cycle(s), {info['runtime_edges']} run-time load(s) by name, "
        f"{len(info['ground_to_benchmark_edges'])} edge(s) from the ground ({GROUND}) to a benchmark",
        "",
        f"{'package':22s} {'modules':>7s} {'lines':>6s} {'edges':>6s} {'fn-level':>8s} {'cycles':>6s}  largest module",
    ]
    for pkg, p in info["packages"].items():
        out.append(
            f"{pkg:22s} {p['modules']:7d} {p['lines']:6d} {p['internal_edges']:6d} "
            f"{p['function_level_edges']:8d} {len(p['cycles']):6d}  {p['largest']} ({p['sizes'][p['largest']]})"
        )
    out += ["", "== cycles (strongly connected components; * marks a function-level import, ! a run-time load)"]
    out += [f"  {i}. " + " <-> ".join(c) for i, c in enumerate(info["cycles"], 1)] or ["  none"]
    for pkg, p in info["packages"].items():
        out += ["", f"== {pkg}: edges ({p['internal_edges']})"] + [f"  {e}" for e in p["edges"]]
    out += ["", f"== edges from the ground to a benchmark ({len(info['ground_to_benchmark_edges'])})"]
    out += [f"  {e}" for e in info["ground_to_benchmark_edges"]] or ["  none"]
    out += ["", f"== edges between packages ({len(info['cross_package_edges'])})"]
    out += [f"  {e}" for e in info["cross_package_edges"]]
    for pkg, p in info["packages"].items():
        out += ["", f"== {pkg}: module sizes (lines)"] + [f"  {n:5d}  {m}" for m, n in p["sizes"].items()]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the source tree (default: this repo's src/)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    args = parser.parse_args(argv)
    info = summary(build_graph(args.src))
    print(json.dumps(info, indent=1) if args.json else render(info))
    return 0


if __name__ == "__main__":
    sys.exit(main())
