"""Text/data consistency audit for Exp B scenarios (paper §3; upstream defects 2-7 and 11 in the upstream notes).

A scenario's texts (title, research question, data description, reference conclusion) must agree with its realised
CSV: every column the text names exists and every column is described; stated sizes, treatment timing, event
windows and cutoffs (value and side) are true of the data; the instrument's type (binary or continuous) is stated
and right; the event-study text asks for the per-day abnormal return the canonical estimator returns; and the
effect's sign agrees across the DGP, the reference conclusion and the canonical estimate.
``causalverify-data`` refuses to write a set with any finding.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios.records import Scenario

_NUM = r"(-?\d[\d,]*(?:\.\d+)?)"
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_BACKTICK = re.compile(r"`([^`\s]+)`")
_SIZE = {  # stated size -> what it must equal in the data
    "units": re.compile(r"panel of " + _NUM),
    "periods": re.compile(r"over " + _NUM + r" periods"),
    "stocks": re.compile(r"returns for " + _NUM),
    "rows": re.compile(r"(?:cross-section of " + _NUM + r"|" + _NUM + r" (?:observations|rows)\b)"),
}
_TIMING = [  # statements of the first treated period
    re.compile(
        r"\b(?:treatment|policy|program(?:me)?|took effect|takes effect|effective(?: date)?|adopted|"
        r"implemented|begins|began|starts|started|deregulat\w*)\b[^.;()]{0,40}?\bperiod (\d+)",
        re.I,
    ),
    re.compile(r"\bfrom period (\d+) onwards?", re.I),
    re.compile(r"\bpost\W{0,3}\(\s*1\s*(?:=|if|when)\s*period\s*(?:>=|\u2265)\s*(\d+)", re.I),
]
_SIGNED = r"([-\u2212+]?\d+)"
_WINDOW = re.compile(
    r"days? "
    + _SIGNED
    + r" (?:to|through) "
    + _SIGNED
    + r"|\[\s*"
    + _SIGNED
    + r"\s*,\s*"
    + _SIGNED
    + r"\s*\]|\(\s*"
    + _SIGNED
    + r" to "
    + _SIGNED
    + r"\s*\)",
    re.I,
)
_EVENT_DAY = re.compile(r"(?:event )?day 0\b|event_day\s*=\s*0", re.I)
_PER_DAY = re.compile(r"(?:average )?(?:daily|per-day) abnormal return|abnormal return per day", re.I)
_SIDE_BEFORE = re.compile(
    r"(at or above|at least|above|greater than|more than|at or below|at most|below|under|less than)\s+"
    r"(?:the\s+)?(?:cutoff\s+(?:of\s+)?|threshold\s+(?:of\s+)?)?" + _NUM,
    re.I,
)
_SIDE_AFTER = re.compile(_NUM + r"\s+or\s+(more|above|older|higher|greater|less|below|younger|lower|fewer)", re.I)
_SIDE_SYMBOL = re.compile(r"running_var\s*(\u2265|>=|>|\u2264|<=|<)\s*" + _NUM)
_CUTOFF_VALUE = re.compile(r"(?:cutoff|threshold)(?: is| of| at| =|:)?\s*" + _NUM, re.I)
_ABOVE = {
    "at or above",
    "at least",
    "above",
    "greater than",
    "more than",
    "more",
    "older",
    "higher",
    "greater",
    "\u2265",
    ">=",
    ">",
}
_STRICT = {"above", "greater than", "more than", ">", "below", "under", "less than", "<"}
_Z_CLAUSE = re.compile(r"[`'\"]?\bz\b[`'\"]?\s*\(([^()]*)\)")
_BINARY_WORDS = re.compile(r"\b(?:binary|indicator|dummy|0/1)\b", re.I)
_CONTINUOUS_WORDS = re.compile(r"\bcontinuous\b", re.I)
_UP_WORDS = re.compile(r"\b(?:increas\w*|rais(?:e|es|ed|ing)|higher|boost\w*|improv\w*|better)\b", re.I)
_DOWN_WORDS = re.compile(r"\b(?:reduc\w*|decreas\w*|lower(?:s|ed|ing)?|declin\w*|worse)\b", re.I)
_SIGNED_EFFECT = re.compile(r"\b(positive|negative)\b(?: and \w+)? (?:effect|impact|relationship|association)", re.I)


@dataclass(frozen=True)
class Finding:
    """One text/data mismatch: the scenario, the check that failed and what is wrong."""

    scenario_id: str
    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.scenario_id} [{self.check}]: {self.detail}"


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _story(s: Scenario) -> str:
    return "\n".join([s.title, s.research_question, s.data_description])


def check_columns(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """Every column the text names exists; every data column is described."""
    text = _story(s)
    named = set(_BACKTICK.findall(text)) | set(_SNAKE.findall(text))
    out = [
        Finding(s.scenario_id, "missing_column", f"text names '{c}', which is not a column of {s.data_file}")
        for c in sorted(named - set(data.columns))
    ]
    out += [
        Finding(s.scenario_id, "undescribed_column", f"column '{c}' is not described in the text")
        for c in data.columns
        if not re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", text)
    ]
    return out


def check_sizes(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """Stated numbers of units, periods, stocks and rows are those of the data."""
    truth = {"rows": len(data)}
    if s.family == "DID":
        truth.update(units=data["unit_id"].nunique(), periods=data["period"].nunique())
    if s.family == "EVENT_STUDY":
        truth["stocks"] = data["stock_id"].nunique()
    out = []
    for what, pattern in _SIZE.items():
        for match in pattern.finditer(s.data_description):
            stated = _num(next(g for g in match.groups() if g))
            if what in truth and stated != truth[what]:
                out.append(Finding(s.scenario_id, "size", f"text states {stated:g} {what}, data have {truth[what]}"))
    return out


def check_did_timing(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """The stated first treated period is the data's, and the treatment columns are internally consistent."""
    out = []
    if "post" in data and "treated" in data and not (data["treat_x_post"] == data["treated"] * data["post"]).all():
        out.append(Finding(s.scenario_id, "timing", "treat_x_post is not treated * post in the data"))
    post_periods = data.loc[data.get("post", data["treat_x_post"]) == 1, "period"]
    first = int(post_periods.min()) if len(post_periods) else None
    if "post" in data and first is not None and not (data["post"] == (data["period"] >= first)).all():
        out.append(Finding(s.scenario_id, "timing", "post is not 1 exactly from one period onward"))
    stated = {int(k) for pattern in _TIMING for k in pattern.findall(_story(s))}
    if not stated:
        out.append(Finding(s.scenario_id, "timing", f"text does not say when treatment starts (data: period {first})"))
    for k in sorted(stated - {first}):
        out.append(Finding(s.scenario_id, "timing", f"text says treatment starts in period {k}, data: period {first}"))
    return out


def check_event_window(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """Event day 0 is named, stated windows lie in the data, and the text asks for the per-day abnormal return."""
    text, out = _story(s), []
    lo, hi = int(data["event_day"].min()), int(data["event_day"].max())
    if not _EVENT_DAY.search(text):
        out.append(Finding(s.scenario_id, "event_window", "text does not say which day is event day 0"))
    for match in _WINDOW.finditer(text):
        a, b = (int(g.replace("\u2212", "-")) for g in match.groups() if g)
        if a < lo or b > hi or a > b:
            out.append(Finding(s.scenario_id, "event_window", f"text window {a}..{b} outside data days {lo}..{hi}"))
    if not _PER_DAY.search(text):
        out.append(
            Finding(
                s.scenario_id,
                "effect_scale",
                "text does not ask for the average daily abnormal return (the canonical per-day scale)",
            )
        )
    return out


def check_instrument(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """The text says whether ``z`` is binary or continuous, and the data agree."""
    clauses = _Z_CLAUSE.findall(s.data_description) or [_story(s)]
    text = " ".join(clauses)
    said_binary, said_continuous = bool(_BINARY_WORDS.search(text)), bool(_CONTINUOUS_WORDS.search(text))
    actual = "binary" if data["z"].nunique() == 2 else "continuous"
    if said_binary == said_continuous:
        return [Finding(s.scenario_id, "instrument_type", f"text does not state the instrument's type ({actual})")]
    stated = "binary" if said_binary else "continuous"
    if stated != actual:
        return [Finding(s.scenario_id, "instrument_type", f"text calls z {stated}, data: {actual}")]
    return []


def _cutoff_statements(text: str) -> list[tuple[str, float]]:
    found = [(side.lower(), _num(v)) for side, v in _SIDE_BEFORE.findall(text)]
    found += [(side.lower(), _num(v)) for v, side in _SIDE_AFTER.findall(text)]
    found += [(op, _num(v)) for op, v in _SIDE_SYMBOL.findall(text)]
    return found


def check_cutoff(s: Scenario, data: pd.DataFrame) -> list[Finding]:
    """The cutoff's value and treated side are stated and reproduce ``treated`` from ``running_var``."""
    text, out = _story(s), []
    x, treated = data["running_var"].to_numpy(), data["treated"].to_numpy()
    statements = _cutoff_statements(text)
    values = {v for _, v in statements} | {_num(v) for v in _CUTOFF_VALUE.findall(text)}
    if not values:
        out.append(Finding(s.scenario_id, "cutoff", "text does not state the cutoff value"))
    if not statements:
        out.append(Finding(s.scenario_id, "cutoff", "text does not state which side of the cutoff is treated"))
    for side, v in statements:
        above = side in _ABOVE
        strict = side in _STRICT
        rule = (x > v if strict else x >= v) if above else (x < v if strict else x <= v)
        wrong = int(np.sum(rule.astype(int) != treated))
        if wrong:
            out.append(
                Finding(
                    s.scenario_id,
                    "cutoff",
                    f"text says treated when running_var is {side} {v:g}; {wrong} rows disagree",
                )
            )
    for v in values:
        if not x.min() <= v <= x.max():
            out.append(Finding(s.scenario_id, "cutoff", f"stated cutoff {v:g} lies outside running_var's range"))
    return out


def check_sign(s: Scenario) -> list[Finding]:
    """The effect's sign agrees across the DGP, direction, reference conclusion and canonical estimate."""
    sign = "positive" if s.true_effect > 0 else "negative"
    out = []
    if s.direction != sign:
        out.append(Finding(s.scenario_id, "sign", f"direction '{s.direction}' but true effect {s.true_effect:g}"))
    gt = s.ground_truth or {}
    if gt.get("conclusion_direction") not in (None, sign):
        out.append(
            Finding(
                s.scenario_id,
                "sign",
                f"reference conclusion_direction '{gt['conclusion_direction']}' but true effect {s.true_effect:g}",
            )
        )
    detail = str(gt.get("conclusion_detail", ""))
    said = _SIGNED_EFFECT.search(detail)
    up, down = bool(_UP_WORDS.search(detail)), bool(_DOWN_WORDS.search(detail))
    reads = said.group(1).lower() if said else ("positive" if up else "negative") if up != down else None
    if reads not in (None, sign):
        out.append(Finding(s.scenario_id, "sign", f"reference conclusion reads {reads}: {detail!r}"))
    lead = re.match(r"\s*([+\-\u2212]?)\s*\d", str(gt.get("main_effect", "")))
    stated = {"-": "negative", "\u2212": "negative", "+": "positive"}.get(lead.group(1)) if lead else None
    if stated not in (None, sign):  # an unsigned figure ("~30% decline") states no sign
        out.append(Finding(s.scenario_id, "sign", f"reference main_effect {gt['main_effect']!r} is {stated}"))
    if s.canonical is not None and (s.canonical.estimate > 0) != (s.true_effect > 0):
        out.append(Finding(s.scenario_id, "sign", f"canonical {s.canonical.estimate:g}, true effect {s.true_effect:g}"))
    return out


FAMILY_CHECKS = {
    "DID": check_did_timing,
    "EVENT_STUDY": check_event_window,
    "IV": check_instrument,
    "RDD": check_cutoff,
}


def audit_scenario(s: Scenario, data: pd.DataFrame | None = None) -> list[Finding]:
    """All findings for one scenario (reads its CSV unless ``data`` is given)."""
    data = s.load_data() if data is None else data
    return [*check_columns(s, data), *check_sizes(s, data), *FAMILY_CHECKS[s.family](s, data), *check_sign(s)]


def audit_scenarios(scenarios: Iterable[Scenario]) -> list[Finding]:
    return [f for s in scenarios for f in audit_scenario(s)]


def audit_or_raise(scenarios: Iterable[Scenario]) -> None:
    """Fail with every finding listed when any scenario's texts disagree with its data."""
    findings = audit_scenarios(scenarios)
    if findings:
        shown = "; ".join(map(str, findings[:10]))
        more = f" (and {len(findings) - 10} more)" if len(findings) > 10 else ""
        raise SuiteInputError(f"Consistency audit failed with {len(findings)} finding(s): {shown}{more}.")


def accuracy_table(scenarios: Iterable[Scenario]) -> str:
    """Family x difficulty: median |canonical - truth| / |truth|, sign agreement and the number within 25 %."""
    cells: dict[tuple[str, str], list[Scenario]] = {}
    for s in scenarios:
        cells.setdefault((s.family, s.difficulty), []).append(s)
    lines = [f"{'family':<12} {'tier':<7} {'n':>3} {'median rel err':>15} {'sign ok':>8} {'within 25%':>11}"]
    totals = [0, 0, 0]
    for (family, tier), group in cells.items():
        # generated scenarios carry their canonical estimate
        rel = [abs(s.canonical.estimate - s.true_effect) / abs(s.true_effect) for s in group]  # type: ignore[union-attr]
        sign = sum((s.canonical.estimate > 0) == (s.true_effect > 0) for s in group)  # type: ignore[union-attr]
        within = sum(r <= 0.25 for r in rel)
        totals = [totals[0] + len(group), totals[1] + sign, totals[2] + within]
        lines.append(f"{family:<12} {tier:<7} {len(group):>3} {statistics.median(rel):>15.4f} {sign:>8} {within:>11}")
    lines.append(f"{'all':<12} {'':<7} {totals[0]:>3} {'':>15} {totals[1]:>8} {totals[2]:>11}")
    return "\n".join(lines)
