"""The import graph of the suite's packages (everything under ``src/``): edges per package, cycles, module sizes.

    .venv/bin/python benchmarks/import_graph.py [--src src] [--json]

Every ``import`` and ``from ... import`` statement is read with ``ast``, at module level *and* inside functions
(a function-level import is an edge too: it runs whenever the function does, and a cycle through one is still a
cycle, only a deferred one). ``from pkg import name`` is an edge to the module ``pkg.name`` when that is a module,
else to ``pkg`` itself; relative imports are resolved. Imports of anything outside ``src/`` (inspect_ai, numpy,
...) are not edges; neither are ``importlib.import_module("...")`` strings.

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
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SRC = Path(__file__).resolve().parents[1] / "src"


@dataclass
class ImportGraph:
    """Modules of a source tree, their sizes in lines, and the internal import edges between them."""

    modules: dict[str, Path]
    lines: dict[str, int]
    edges: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    deferred: set[tuple[str, str]] = field(default_factory=set)  # edges only made by function-level imports

    def package(self, module: str) -> str:
        return module.split(".")[0]

    def packages(self) -> list[str]:
        return sorted({self.package(m) for m in self.modules})

    def edge_list(self) -> list[tuple[str, str]]:
        return sorted((a, b) for a, targets in self.edges.items() for b in targets)


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


def _function_level(tree: ast.AST) -> set[int]:
    """ids of the import nodes that sit inside a function (run when it is called, not at import time)."""
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return inner


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, bool]]:
    """(internal target, function-level?) for every import statement of one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    inner = _function_level(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, bool]] = []
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
                found.append((resolved, id(node) in inner))
    return found


def build_graph(src: Path = DEFAULT_SRC) -> ImportGraph:
    """The import graph of every package under ``src``."""
    modules = discover(src)
    lines = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in modules.items()}
    graph = ImportGraph(modules, lines)
    eager: set[tuple[str, str]] = set()
    for module, path in modules.items():
        for target, deferred in imports_of(module, path, modules):
            graph.edges[module].add(target)
            (graph.deferred if deferred else eager).add((module, target))
    graph.deferred -= eager
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


def summary(graph: ImportGraph) -> dict:
    """Everything the script prints, as one JSON-able object."""
    found = cycles(graph.edges)
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
            "edges": [f"{a} -> {b}{' *' if (a, b) in graph.deferred else ''}" for a, b in internal],
            "sizes": {m: graph.lines[m] for m in sorted(mods, key=lambda m: (-graph.lines[m], m))},
        }
    cross = [
        f"{a} -> {b}{' *' if (a, b) in graph.deferred else ''}"
        for a, b in graph.edge_list()
        if graph.package(a) != graph.package(b)
    ]
    return {
        "modules": len(graph.modules),
        "lines": sum(graph.lines.values()),
        "edges": len(graph.edge_list()),
        "cycles": found,
        "packages": packages,
        "cross_package_edges": cross,
    }


def render(info: dict) -> str:
    out = [
        f"import graph: {info['modules']} modules, {info['lines']} lines, {info['edges']} internal edges, "
        f"{len(info['cycles'])} cycle(s)",
        "",
        f"{'package':22s} {'modules':>7s} {'lines':>6s} {'edges':>6s} {'fn-level':>8s} {'cycles':>6s}  largest module",
    ]
    for pkg, p in info["packages"].items():
        out.append(
            f"{pkg:22s} {p['modules']:7d} {p['lines']:6d} {p['internal_edges']:6d} "
            f"{p['function_level_edges']:8d} {len(p['cycles']):6d}  {p['largest']} ({p['sizes'][p['largest']]})"
        )
    out += ["", "== cycles (strongly connected components; edges marked * are function-level imports)"]
    out += [f"  {i}. " + " <-> ".join(c) for i, c in enumerate(info["cycles"], 1)] or ["  none"]
    for pkg, p in info["packages"].items():
        out += ["", f"== {pkg}: edges ({p['internal_edges']})"] + [f"  {e}" for e in p["edges"]]
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
