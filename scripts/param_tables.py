"""Regenerate the parameter tables of the package READMEs from the task docstrings (``causal_suite.taskdoc``).

    python scripts/param_tables.py          # rewrite every marked table
    python scripts/param_tables.py --check  # exit 1, naming the README, when a table differs from the docstrings

A table sits between ``<!-- parameters: TASK -->`` and ``<!-- /parameters -->``; edit the task's docstring, not
the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from causal_suite.files import write_text_atomic
from causal_suite.taskdoc import render_tables

READMES = sorted(Path(__file__).resolve().parents[1].glob("src/*/README.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report READMEs whose tables are out of date")
    args = parser.parse_args(argv)
    stale = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        fresh = render_tables(text)
        if fresh != text:
            stale.append(readme)
            if not args.check:
                write_text_atomic(readme, fresh)
    for readme in stale:
        print(f"{readme.parent.name}/README.md: {'out of date' if args.check else 'tables regenerated'}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
