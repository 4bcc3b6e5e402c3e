"""Deterministic extraction for Exp B (paper §4, App. C.2-C.3): the R block (L2a) and the printed estimate (L2b+).

``extract_r_code`` takes the first fenced block tagged ``r``/``R`` (``{r}`` and trailing spaces allowed); an untagged
block counts only if it looks like R (an assignment arrow or a call to ``library``/``read.csv``/``lm``...). Blocks
tagged with another language never count.

``extract_estimate`` reads stdout family-aware, in four tiers (the first tier with a hit wins, the first hit within
a tier wins):

1. labelled lines: a family label (``Estimate:``, ``ATT =``, ``DID estimate:``, ``CAR[-1,+1]:``, ``2SLS estimate:``,
   ``RD estimate:``...) followed by ``:`` or ``=`` and a number; lines about standard errors, p-values, first
   stages, naive OLS, placebos or pre-trends are skipped; a trailing ``%`` divides by 100; a ``[a,b]`` window in the
   label is kept for the event-study window rule;
2. coefficient-table rows (``lm``/``feols``/``ivreg``/``iv_robust``/``coeftest``/``etable`` printouts) whose term
   is the family's treatment term, and rdrobust's ``Conventional`` row;
3. named vectors (``print(coef(m))``: a line of names above a line of numbers);
4. event studies only: the mean printed by ``t.test`` ("mean of x" above a number).

It returns ``None`` when no tier matches (the scorer then asks the ``extractor`` role).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

NUM = r"[-+\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUM_RE = re.compile(rf"(?<![\w.])({NUM})(%?)")

_FENCE_RE = re.compile(r"^[ \t]*```[ \t]*(\{?[A-Za-z0-9_+-]*\}?)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)
_R_HINT_RE = re.compile(r"<-|\blibrary\(|\brequire\(|\bread\.csv\(|\bfread\(|\blm\(|\bfeols\(|\bivreg\(")


@dataclass(frozen=True)
class CodeBlocks:
    """What the response's fenced blocks hold: the R code taken (or None) and counts for the log."""

    code: str | None
    n_r_blocks: int
    n_other_blocks: int


def extract_r_code(response: str) -> CodeBlocks:
    """The R code of a response (L2a): first ``r``-tagged fenced block, else an untagged block that looks like R."""
    tagged, untagged, other = [], [], 0
    for match in _FENCE_RE.finditer(response):
        tag, body = match.group(1).strip("{}").lower(), match.group(2).strip()
        if tag == "r":
            tagged.append(body)
        elif tag == "" and _R_HINT_RE.search(body):
            untagged.append(body)
        else:
            other += 1
    blocks = tagged or untagged
    return CodeBlocks(code=blocks[0] if blocks and blocks[0] else None, n_r_blocks=len(blocks), n_other_blocks=other)


@dataclass(frozen=True)
class Extracted:
    """An estimate read from stdout: value, which tier/line gave it, and an event-study window if labelled."""

    value: float
    source: str
    line: str
    window: tuple[int, int] | None = None


_LABELS = {
    "common": r"\bestimate\b|treatment effect|causal effect|effect|\batt\b|\bate\b|\blate\b",
    "DID": r"\bdid\b|diff(?:erence)?s?[- ]in[- ]diff|twfe|interaction",
    "EVENT_STUDY": r"\bcaa?r\b|cumulative abnormal|abnormal return|\baar\b|\bar\b|post[- _]?event",
    "IV": r"2sls|\biv\b|second stage|instrumented",
    "RDD": r"\brdd?\b|discontinuity|jump|cutoff effect",
}
_SKIP_LABEL = re.compile(
    r"std|standard error|\bse\b|s\.e\.|p[- ]?val|t[- ]?stat|t value|z value|f[- ]?stat|first[- ]stage|reduced|"
    r"naive|\bols\b|placebo|pre[- ]?trend|pre[- ]?event|pre[- ]?period|bandwidth|\bbw\b|observations|\bn\b|"
    r"confidence|\bci\b|interval|lower|upper|mean of|sd\b|variance|r-squared|r2|intercept|slope|beta|alpha|"
    r"true|expected|prior|canonical|robust\s*[:=]|bias|number|count|how many",
    re.I,
)
_WINDOW_RE = re.compile(rf"[\[(]\s*({NUM})\s*[,;:]\s*({NUM})\s*[\])]")

_TERMS = {
    "DID": re.compile(r"^`?(?:\S*treat\S*post\S*|\S*post\S*treat\S*|did|did_?term|d_?i_?d|treat_?x_?post)`?$", re.I),
    "EVENT_STUDY": re.compile(r"^`?(?:post\w*|\w*post_?event\w*|event_?(?:dummy|window|post|period)\w*|"
                              r"I\(event_day\s*>=?\s*0\)\w*)`?$", re.I),
    "IV": re.compile(r"^`?(?:fit_x|x_?hat|x\(fit\)|x_?fitted|fitted_?x|x)`?$", re.I),
    "RDD": re.compile(r"^`?(?:treated|treat|d|above\w*|treatment|treatedTRUE|treated1|conventional)`?$", re.I),
}
_EXCLUDE_TERM = re.compile(r"lead|lag|rel|period_?\d|day_?-?\d|:.*:|mkt|market", re.I)


def _number(text: str) -> tuple[float, bool] | None:
    m = _NUM_RE.search(text)
    if not m:
        return None
    value = float(m.group(1).replace("\u2212", "-"))
    return (value / 100.0 if m.group(2) else value), bool(m.group(2))


def _labelled(lines: list[str], family: str) -> Extracted | None:
    label_re = re.compile(f"{_LABELS['common']}|{_LABELS[family]}", re.I)
    for line in lines:
        sep = re.search(r"[:=]", line)
        if not sep:
            continue
        label, rest = line[: sep.start()], line[sep.end():]
        if not label_re.search(label) or _SKIP_LABEL.search(label):
            continue
        if rest.lstrip().startswith("("):  # "DID = (a - b) - (c - d) = 0.15": the result after the last '='
            if "=" not in rest:
                continue  # an unevaluated expression, not a result
            rest = rest.rsplit("=", 1)[-1]
        found = _number(rest)
        if found is None:
            continue
        window = _WINDOW_RE.search(label)
        span = (int(float(window.group(1).replace("\u2212", "-"))),
                int(float(window.group(2).replace("\u2212", "-")))) if window else None
        return Extracted(found[0], "labelled", line.strip(), span)
    return None


def _table_row(lines: list[str], family: str) -> Extracted | None:
    term_re = _TERMS[family]
    for line in lines:
        tokens = line.split()
        if len(tokens) < 3 or not term_re.match(tokens[0]) or _EXCLUDE_TERM.search(tokens[0]):
            continue
        numbers = [t for t in tokens[1:4] if re.fullmatch(rf"{NUM}\**", t)]
        if len(numbers) >= 2:
            return Extracted(float(numbers[0].rstrip("*").replace("\u2212", "-")), "table", line.strip())
    return None


def _named_vector(lines: list[str], family: str) -> Extracted | None:
    term_re = _TERMS[family]
    for above, below in zip(lines, lines[1:]):
        names, values = above.split(), below.split()
        if not names or len(names) != len(values) or not all(re.fullmatch(NUM, v) for v in values):
            continue
        for name, value in zip(names, values):
            if term_re.match(name) and not _EXCLUDE_TERM.search(name):
                line = f"{above.strip()} / {below.strip()}"
                return Extracted(float(value.replace("\u2212", "-")), "named_vector", line)
    return None


def _t_test_mean(lines: list[str], family: str) -> Extracted | None:
    """Event studies: the mean abnormal return that R's ``t.test`` prints under 'sample estimates: mean of x'."""
    if family != "EVENT_STUDY":
        return None
    for above, below in zip(lines, lines[1:]):
        if re.fullmatch(r"\s*mean of \S+\s*", above) and re.fullmatch(rf"\s*{NUM}\s*", below):
            line = f"{above.strip()} / {below.strip()}"
            return Extracted(float(below.strip().replace("\u2212", "-")), "t_test", line)
    return None


def extract_estimate(stdout: str, family: str) -> Extracted | None:
    """The treatment-effect estimate printed in ``stdout`` for a ``family`` design, or None (see module doc)."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    for tier in (_labelled, _table_row, _named_vector, _t_test_mean):
        found = tier(lines, family)
        if found is not None:
            return found
    return None


def has_numbers(stdout: str) -> bool:
    """Whether stdout prints any number at all (if not, there is nothing for a judge to find)."""
    return _NUM_RE.search(stdout) is not None


def reply_json_object(reply: str) -> dict | None:
    """The JSON object in a model reply (from its first ``{`` to its last ``}``, so code fences and prose around it
    are ignored), or None when there is no such object."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        doc = json.loads(reply[start: end + 1])
    except json.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) else None


class ExtractorReplyError(ValueError):
    """The extractor's reply is not a JSON effect (a number or null)."""


def parse_extractor_reply(reply: str) -> tuple[float | None, str]:
    """``(effect or None, rationale)`` from the extractor's JSON reply; raise ExtractorReplyError otherwise."""
    doc = reply_json_object(reply)
    if doc is None or "effect" not in doc:
        raise ExtractorReplyError(f"extractor reply is not a JSON object with 'effect': {reply[:200]!r}")
    effect, rationale = doc["effect"], str(doc.get("rationale", ""))
    if effect is None:
        return None, rationale
    if isinstance(effect, bool) or not isinstance(effect, (int, float, str)):
        raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
    if isinstance(effect, str):
        if not re.fullmatch(rf"\s*{NUM}\s*", effect):
            raise ExtractorReplyError(f"extractor 'effect' is not a number: {effect!r}")
        effect = float(effect.strip().replace("\u2212", "-"))
    return float(effect), rationale
