"""Source problems of a glass corpus: GSM8K / MATH records -> base ``Problem``s with gold answer and declared
complexity (§3.1).

A source is a local JSONL / JSON / parquet file in the upstream layout, a dataset saved with ``save_to_disk``, or a
``datasets`` hub id. GSM8K records carry ``question`` and ``answer`` (the gold number after ``####``); MATH
records carry ``problem``, ``solution`` (gold = its last ``\\boxed{}``), ``level`` and ``type``. A malformed record
stops the build with one sentence naming it, unless ``skip_bad_rows`` (then it is counted in corpus.json).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_extra
from causal_suite.files import sha256_file
from causal_suite.jsonl import DATA_LIMIT, iter_jsonl, read_json, require_regular_file
from glass_inspect.answers import SUITES, last_boxed, normalize_answer
from glass_inspect.corpus.complexity import gsm_complexity, math_complexity

_FILE_TYPES = (".jsonl", ".json", ".parquet")


@dataclass(frozen=True)
class Problem:
    """One base problem read from a source record."""

    base_id: str
    text: str
    answer: str
    category: str
    level: int | None
    complexity: float


def _hub_rows(source: str, split: str, hub_config: str | None) -> Any:
    """The rows of a ``datasets`` hub id; an unreachable hub or an unknown id is one sentence, not a traceback."""
    datasets = require_extra("datasets", "dev", "Reading a hub dataset")
    try:
        return datasets.load_dataset(source, hub_config, split=split)
    except (OSError, ConnectionError, ValueError) as exc:  # datasets' not-found and offline errors are OSErrors
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        names = (
            f"check --split '{split}' and --hub-config ({hub_config or 'not given'}) against the dataset's; "
            if isinstance(exc, ValueError)
            else ""
        )  # datasets raises ValueError for a split or config the dataset lacks
        raise SuiteInputError(
            f"source '{source}' was read as a datasets hub id and could not be loaded ({reason}): {names}offline, "
            "save it where the hub is reachable (datasets.load_dataset(...).save_to_disk(DIR)) and pass --source DIR, "
            "or pass a local JSONL / JSON / parquet file."
        ) from None


def _rows(source: str, split: str, hub_config: str | None) -> Iterator[tuple[int, Any]]:
    """(record number from 1, row) of a JSONL / JSON / parquet file, a saved ``datasets`` dir, or a hub id."""
    path = Path(source).expanduser()
    if path.is_dir():
        datasets = require_extra("datasets", "dev", "Reading a saved dataset")
        ds = datasets.load_from_disk(str(path))
        if isinstance(ds, datasets.DatasetDict):
            if split not in ds:
                raise SuiteInputError(f"dataset '{path}' has no split '{split}' (it has {', '.join(ds)}).")
            ds = ds[split]
        yield from enumerate(ds, 1)
    elif not path.exists():
        if "/" in source and not source.startswith((".", "/", "~")) and path.suffix not in _FILE_TYPES:
            yield from enumerate(_hub_rows(source, split, hub_config), 1)
            return
        raise SuiteInputError(f"source '{source}' does not exist: pass a local file or a datasets hub id.")
    elif path.suffix == ".jsonl":
        yield from iter_jsonl(path)
    elif path.suffix == ".json":
        data = read_json(path, max_bytes=DATA_LIMIT)
        if isinstance(data, dict):
            data = data.get(split, data.get("data"))
        if not isinstance(data, list):
            raise SuiteInputError(f"{path}: expected a JSON list of records (or a dict holding one under '{split}').")
        yield from enumerate(data, 1)
    elif path.suffix == ".parquet":
        import pandas as pd

        try:
            rows = pd.read_parquet(require_regular_file(path, max_bytes=DATA_LIMIT)).to_dict(orient="records")
        except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise SuiteInputError(f"{path}: not a readable parquet file ({exc}).") from None
        yield from enumerate(rows, 1)
    else:
        raise SuiteInputError(f"source '{path}': unsupported file type (use .jsonl, .json, .parquet or a dataset dir).")


def _field(row: Any, name: str, where: str) -> str:
    value = row.get(name) if isinstance(row, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise _BadRow(f"{where}: field '{name}' is missing or empty")
    return value


class _BadRow(Exception):
    """A malformed source record (reported with its location; skipped or fatal by flag)."""


def parse_row(suite: str, row: Any, where: str, number: int) -> Problem:
    """One source record -> a Problem, or ``_BadRow`` naming the record and field."""
    if suite == "gsm":
        text, solution = _field(row, "question", where), _field(row, "answer", where)
        if "####" not in solution:
            raise _BadRow(f"{where}: field 'answer' has no '#### <number>' final answer")
        raw: str | None = solution.rsplit("####", 1)[1].strip()
        answer = normalize_answer(raw, "gsm")
        if answer is None:
            raise _BadRow(f"{where}: field 'answer' ends in a non-numeric final answer {raw!r}")
        return Problem(f"gsm-{number - 1}", text, answer, "gsm", None, gsm_complexity(text))
    text, solution = _field(row, "problem", where), _field(row, "solution", where)
    raw = last_boxed(solution)
    if raw is None:
        raise _BadRow(f"{where}: field 'solution' has no \\boxed{{}} answer")
    answer = normalize_answer(raw, "math") or raw.strip()
    level_raw = row.get("level_num", row.get("level"))
    try:
        level = int(str(level_raw).replace("Level", "").strip())
        complexity = math_complexity(level)
    except ValueError:
        raise _BadRow(f"{where}: field 'level' is {level_raw!r}, not 'Level 1'..'Level 5'") from None
    category = row.get("type") if isinstance(row.get("type"), str) else ""
    if not category:
        raise _BadRow(f"{where}: field 'type' (the MATH subject) is missing or empty")
    return Problem(f"math-{number - 1}", text, answer, category, level, complexity)


def load_source(
    suite: str,
    source: str,
    *,
    split: str = "test",
    hub_config: str | None = None,
    limit: int | None = None,
    skip_bad_rows: bool = False,
) -> tuple[list[Problem], list[dict[str, Any]]]:
    """Read and parse up to ``limit`` source records; a bad record stops the build unless ``skip_bad_rows``
    (then it is listed in the returned skips as ``{"record": n, "reason": ...}``)."""
    if suite not in SUITES:
        raise SuiteInputError(f"unknown suite {suite!r}: expected one of {', '.join(SUITES)}.")
    problems, skipped = [], []
    for number, row in _rows(source, split, hub_config):
        if limit is not None and number > limit:
            break
        try:
            problems.append(parse_row(suite, row, f"{source}, record {number}", number))
        except _BadRow as exc:
            if not skip_bad_rows:
                raise SuiteInputError(f"{exc} (pass --skip-bad-rows to skip and count such records).") from None
            skipped.append({"record": number, "reason": str(exc).split(": ", 1)[1]})
    if not problems:
        raise SuiteInputError(f"source '{source}' yielded no usable {suite} problem.")
    return problems, skipped


def source_sha(source: str) -> str:
    path = Path(source).expanduser()
    if path.is_file():
        return sha256_file(path)
    if path.is_dir():
        h = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(f.relative_to(path).as_posix().encode() + b"\0" + sha256_file(f).encode())
        return h.hexdigest()
    return hashlib.sha256(f"hub:{source}".encode()).hexdigest()
