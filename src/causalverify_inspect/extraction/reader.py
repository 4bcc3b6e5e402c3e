"""The decision (paper App. C.3): every rule's candidates over the whole output, filtered by section, one value
left or an abstention with its reason; outputs too large to read whole are read for their answer lines.
"""

from __future__ import annotations

import re
from dataclasses import replace

from causalverify_inspect.extraction.labels import _ANSWER_LINE, _labelled, _line_candidates
from causalverify_inspect.extraction.numbers import _NUM_RE, MAX_LINE_CHARS, MAX_LINES, MAX_STDOUT_CHARS, _clean
from causalverify_inspect.extraction.results import Candidate, Extracted, Extraction, _agree, _all_agree
from causalverify_inspect.extraction.sections import _section_filter, _sections
from causalverify_inspect.extraction.tables import _etable, _t_test, _tables, _vectors
from causalverify_inspect.extraction.vocabulary import _PREFERRED_COLUMN, _TERMS, _effect_re


def _decide(candidates: list[Candidate]) -> tuple[Candidate | None, str]:
    if not candidates:
        return None, "no candidate"
    answers = [c for c in candidates if c.answer_line]
    preferred = [c for c in candidates if c.preferred]
    if answers:
        pool, why = answers, "answer line"
        if preferred and not all(_agree(a, p) for a in answers for p in preferred):
            return None, "the answer line and a candidate marked preferred disagree"
    elif preferred:
        pool, why = preferred, "marked preferred"
    else:
        pool, why = candidates, "only candidate"
    unusable = [c for c in pool if c.value is None]
    if unusable:
        if any(re.fullmatch(r"NA|NaN|-?Inf|NULL", c.text) for c in unusable):
            return None, "a candidate printed without a value (NA)"
        return None, "a percentage or rescaled effect outside an event study (its scale depends on the outcome)"
    if not _all_agree(pool):
        return None, f"{len(pool)} candidates disagree"
    if all(c.percent for c in pool):
        return None, "only a percentage (whether it is a percent of a return or of the outcome is for the extractor)"
    best = min((c for c in pool if not c.percent), key=lambda c: (c.unit, c.lineno))
    if len(pool) > 1 and why == "only candidate":
        why = f"{len(pool)} candidates print the same value"
    return best, why


def extract(stdout: str, family: str) -> Extraction:
    """The treatment-effect estimate printed in ``stdout`` for a ``family`` design when exactly one candidate can
    be it, else an abstention with the reason and the candidates (see module doc)."""
    if family not in _TERMS:
        raise ValueError(f"unknown design family {family!r}")
    lines = _clean(stdout).split("\n")
    if len(stdout) > MAX_STDOUT_CHARS or len(lines) > MAX_LINES:
        size = f"{len(stdout)} characters" if len(stdout) > MAX_STDOUT_CHARS else f"{len(lines)} lines"
        return _answer_lines_only(lines, family, f"output too long to read whole ({size}): answer lines only")
    unread = sum(len(line) > MAX_LINE_CHARS for line in lines)
    if unread:
        lines = ["" if len(line) > MAX_LINE_CHARS else line for line in lines]
    extraction = _read(lines, family)
    if not unread:
        return extraction
    note = f"{unread} line(s) over {MAX_LINE_CHARS} characters not read"
    return replace(extraction, reason=f"{extraction.reason}; {note}")


def _answer_lines_only(lines: list[str], family: str, why: str) -> Extraction:
    """The decision over the answer lines alone (``Estimate: <number>``), for outputs too large to read whole."""
    effect_re = _effect_re(family)
    candidates = [
        c
        for i, line in enumerate(lines)
        if len(line) <= MAX_LINE_CHARS and _ANSWER_LINE.match(line)
        for c in _line_candidates(line, i + 1, family, effect_re)[0]
    ]
    best, decided = _decide(candidates)
    estimate = None if best is None else best.as_estimate()
    return Extraction(estimate, f"{why}; {decided}", tuple(candidates))


def _read(lines: list[str], family: str) -> Extraction:
    """The decision over every rule's candidates in ``lines`` (see module doc)."""
    candidates: list[Candidate] = []
    claimed: set[int] = set()
    for reader in (_etable, _t_test):
        found = reader(lines, family)
        candidates += found.candidates
        claimed |= found.claimed
    found = _tables(lines, family, claimed)
    candidates += found.candidates
    claimed |= found.claimed
    found = _vectors(lines, family, claimed)
    candidates += found.candidates
    claimed |= found.claimed
    sections, headings = _sections(lines)
    candidates += _labelled(lines, family, claimed, headings).candidates
    candidates = _section_filter(candidates, sections, family)
    for line in lines:  # "Preferred specification: column 2" under an etable
        m = _PREFERRED_COLUMN.search(line)
        if m:
            candidates = [replace(c, preferred=True) if c.column == int(m.group(1)) else c for c in candidates]
    best, why = _decide(candidates)
    numbers = has_numbers("\n".join(lines))
    if best is None:
        return Extraction(None, why, tuple(candidates), numbers)
    return Extraction(best.as_estimate(), why, tuple(candidates), numbers)


def extract_estimate(stdout: str, family: str) -> Extracted | None:
    """The estimate of :func:`extract`, or None when it abstains."""
    return extract(stdout, family).estimate


def has_numbers(stdout: str) -> bool:
    """Whether stdout prints any number at all (if not, there is nothing for a judge to find)."""
    return _NUM_RE.search(stdout) is not None
