"""List the functions of a source tree longer than a line limit (the project keeps functions under ~60 lines).

    python scripts/long_functions.py [SRC ...] [--max 60]

Every ``def`` and ``async def`` is read with ``ast``, nested ones too (a nested function counts on its own and
inside the one that holds it). A function's length is its lines from ``def`` to its last line, signature and
docstring included, decorators not. Printed: one line per function over ``--max`` lines, longest first (length,
file, qualified name), then their count. The exit status is 0: the list is a guide for splitting "where it reads
better", not a gate.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

DEFAULT_SRC = Path(__file__).resolve().parents[1] / "src"


def function_lengths(path: Path) -> list[tuple[int, str]]:
    """(length in lines, qualified name) of every function in the Python file ``path``."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    found.append((child.end_lineno - child.lineno + 1, name))  # type: ignore[operator]
                name += "."
            visit(child, name)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), "")
    return found


def long_functions(roots: list[Path], limit: int) -> list[tuple[int, str, str]]:
    """(length, file, qualified name) of every function over ``limit`` lines under ``roots``, longest first."""
    rows = [
        (length, str(path), name)
        for root in roots
        for path in sorted(root.rglob("*.py") if root.is_dir() else [root])
        for length, name in function_lengths(path)
        if length > limit
    ]
    return sorted(rows, key=lambda row: (-row[0], row[1], row[2]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="*", type=Path, help="folders or files to read (default: the repository's src/)")
    parser.add_argument("--max", type=int, default=60, help="longest length not listed, in lines (default 60)")
    args = parser.parse_args(argv)
    roots = args.src or [DEFAULT_SRC]
    missing = [str(root) for root in roots if not root.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    rows = long_functions(roots, args.max)
    for length, path, name in rows:
        print(length, path, name)
    print(f"{len(rows)} function{'' if len(rows) == 1 else 's'} over {args.max} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
