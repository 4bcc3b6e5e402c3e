"""Typed fields of input records: a wrong type or value fails in one sentence naming the file, record and field.

``where`` names the file and the record (``"pool.jsonl, line 4"``); the message adds the field:
``<where>: field 'injection_size' should be an integer, got '3'.`` A bool is never a number here, and a number
must be finite (JSON files may hold ``NaN`` and ``Infinity``, which Python's reader accepts).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from causal_suite.errors import SuiteInputError

NUMBER = (int, float)
_NAMES = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list", type(None): "null"}


def _flat(kind: type | tuple) -> tuple[type, ...]:
    return tuple(k for part in kind for k in _flat(part)) if isinstance(kind, tuple) else (kind,)


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = dict.fromkeys(_NAMES.get(k, k.__name__) for k in kinds if not (k is int and float in kinds))
    return " or ".join(names)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_type(value: Any, key: str, where: str, kind: type | tuple = str) -> Any:
    """``value`` when it is of ``kind`` (a type or a tuple of types, nested tuples allowed; ``int`` and ``float``
    exclude bool, and a float must be finite); else a SuiteInputError naming ``where`` and ``key``."""
    kinds = _flat(kind)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        raise SuiteInputError(f"{where}: field '{key}' should be {_kind_name(kinds)}, got {_shown(value)}.")
    if isinstance(value, float) and not math.isfinite(value):
        raise SuiteInputError(f"{where}: field '{key}' should be a finite number, got {value!r}.")
    return value


def require(record: Mapping[str, Any], key: str, where: str, kind: type | tuple = str) -> Any:
    """``record[key]``, checked by :func:`check_type`; a missing key is a SuiteInputError naming it."""
    if key not in record:
        raise SuiteInputError(f"{where}: field '{key}' is missing.")
    return check_type(record[key], key, where, kind)


def check_range(value: float, key: str, where: str, low: float, high: float = math.inf) -> float:
    """``value`` when ``low <= value <= high``; else a SuiteInputError naming ``where``, ``key`` and the range."""
    if not low <= value <= high:
        bounds = f"at least {low}" if high == math.inf else f"in [{low}, {high}]"
        raise SuiteInputError(f"{where}: field '{key}' is {value!r}; it must be {bounds}.")
    return value
