"""Parsing of list-valued parameters given on a command line or as ``-T name=value``."""

from __future__ import annotations

from collections.abc import Iterable


def comma_list(value: str | int | Iterable[object] | None) -> list[str]:
    """The items of a comma-separated value, stripped, empty items dropped, order and duplicates kept.

    ``"1,3, 5"`` -> ``["1", "3", "5"]``; ``5`` -> ``["5"]``; a list or tuple has each item split the same way
    (``["a,b", "c"]`` -> ``["a", "b", "c"]``, as ``--pairs a,b c`` gives); ``None`` -> ``[]``.
    """
    if value is None:
        return []
    items = [value] if isinstance(value, (str, int)) else list(value)
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]
