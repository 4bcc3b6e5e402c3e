"""Reading the suite's input files (text, JSON, JSON lines) with one-sentence errors naming the file and line.

Every package reads its input files through these functions, so a bad file fails the same way everywhere:
``<where>, line <n>: not valid JSON (<reason>).`` (a JSON-lines file), ``<where> is not valid JSON (line <n>:
<reason>).`` (a JSON document), ``<where>, line <n>: not UTF-8 text (byte 0xff).`` or ``<where> is a directory,
not a file.`` ``where`` is how the caller names the file in its errors (default: the path itself). Whether
the file exists is the caller's check (``causal_suite.errors.require_file``), so that each reader can say how to
make the file.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError


def require_regular_file(path: str | Path, where: str | None = None, max_bytes: int | None = None) -> Path:
    """``path`` when it is a regular file (a link is followed) of at most ``max_bytes`` bytes; else one sentence.

    Checked before anything is read, so a FIFO never blocks, a device (``/dev/zero``) is never read without end and
    an oversized file is never loaded into memory.

    Raises:
        SuiteInputError: the path is missing, a directory, not a regular file, or larger than ``max_bytes``.
    """
    where = str(path) if where is None else where
    p = Path(path)
    try:
        info = p.stat()
    except FileNotFoundError:
        raise SuiteInputError(f"{where} does not exist: check the path you passed.") from None
    except OSError as exc:
        raise SuiteInputError(f"{where} cannot be read ({exc.strerror or exc}).") from None
    if stat.S_ISDIR(info.st_mode):
        raise SuiteInputError(f"{where} is a directory, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise SuiteInputError(f"{where} is not a regular file (a pipe, socket or device); pass a file.")
    if max_bytes is not None and info.st_size > max_bytes:
        raise SuiteInputError(f"{where} is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit for this input.")
    return p


def read_text(path: str | Path, where: str | None = None) -> str:
    """The text of a UTF-8 file (a leading byte-order mark dropped).

    Raises:
        SuiteInputError: the path is a directory or cannot be read, or its bytes are not UTF-8 (the message gives
            the line of the first bad byte).
    """
    where = str(path) if where is None else where
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise SuiteInputError(f"{where} is a directory, not a file.") from None
    except OSError as exc:
        raise SuiteInputError(f"{where} cannot be read ({exc.strerror or exc}).") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SuiteInputError(f"{where}, line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}).") from None


def _json_document(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SuiteInputError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None


def json_lines(text: str, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of each non-blank line of JSON-lines ``text``; one sentence naming ``where`` and the
    line when a line is not JSON or not an object."""
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SuiteInputError(f"{where}, line {lineno}: not valid JSON ({exc.msg}).") from None
        if not isinstance(row, dict):
            raise SuiteInputError(f"{where}, line {lineno}: must be a JSON object, got {type(row).__name__}.")
        yield lineno, row


def _as_list(doc: Any, where: str) -> list[Any]:
    if not isinstance(doc, list):
        raise SuiteInputError(f"{where} should hold a JSON list of records, not a {type(doc).__name__}.")
    return doc


def read_json(path: str | Path, where: str | None = None) -> Any:
    """The JSON document a UTF-8 file holds.

    Raises:
        SuiteInputError: the file cannot be read as text (see :func:`read_text`) or is not valid JSON.
    """
    where = str(path) if where is None else where
    return _json_document(read_text(path, where), where)


def iter_jsonl(path: str | Path, where: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number from 1, object)`` for each non-blank line of a JSON-lines file, in file order.

    Args:
        path: the JSON-lines file.
        where: the file's name in error messages (default: ``path``), e.g. ``"CoBe file 'x.jsonl'"``.

    Raises:
        SuiteInputError: the file cannot be read as text (see :func:`read_text`), a line is not valid JSON, or
            holds a JSON value that is not an object.
    """
    where = str(path) if where is None else where
    yield from json_lines(read_text(path, where), where)


def read_json_list(path: str | Path, where: str | None = None) -> list[Any]:
    """The list a JSON file holds (its items unchecked: callers name a bad item by its record position).

    Args:
        path: the JSON file, holding one array.
        where: the file's name in error messages (default: ``path``).

    Raises:
        SuiteInputError: the file is not valid JSON (see :func:`read_json`), or holds something other than an array.
    """
    where = str(path) if where is None else where
    return _as_list(read_json(path, where), where)


def read_records(path: str | Path, where: str | None = None) -> list[tuple[int | None, Any]]:
    """``(line number, record)`` pairs of a file holding a JSON array (its first non-blank character is '[';
    line None, items unchecked) or JSON lines (as :func:`iter_jsonl`); the file is read once.

    Raises:
        SuiteInputError: as :func:`read_json_list` or :func:`iter_jsonl`.
    """
    where = str(path) if where is None else where
    text = read_text(path, where)
    if text.lstrip().startswith("["):
        return [(None, item) for item in _as_list(_json_document(text, where), where)]
    return list(json_lines(text, where))
