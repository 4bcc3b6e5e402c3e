"""Reading JSON-lines and JSON-array record files with one-sentence errors naming the file and line.

Every package reads its record files through these two functions, so a bad file fails the same way everywhere:
``<where>, line <n>: not valid JSON (<reason>).`` or ``<where>, line <n>: must be a JSON object, got list.``
``where`` is how the caller names the file in its errors (default: the path itself). Whether the file exists is
the caller's check (``causal_suite.errors.require_file``), so that each reader can say how to make the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError


def iter_jsonl(path: str | Path, where: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number from 1, object)`` for each non-blank line of a JSON-lines file, in file order.

    Args:
        path: the JSON-lines file.
        where: the file's name in error messages (default: ``path``), e.g. ``"CoBe file 'x.jsonl'"``.

    Raises:
        SuiteInputError: a line is not valid JSON, or holds a JSON value that is not an object.
    """
    where = str(path) if where is None else where
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SuiteInputError(f"{where}, line {lineno}: not valid JSON ({exc.msg}).") from exc
            if not isinstance(row, dict):
                raise SuiteInputError(f"{where}, line {lineno}: must be a JSON object, got {type(row).__name__}.")
            yield lineno, row


def read_json_list(path: str | Path, where: str | None = None) -> list[Any]:
    """The list a JSON file holds (its items unchecked: callers name a bad item by its record position).

    Args:
        path: the JSON file, holding one array.
        where: the file's name in error messages (default: ``path``).

    Raises:
        SuiteInputError: the file is not valid JSON, or holds something other than an array.
    """
    where = str(path) if where is None else where
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SuiteInputError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
    if not isinstance(doc, list):
        raise SuiteInputError(f"{where} should hold a JSON list of records, not a {type(doc).__name__}.")
    return doc
