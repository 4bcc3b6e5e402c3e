"""Scoring of the glass eval tasks: per-draw answers, the modal-answer reducer (Y) and the break-event metrics.

Paper definitions (``../shared/seeds/conditional_causal_difficulty_docs.txt``):

- §1: Y(J) = exact match of the **modal extracted answer over the 5 draws** (temperature 0.2). The built-in
  ``"mode"`` reducer takes the mode of per-draw *correctness*, a different quantity (answers 4,3,5,4,6 with gold
  4: modal answer 4 -> Y=1, but mode(C,I,I,C,I) = I).
- §1: break event B(J,T) = 1{Y(J)=1 and Y(T(J))=0}; break rate P(B=1 | Y(J)=1); pi(J) = E_T[B | Y(J)=1].
- §7 step 9: a base is fragile when pi > 0.05. §7 step 8: the identity-twin floor is the break rate of identity
  twins (re-sampling noise alone).

Reduction rules (``modal_answer``):

- Votes are the per-draw normalised answers, grouped by ``answers.answers_match`` (so ``1/2`` and ``0.5``, or
  equal radicals, are one vote); a draw with no extractable answer is a vote for "no answer".
- Tie rule: among equally frequent answers the one drawn first (lowest epoch) wins. Deterministic given the
  draws, and blind to the gold answer.
- No answer: if "no answer" is modal (in particular when no draw gives an answer) Y = 0: committing to no answer
  is the model's failure. A *machinery* failure (an exception while extracting or normalising, or a gold answer
  that does not normalise) makes the draw unscored, and a sample with any unscored draw is unscored (reason
  ``scoring_failed``): its Y would not be the modal answer over all its draws.
- The reduced score keeps the per-draw answers (epoch order), the vote count and whether there was a tie in its
  metadata.

Metrics use the observation unit of the dose files: one (base, twin, dose) row per manifest pair, so a twin shared
by three dose manifests counts three times overall, once in each dose (the pooled five-dose corpus of §3.2).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    Value,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import TaskState

from glass_inspect.answers import answers_match, final_answer, normalize_answer
from glass_inspect.corpus import IDENTITY

FRAGILE_PI = 0.05


# ---------------------------------------------------------------- modal vote


def _is_unscored(score: Score) -> bool:
    return isinstance(score.value, float) and math.isnan(score.value)


def answer_groups(answers: list[str | None], same: Callable[[str, str], bool]) -> list[list[int]]:
    """Indices of ``answers`` grouped by ``same`` against each group's first member, groups in order of first
    appearance; ``None`` (no answer) is its own group."""
    groups: list[list[int]] = []
    for i, a in enumerate(answers):
        for group in groups:
            rep = answers[group[0]]
            if (a is None and rep is None) or (a is not None and rep is not None and same(a, rep)):
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def modal_vote(answers: list[str | None], same: Callable[[str, str], bool]) -> tuple[str | None, int, bool]:
    """(modal answer, its votes, whether another answer had as many) over epoch-ordered answers grouped by
    ``answer_groups``. Ties go to the group whose first member came first."""
    groups = answer_groups(answers, same)
    if not groups:
        return None, 0, False
    best = max(groups, key=len)  # max keeps the first of equals: the earliest-drawn group
    tie = sum(len(g) == len(best) for g in groups) > 1
    return answers[best[0]], len(best), tie


# ---------------------------------------------------------------- break-event metrics


@dataclass(frozen=True)
class PairOutcome:
    """One manifest pair with both Y values; ``broke`` is B(J, T)."""

    base_id: str
    twin_id: str
    operator: str
    dose: int
    y_base: float
    y_twin: float

    @property
    def broke(self) -> bool:
        return self.y_base == 1.0 and self.y_twin == 0.0


def _records(scores: list[SampleScore]) -> list[tuple[dict[str, Any], float]]:
    out = []
    for s in scores:
        if _is_unscored(s.score):
            continue
        meta = s.sample_metadata or {}
        y = float(s.score.as_float())
        out.extend((m, y) for m in [meta, *meta.get("same_text", [])])
    return out


def base_outcomes(scores: list[SampleScore]) -> dict[str, float]:
    """Y of every scored base, by base id."""
    return {m["text_id"]: y for m, y in _records(scores) if m.get("role") == "base"}


def pair_outcomes(scores: list[SampleScore]) -> list[PairOutcome]:
    """Every (base, twin, dose) pair whose base and twin were both scored."""
    records = _records(scores)
    y_base = {m["text_id"]: y for m, y in records if m.get("role") == "base"}
    return [
        PairOutcome(m["base_id"], m["text_id"], m["operator"], int(dose), y_base[m["base_id"]], y)
        for m, y in records
        if m.get("role") == "twin" and m.get("base_id") in y_base
        for dose in m.get("doses", [])
    ]


def _break_rate(pairs: list[PairOutcome]) -> float:
    solvable = [p for p in pairs if p.y_base == 1.0]
    return sum(p.broke for p in solvable) / len(solvable) if solvable else float("nan")


def _perturbing(scores: list[SampleScore]) -> list[PairOutcome]:
    return [p for p in pair_outcomes(scores) if p.operator != IDENTITY]


def pi_by_base(scores: list[SampleScore]) -> dict[str, float]:
    """pi(J) = mean B over the (non-identity) pairs of each solved base J."""
    pairs: dict[str, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        if p.y_base == 1.0:
            pairs[p.base_id].append(p)
    return {b: sum(p.broke for p in ps) / len(ps) for b, ps in pairs.items()}


@metric
def base_accuracy() -> Metric:
    """Mean Y over the base problems."""

    def compute(scores: list[SampleScore]) -> Value:
        ys = list(base_outcomes(scores).values())
        return sum(ys) / len(ys) if ys else float("nan")

    return compute


@metric
def break_rate() -> Metric:
    """P(B=1 | Y(base)=1) over all non-identity pairs."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rate(_perturbing(scores))

    return compute


def _break_rates_by(scores: list[SampleScore], key: Callable[[PairOutcome], Any], label: str) -> dict[str, float]:
    """The break rate of each group of perturbing pairs, keyed ``label.format(group)`` in group order."""
    by: dict[Any, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        by[key(p)].append(p)
    return {label.format(group): _break_rate(ps) for group, ps in sorted(by.items())}


@metric
def family_break_rate() -> Metric:
    """P(B=1 | Y(base)=1) per operator family (keys: ``break_rate_<family>``)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rates_by(scores, lambda p: p.operator, "break_rate_{}")

    return compute


@metric
def dose_break_rate() -> Metric:
    """P(B=1 | Y(base)=1) per dose manifest (keys: ``break_rate_m1``, ``break_rate_m3``, ...)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rates_by(scores, lambda p: p.dose, "break_rate_m{}")

    return compute


@metric
def mean_pi() -> Metric:
    """Mean pi(J) over the solved bases that have twins."""

    def compute(scores: list[SampleScore]) -> Value:
        pis = list(pi_by_base(scores).values())
        return sum(pis) / len(pis) if pis else float("nan")

    return compute


@metric
def fragile_fraction() -> Metric:
    """Share of solved bases with pi > 0.05 (§7 step 9)."""

    def compute(scores: list[SampleScore]) -> Value:
        pis = list(pi_by_base(scores).values())
        return sum(pi > FRAGILE_PI for pi in pis) / len(pis) if pis else float("nan")

    return compute


@metric
def identity_floor() -> Metric:
    """Break rate of identity twins: the re-sampling floor of B (§7 step 8)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rate([p for p in pair_outcomes(scores) if p.operator == IDENTITY])

    return compute


GLASS_METRICS = [
    base_accuracy(),
    break_rate(),
    family_break_rate(),
    dose_break_rate(),
    mean_pi(),
    fragile_fraction(),
    identity_floor(),
]


# ---------------------------------------------------------------- per-draw scorer and reducer


@scorer(metrics=GLASS_METRICS)
def glass_match(suite: str) -> Scorer:
    """Per-draw score: 1.0 if the draw's normalised final answer matches the gold answer, else 0.0.

    ``Score.answer`` is the normalised answer (None when the draw gives none); the metadata carries the gold
    answer, the suite and the epoch for ``modal_answer``. Extraction exceptions give an unscored draw.
    """

    async def score(state: TaskState, target: Target) -> Score:
        meta: dict[str, Any] = {"suite": suite, "epoch": state.epoch}
        completion = state.output.completion if state.output else ""
        try:
            gold = normalize_answer(target.text, suite)
            answer = final_answer(completion, suite)
        except Exception as exc:  # machinery failure, never counted as wrong or right
            return Score.unscored(reason="scoring_failed", explanation=f"answer extraction failed: {exc!r}",
                                  metadata=meta)
        if gold is None:
            return Score.unscored(reason="scoring_failed", explanation=f"gold answer {target.text!r} does not "
                                  "normalise", metadata=meta)
        matched = answers_match(answer, gold, suite)
        return Score(
            value=1.0 if matched else 0.0,
            answer=answer,
            explanation="no final answer found" if answer is None else None,
            metadata=meta | {"gold": gold},
        )

    return score


@score_reducer(name="modal_answer")
def modal_answer() -> ScoreReducer:
    """Y = exact match of the modal normalised answer across epochs with the gold answer (rules: module doc)."""

    def reduce(scores: list[Score]) -> Score:
        ordered = sorted(scores, key=lambda s: (s.metadata or {}).get("epoch", 0))
        answers = [s.answer for s in ordered]
        failed = [(s.metadata or {}).get("epoch") for s in ordered if _is_unscored(s)]
        first = (ordered[0].metadata or {}) if ordered else {}
        if failed or not ordered or "gold" not in first or "suite" not in first:
            return Score.unscored(
                reason="scoring_failed",
                explanation=f"draws {failed} could not be scored" if failed else "draws lack gold/suite metadata",
                metadata={"answers": answers, "failed_epochs": failed},
            )
        suite, gold = first["suite"], first["gold"]
        modal, votes, tie = modal_vote(answers, lambda a, b: answers_match(a, b, suite))
        y = 1.0 if answers_match(modal, gold, suite) else 0.0
        return Score(
            value=y,
            answer=modal,
            explanation=f"modal answer {modal!r} ({votes}/{len(ordered)} draws{', tie' if tie else ''}); "
            f"gold {gold!r}",
            metadata={"answers": answers, "gold": gold, "suite": suite, "votes": votes, "tie": tie,
                      "no_answer": modal is None},
        )

    return reduce
