"""The Exp A scorer and its metric (paper §3-4): a research plan scored by keywords, no LLM.

The design named in the identification section (hits there weigh 3, hits in the first 4000 characters 1, earlier
first mention breaks ties) is compared with the method label (L3), and the sign words of the expected-results
section with the direction label (L4). A key whose label is missing is NaN (unscoreable); a sample with neither
label is unscored. ``agreement`` is declared on the scorer.
"""

from __future__ import annotations

import math
import re

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

METHOD_KEYWORDS = {
    "DID": (
        "difference-in-difference",
        "differences-in-difference",
        "difference in difference",
        "diff-in-diff",
        "two-way fixed effect",
        "twfe",
        "staggered adoption",
        "parallel trends",
    ),
    "EVENT_STUDY": (
        "event study",
        "event-study",
        "abnormal return",
        "cumulative abnormal",
        "announcement return",
        "event window",
        "market model",
    ),
    "IV": (
        "instrumental variable",
        "two-stage least squares",
        "2sls",
        "exclusion restriction",
        "first stage",
        "instrument for",
    ),
    "RDD": (
        "regression discontinuity",
        "running variable",
        "discontinuity design",
        "rdrobust",
        "cutoff",
        "threshold design",
        "bandwidth",
    ),
}
POSITIVE_WORDS = ("positive", "increase", "higher", "raise", "improve", "gain", "larger", "boost", "upward")
NEGATIVE_WORDS = ("negative", "decrease", "lower", "reduce", "decline", "fall", "drop", "worse", "downward")


def _section(text: str, start: str, stop: str, width: int) -> str:
    match = re.search(start, text)
    if not match:
        return ""
    body = text[match.end() : match.end() + width]
    end = re.search(stop, body)
    return body[: end.start()] if end else body


def detect_method(response: str) -> str | None:
    """The design family a research plan proposes, or None if it names none of the four."""
    text = response.lower()
    section = _section(text, r"identification strategy|##\s*1\b|^1\.", r"##\s*2\b|\n2\.\s", 1500)
    head = text[:4000]
    best, best_score = None, 0.0
    for family, words in METHOD_KEYWORDS.items():
        first = min((head.find(w) for w in words if w in head), default=-1)
        score: float = sum(3 * section.count(w) + head.count(w) for w in words)
        score += 0 if first < 0 else max(0.0, 1 - first / 4000)
        if score > best_score:
            best, best_score = family, score
    return best


def detect_direction(response: str) -> str | None:
    """'positive' / 'negative' from the expected-results section (else the last 800 characters), None if unclear."""
    text = response.lower()
    section = _section(text, r"expected results|##\s*6\b|\n6\.\s", r"##\s*7\b|\n7\.\s", 1200) or text[-800:]
    pos = sum(section.count(w) for w in POSITIVE_WORDS)
    neg = sum(section.count(w) for w in NEGATIVE_WORDS)
    return None if pos == neg else "positive" if pos > neg else "negative"


@metric
def agreement() -> Metric:
    """L3 and L4 agreement rates over the samples whose label exists, and how many that is."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out = {}
        for key in ("L3", "L4"):
            vals = [
                s.score.value[key]
                for s in scores
                if isinstance(s.score.value, dict) and not math.isnan(s.score.value[key])
            ]
            out[key] = float(np.mean(vals)) if vals else float("nan")
            out[f"{key}_n"] = float(len(vals))
        return out

    return compute


@scorer(metrics=[agreement()])
def exp_a_scorer() -> Scorer:
    """L3 = detected family equals the label; L4 = detected direction equals the label (NaN where unlabelled)."""

    async def score(state: TaskState, target: Target) -> Score:
        method, direction = state.metadata.get("method"), state.metadata.get("direction")
        response = state.output.completion or ""
        found_method, found_direction = detect_method(response), detect_direction(response)
        meta = {"detected_method": found_method, "detected_direction": found_direction}
        if method is None and direction is None:
            return Score.unscored(reason="no_label", explanation="the context has no consensus labels", metadata=meta)
        value = {
            "L3": float("nan") if method is None else float(found_method == method),
            "L4": float("nan") if direction is None else float(found_direction == direction),
        }
        return Score(
            value=value,
            answer=f"{found_method}/{found_direction}",
            metadata=meta,
            explanation=f"detected {found_method}, {found_direction}; labels {method}, {direction}",
        )

    return score
