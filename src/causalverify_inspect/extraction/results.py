"""What the reader returns (paper App. C.3): an estimate with its provenance, a candidate with its role flags, the
decision with the candidates it weighed; candidates printing the same value to their precision agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from causalverify_inspect.extraction.numbers import _Tok, _unit


@dataclass(frozen=True)
class Extracted:
    """An estimate: value, the rule that read it (``source``), its line, an event-study window if labelled, the
    line number (1-based, in stdout) and the value of its last printed digit."""

    value: float
    source: str
    line: str
    window: tuple[int, int] | None = None
    lineno: int | None = None
    unit: float | None = None


@dataclass(frozen=True)
class Candidate:
    """A number that can be the treatment effect. ``value`` is None when its scale is unknown (a percentage outside
    event studies)."""

    value: float | None
    unit: float
    rule: str
    line: str
    lineno: int
    window: tuple[int, int] | None = None
    preferred: bool = False
    answer_line: bool = False
    text: str = ""
    column: int | None = None  # an etable column (1-based)
    explicit: bool = False  # its own label, call or term names it the IV (second-stage) estimate
    percent: bool = False  # printed as a percentage (value already divided by 100)

    def as_estimate(self) -> Extracted:
        """The estimate this candidate reads (the decision never picks one without a value)."""
        if self.value is None:
            raise ValueError(f"candidate on line {self.lineno} has no value")
        return Extracted(self.value, self.rule, self.line, self.window, self.lineno, self.unit)


@dataclass(frozen=True)
class Extraction:
    """What the deterministic reader decided: the estimate (or None), why, and the candidates it weighed."""

    estimate: Extracted | None
    reason: str
    candidates: tuple[Candidate, ...] = field(default_factory=tuple)
    numbers: bool = True
    """Whether the lines read print any number at all (False: nothing there for an extractor to find)."""

    def answers_disagree(self) -> bool:
        """Whether the answer lines (``Estimate: <number>``) print more than one value."""
        answers = [c for c in self.candidates if c.answer_line and c.value is not None]
        return len(answers) > 1 and not _all_agree(answers)

    def candidate_lines(self, limit: int = 40) -> list[str]:
        """``"<line number>: <line>"`` of each distinct candidate line, in output order (at most ``limit``)."""
        seen: dict[int, str] = {}
        for c in sorted(self.candidates, key=lambda c: c.lineno):
            seen.setdefault(c.lineno, f"{c.lineno}: {c.line[:300]}")
        return list(seen.values())[:limit]

    def provenance(self) -> dict:
        """Score metadata: the rule, line and reason of the answer, or the reason and candidate lines of an
        abstention."""
        if self.estimate is not None:
            return {
                "rule": self.estimate.source,
                "line": self.estimate.line[:300],
                "lineno": self.estimate.lineno,
                "reason": self.reason,
                "n_candidates": len(self.candidates),
            }
        return {"rule": None, "reason": self.reason, "candidate_lines": self.candidate_lines()}


def _agree(a: Candidate, b: Candidate) -> bool:
    """Same value to the printed precision of the less precise of the two."""
    if a.value is None or b.value is None:
        return False
    tolerance = 0.5 * max(a.unit, b.unit) * (1 + 1e-6) + 1e-12
    return abs(a.value - b.value) <= tolerance


def _all_agree(candidates: list[Candidate]) -> bool:
    """Whether every pair agrees; each printed value is compared once (10,000 copies of one line cost one)."""
    distinct = list({(c.value, c.unit): c for c in candidates}.values())
    return all(_agree(a, b) for a in distinct for b in distinct)


@dataclass
class _Found:
    candidates: list[Candidate]
    claimed: set[int]
    excluded: list[str]


def _candidate(
    tok: _Tok, rule: str, line: str, lineno: int, family: str, window=None, preferred=False, answer_line=False
) -> Candidate:
    unit = _unit(tok.text)
    value: float | None = tok.value
    if tok.percent:
        if family == "EVENT_STUDY":
            value, unit = tok.value / 100.0, unit / 100.0
        else:
            value = None
    return Candidate(
        value, unit, rule, line.strip(), lineno, window, preferred, answer_line, tok.text, percent=tok.percent
    )
