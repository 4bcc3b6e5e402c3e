"""Reading the suite's input files (text, JSON, JSON lines, YAML) with one-sentence errors naming the file and line.

Every package reads its input files through these functions, so a bad file fails the same way everywhere:
``<where>, line <n>: not valid JSON (<reason>).`` (a JSON-lines file), ``<where> is not valid JSON (line <n>:
<reason>).`` (a JSON document), ``<where>, line <n>: not UTF-8 text (byte 0xff).`` or ``<where> is a directory,
not a file.`` ``where`` is how the caller names the file in its errors (default: the path itself). Whether
the file exists is the caller's check (``causal_suite.errors.require_file``), so that each reader can say how to
make the file.

Hostile files fail the same way, before they can cost anything: a FIFO, socket or device (``/dev/zero``, also
behind a link) is refused unread, a file over its kind's size cap (:data:`DATA_LIMIT`, :data:`DOCUMENT_LIMIT`,
:data:`TABLE_LIMIT`) is refused before it is read, a JSON object holding one key twice is refused naming the key
and line (Python's reader would keep the last value silently), and nesting deeper than :data:`MAX_DEPTH` is refused
naming the line before the recursive parser sees it (so never a ``RecursionError``).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError

MIB = 1 << 20
#: Size caps by kind of input, checked before a byte is read.
DATA_LIMIT = 512 * MIB  # task data read whole: a glass pool, pair files, CoBe data, dataset sources
DOCUMENT_LIMIT = 64 * MIB  # one JSON / YAML document: corpus.json, scenario records, prompts, probes, responses
TABLE_LIMIT = 256 * MIB  # one CSV table: a scenario's data, a labels file
#: Arrays and objects nested deeper than this are refused (the suite's own inputs nest at most 5 deep).
MAX_DEPTH = 100

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
_COLON = re.compile(r"\s*:")


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def _check_stat(info: os.stat_result, where: str, max_bytes: int | None) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise SuiteInputError(f"{where} is a directory, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise SuiteInputError(f"{where} is not a regular file (a pipe, socket or device); pass a file.")
    if max_bytes is not None and info.st_size > max_bytes:
        exact = f" ({info.st_size:,} bytes)" if info.st_size >= 1 << 10 else ""
        raise SuiteInputError(
            f"{where} is {_size(info.st_size)}{exact}, over the {_size(max_bytes)} limit for this kind of input."
        )


def _unreadable(where: str, exc: OSError) -> SuiteInputError:
    if isinstance(exc, FileNotFoundError):
        return SuiteInputError(f"{where} does not exist: check the path you passed.")
    return SuiteInputError(f"{where} cannot be read ({exc.strerror or exc}).")


def require_regular_file(path: str | Path, where: str | None = None, max_bytes: int | None = None) -> Path:
    """``path`` when it is a regular file (a link is followed) of at most ``max_bytes`` bytes; else one sentence.

    Checked before anything is read, so a FIFO never blocks, a device (``/dev/zero``) is never read without end and
    an oversized file is never loaded into memory. For a file handed to another library (a parquet reader,
    ``torch.load``); the suite's own readers below read through :func:`read_bytes`.

    Raises:
        SuiteInputError: the path is missing, a directory, not a regular file, or larger than ``max_bytes``.
    """
    where = str(path) if where is None else where
    p = Path(path)
    try:
        info = p.stat()
    except OSError as exc:
        raise _unreadable(where, exc) from None
    _check_stat(info, where, max_bytes)
    return p


def read_bytes(path: str | Path, where: str | None = None, max_bytes: int = DATA_LIMIT) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes, checked on the open file itself.

    The file is opened without blocking (a FIFO swapped in after a check cannot hang the read), checked by
    :func:`require_regular_file`'s rules on its descriptor, and read no further than ``max_bytes`` (a file that
    grows while it is read is refused too).

    Raises:
        SuiteInputError: as :func:`require_regular_file`, or the file grew past ``max_bytes``.
    """
    where = str(path) if where is None else where
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except IsADirectoryError:
        raise SuiteInputError(f"{where} is a directory, not a file.") from None
    except OSError as exc:
        raise _unreadable(where, exc) from None
    try:
        _check_stat(os.fstat(fd), where, max_bytes)
    except SuiteInputError:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise SuiteInputError(f"{where} grew past the {_size(max_bytes)} limit for this kind of input while read.")
    return data


def read_text(path: str | Path, where: str | None = None, max_bytes: int = DATA_LIMIT) -> str:
    """The text of a UTF-8 file (a leading byte-order mark dropped), read by :func:`read_bytes`.

    Raises:
        SuiteInputError: as :func:`read_bytes`, or its bytes are not UTF-8 (the message gives the line of the first
            bad byte).
    """
    where = str(path) if where is None else where
    data = read_bytes(path, where, max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SuiteInputError(f"{where}, line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}).") from None


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _too_deep_at(text: str) -> int | None:
    """The offset of the first bracket nested deeper than :data:`MAX_DEPTH` (brackets inside strings do not count),
    or None; a linear scan without recursion, skipped when the text holds too few brackets to nest that deep."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None


def _duplicate_at(text: str, key: str) -> int:
    """The offset of the second occurrence of ``key`` in one object of ``text`` (the error path only)."""
    stack: list[set[str] | None] = []
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            stack.append(set() if token == "{" else None)
        elif token in "]}":
            if stack:
                stack.pop()
        elif stack and stack[-1] is not None and _COLON.match(text, match.end()):
            name = json.loads(token)
            if name in stack[-1] and name == key:
                return match.start()
            stack[-1].add(name)
    return 0


def decode_json(text: str, where: str, line: int | None = None, count_lines: bool = True) -> Any:
    """``text`` parsed as JSON with unique keys and bounded nesting (syntax errors left to the caller).

    Errors name ``where`` and a line: ``line`` when given (a JSON-lines row), else the line in ``text`` unless
    ``count_lines`` is false (a CSV cell, whose ``where`` names its row).

    Raises:
        json.JSONDecodeError: ``text`` is not valid JSON (callers word it for their layout).
        SuiteInputError: a key twice in one object, or nesting deeper than :data:`MAX_DEPTH`.
    """

    def at(pos: int) -> str:
        if line is not None:
            return f", line {line}"
        return f", line {_line_at(text, pos)}" if count_lines else ""

    deep = _too_deep_at(text)
    if deep is not None:
        raise SuiteInputError(f"{where}{at(deep)}: nested deeper than {MAX_DEPTH} levels of arrays and objects.")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as dup:
        raise SuiteInputError(
            f"{where}{at(_duplicate_at(text, dup.key))}: key {dup.key!r} appears twice in one object "
            "(give each key once)."
        ) from None
    except RecursionError:  # a backstop: the depth scan above refuses such input first
        raise SuiteInputError(f"{where}: nested too deeply to read.") from None


def parse_json(text: str, where: str) -> Any:
    """The JSON document ``text`` holds (keys unique, nesting bounded).

    Raises:
        SuiteInputError: not valid JSON, a key twice in one object, or nested deeper than :data:`MAX_DEPTH`.
    """
    try:
        return decode_json(text, where)
    except json.JSONDecodeError as exc:
        raise SuiteInputError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None


def parse_yaml(text: str, where: str) -> Any:
    """The YAML document ``text`` holds, read safely (``yaml.safe_load`` rules), keys unique (nesting too deep for
    PyYAML's recursive parser is one sentence too).

    Raises:
        SuiteInputError: not valid YAML, a key twice in one mapping, or nested too deeply.
    """
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        """``yaml.SafeLoader`` that refuses a mapping holding one key twice (PyYAML keeps the last silently)."""

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    line = key_node.start_mark.line + 1
                    raise SuiteInputError(f"{where}, line {line}: key {key!r} appears twice in one mapping.")
                seen.add(key)
            return super().construct_mapping(node, deep)

    try:
        return yaml.load(text, Loader=UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise SuiteInputError(f"{where} is not valid YAML ({' '.join(str(exc).split())}).") from None
    except RecursionError:
        raise SuiteInputError(f"{where}: nested too deeply to read.") from None


def json_lines(text: str, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of each non-blank line of JSON-lines ``text``; one sentence naming ``where`` and the
    line when a line is not JSON or not an object (or holds a key twice, or nests too deeply)."""
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = decode_json(line, where, lineno)
        except json.JSONDecodeError as exc:
            raise SuiteInputError(f"{where}, line {lineno}: not valid JSON ({exc.msg}).") from None
        if not isinstance(row, dict):
            raise SuiteInputError(f"{where}, line {lineno}: must be a JSON object, got {type(row).__name__}.")
        yield lineno, row


def _as_list(doc: Any, where: str) -> list[Any]:
    if not isinstance(doc, list):
        raise SuiteInputError(f"{where} should hold a JSON list of records, not a {type(doc).__name__}.")
    return doc


def read_json(path: str | Path, where: str | None = None, max_bytes: int = DOCUMENT_LIMIT) -> Any:
    """The JSON document a UTF-8 file holds (see :func:`parse_json`).

    Raises:
        SuiteInputError: the file cannot be read as text (see :func:`read_text`) or is not valid JSON.
    """
    where = str(path) if where is None else where
    return parse_json(read_text(path, where, max_bytes), where)


def iter_jsonl(path: str | Path, where: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number from 1, object)`` for each non-blank line of a JSON-lines file, in file order.

    Args:
        path: the JSON-lines file (at most :data:`DATA_LIMIT` bytes).
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
        return [(None, item) for item in _as_list(parse_json(text, where), where)]
    return list(json_lines(text, where))
