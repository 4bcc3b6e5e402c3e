"""A record's queries: their phrasing slots, and the intervention clause a subjunctive query states.

Slots (§3 "Query", App. B.2): position 0, 1, 2 of ``Query`` are phrasings A, B and C; a record may carry more
queries (the published evaluation results have some), whose slots are ``Q4``, ``Q5``, ... by position. A position
may be ``null`` in a record: the query at that position was not published (e.g. the site extract shows one
query of a scenario).

The paper's Tier-2 phrasing D ("... had <intervention>.") needs only the clause a record's own query already
states: "Rewrite the original text, based on what would have happened instead had **the drain been opened**."
``intervention_clause`` recovers it from the "had <clause>" form (A, C) and the "if <subject> had <rest>" form (B).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TIER1_SLOTS = ("A", "B", "C")

_SLOT = re.compile(r"^(?:[ABC]|Q([1-9][0-9]*))$")
# "what would have happened", "what would have occurred", "what happens", "what would happen"
_ANCHOR = re.compile(r"\bwhat\s+(?:would\s+have\s+(?:happened|occurred)|happens|would\s+happen)\b", re.I)
_HAD = re.compile(r"\bhad\s+", re.I)
_IF_HAD = re.compile(r"\bif\s+(?P<subject>.+?)\s+had\s+(?P<rest>.+)$", re.I | re.S)
_MAX_CLAUSE = 300


def slot_name(position: int) -> str:
    """The phrasing slot of a query position: 0 -> A, 1 -> B, 2 -> C, 3 -> Q4, ..."""
    return TIER1_SLOTS[position] if position < 3 else f"Q{position + 1}"


def slot_position(slot: str) -> int | None:
    """The query position of a slot name (``A`` -> 0, ``Q4`` -> 3); None when it is not a Tier-1 slot."""
    slot = slot.strip().upper()
    match = _SLOT.match(slot)
    if not match:
        return None
    if match.group(1) is None:
        return TIER1_SLOTS.index(slot)
    number = int(match.group(1))
    return number - 1 if number >= 4 else None


def _trim(clause: str) -> str | None:
    clause = clause.strip().rstrip(".?!").strip()
    return clause if clause and len(clause) <= _MAX_CLAUSE else None


def intervention_clause(query: str) -> str | None:
    """The clause that follows "had" in a subjunctive rewrite request, or None when the query has no such form.

    ``... would have happened instead had it not been raining.`` -> ``it not been raining``;
    ``... what would have happened if the drain had been opened.`` -> ``the drain been opened``.
    """
    anchor = _ANCHOR.search(query)
    if anchor is None:
        return None
    tail = query[anchor.end() :]
    had = _HAD.search(tail)
    if_had = _IF_HAD.search(tail)
    if if_had and (had is None or if_had.start() < had.start()):
        subject, rest = if_had.group("subject").strip(), _trim(if_had.group("rest"))
        return _trim(f"{subject} {rest}") if rest else None
    if had is None:
        return None
    return _trim(tail[had.end() :])


def derive_intervention(queries: Sequence[str | None]) -> tuple[str, str] | None:
    """``(clause, slot)`` from the first of the record's queries (A, B, C, Q4, ...) that states one, else None."""
    for position, query in enumerate(queries):
        if query is None:
            continue
        clause = intervention_clause(query)
        if clause:
            return clause, slot_name(position)
    return None
