"""Parameters given on a command line or as ``-T name=value``: list parsing and the type and range checks of every
task's parameters.

inspect parses each ``-T`` value as YAML, so ``-T timeout=abc`` arrives as the string ``"abc"``, ``-T timeout=2`` as
the integer 2 and ``-T calibration=2`` as the integer 2 (not a boolean). :class:`TaskParams` checks such values in
one place for every task of the suite: a value of the wrong type or out of range fails with one sentence naming the
task, the parameter and what is allowed, before anything is read or run.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, overload

from causal_suite.errors import SuiteInputError

_BOOLEANS = {"true": True, "false": False}


def comma_list(value: str | int | Iterable[object] | None) -> list[str]:
    """The items of a comma-separated value, stripped, empty items dropped, order and duplicates kept.

    ``"1,3, 5"`` -> ``["1", "3", "5"]``; ``5`` -> ``["5"]``; a list or tuple has each item split the same way
    (``["a,b", "c"]`` -> ``["a", "b", "c"]``, as ``--pairs a,b c`` gives); ``None`` -> ``[]``.
    """
    if value is None:
        return []
    items = [value] if isinstance(value, (str, int)) else list(value)
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


def _number(value: Any) -> float | None:
    """``value`` as a finite number (an int, a float or a numeric string; never a bool), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


def _within(number: float, above: float | None, at_least: float | None, at_most: float | None) -> bool:
    return not (
        (above is not None and number <= above)
        or (at_least is not None and number < at_least)
        or (at_most is not None and number > at_most)
    )


def _bound_text(above: float | None, at_least: float | None, at_most: float | None) -> str:
    parts = [f"> {above:g}" if above is not None else "", f">= {at_least:g}" if at_least is not None else ""]
    parts.append(f"<= {at_most:g}" if at_most is not None else "")
    return " and ".join(p for p in parts if p)


class TaskParams:
    """The checks of one task's parameters: each returns the value in its checked type when it is allowed, else
    raises one :class:`SuiteInputError` sentence ``Task '<task>': parameter '<name>' must be <what is allowed>, got
    <value>.``"""

    def __init__(self, task: str) -> None:
        self.task = task

    def fail(self, name: str, allowed: str, value: Any) -> SuiteInputError:
        """The sentence for parameter ``name`` holding ``value`` where ``allowed`` is what it may hold."""
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        return SuiteInputError(f"Task '{self.task}': parameter '{name}' must be {allowed}, got {shown}.")

    @overload
    def boolean(self, name: str, value: Any, optional: Literal[False] = False) -> bool: ...
    @overload
    def boolean(self, name: str, value: Any, optional: bool) -> bool | None: ...
    def boolean(self, name: str, value: Any, optional: bool = False) -> bool | None:
        """``true`` or ``false`` (a bool, or the strings true / false in any case); None too when ``optional``.
        An integer (``-T calibration=2``) or any other string (``maybe``) is refused."""
        if value is None and optional:
            return None
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _BOOLEANS:
            return _BOOLEANS[value.strip().lower()]
        raise self.fail(name, "true or false" + (" (or left unset)" if optional else ""), value)

    def number(
        self,
        name: str,
        value: Any,
        above: float | None = None,
        at_least: float | None = None,
        at_most: float | None = None,
    ) -> float:
        """A finite number (int, float or numeric string; not a bool) within the given bounds, as a float."""
        number = _number(value)
        if number is None or not _within(number, above, at_least, at_most):
            bounds = _bound_text(above, at_least, at_most)
            raise self.fail(name, "a number" + (f" {bounds}" if bounds else ""), value)
        return float(number)

    def integer(self, name: str, value: Any, at_least: int | None = None, at_most: int | None = None) -> int:
        """A whole number (an int, a float such as 5.0 or a numeric string; not a bool) within the given bounds."""
        number = _number(value)
        if number is None or not float(number).is_integer() or not _within(number, None, at_least, at_most):
            bounds = _bound_text(None, at_least, at_most)
            raise self.fail(name, "a whole number" + (f" {bounds}" if bounds else ""), value)
        return int(number)

    def subset(self, subset: Any, subset_seed: Any) -> tuple[int | None, int]:
        """The ``subset`` / ``subset_seed`` pair of a task (``causal_suite.subset``): a cluster count >= 1 or unset,
        and a seed >= 0."""
        count = None if subset is None else self.integer("subset", subset, at_least=1)
        return count, self.integer("subset_seed", subset_seed, at_least=0)

    def choice(self, name: str, value: Any, options: Sequence[str]) -> str:
        """One of ``options`` (compared as given: a string)."""
        if not isinstance(value, str) or value not in options:
            raise self.fail(name, "one of " + ", ".join(options), value)
        return value

    @overload
    def text(self, name: str, value: Any, optional: Literal[False]) -> str: ...
    @overload
    def text(self, name: str, value: Any, optional: bool = True) -> str | None: ...
    def text(self, name: str, value: Any, optional: bool = True) -> str | None:
        """A non-empty string (a path, a model slug); None too when ``optional``."""
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(name, "a non-empty string" + (" (or left unset)" if optional else ""), value)
        return value

    def items(self, name: str, value: Any, what: str = "items") -> list[str] | None:
        """A non-empty list of ``what`` (a list, or a comma-separated string): None (all) when not given, never
        empty (an empty string or ``-T ids=,`` is refused, not read as all)."""
        if value is None:
            return None
        scalar = isinstance(value, (str, int)) and not isinstance(value, bool)
        listed = isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value)
        found = comma_list(value) if scalar or listed else []
        if not found:
            raise self.fail(name, f"a non-empty comma-separated list of {what} (or left unset for all)", value)
        return found


def cli_integer(at_least: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number >= ``at_least``: anything else is argparse's one-line usage error
    (exit 2) naming the option, before the command starts."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < at_least:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {at_least}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {at_least}"
    return parse


def cli_integers(at_least: int) -> Callable[[str], list[int]]:
    """An argparse ``type`` for a non-empty comma-separated list of whole numbers >= ``at_least`` (``"0,1,2"``)."""
    one = cli_integer(at_least)

    def parse(text: str) -> list[int]:
        items = comma_list(text)
        if not items:
            raise argparse.ArgumentTypeError(f"must list at least one whole number >= {at_least}, got {text!r}")
        return [one(item) for item in items]

    parse.__name__ = f"list of integers >= {at_least}"
    return parse
