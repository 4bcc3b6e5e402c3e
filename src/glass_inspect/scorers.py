"""Scoring of the glass eval tasks: the per-draw scorer, the modal-answer reducer (Y), and the No-Op verdict.

Two layouts (``solvers``): with one draw per epoch, ``glass_match`` scores the draw and ``modal_answer`` reduces
the epochs; with all draws in one sample (``layout=sample``, the solver's record in the output's metadata
``DRAWS_KEY``), ``glass_match`` scores every choice of the output and takes the modal vote itself, and
``modal_answer`` pools the draws of the sample's epochs (one epoch: the same score). Both go through ``_modal_score``, so Y, the tie rule and
the metadata are the same in both layouts.

Definitions of *Fragility Is Not Reducible to Hardness: Conditional Causal Difficulty for LLMs*
(arXiv:2611.02065):

- §1: Y(J) = exact match of the **modal extracted answer over the 5 draws** (temperature 0.2). The built-in
  ``"mode"`` reducer takes the mode of per-draw *correctness*, a different quantity (answers 4,3,5,4,6 with gold
  4: modal answer 4 -> Y=1, but mode(C,I,I,C,I) = I).
- The break event, break rates, π, the fragility threshold and the identity-twin floor computed from Y are in
  ``metrics.py`` (definitions in ``causal_suite.fragility``).

Reduction rules (``modal_answer``):

- Votes are the per-draw normalised answers, grouped by ``answers.answers_match`` (so ``1/2`` and ``0.5``, or
  equal radicals, are one vote); a draw with no extractable answer is a vote for "no answer".
- Tie rule: among equally frequent answers the one drawn first (lowest epoch) wins. Deterministic given the
  draws, and blind to the gold answer.
- No answer: if "no answer" is modal (in particular when no draw gives an answer) Y = 0: committing to no answer
  is the model's failure. A *machinery* failure (an exception while extracting or normalising, or a gold answer
  that does not normalise) makes the draw unscored, and a sample with any unscored draw is unscored (reason
  ``scoring_failed``): its Y would not be the modal answer over all its draws.
- The reduced score keeps the per-draw answers (draw order), the vote count and whether there was a tie in its
  metadata, and its explanation names the modal answer, the votes, the gold answer and every draw.
- An in-sample score (``layout=sample``) also carries ``correct`` (per-draw exact match, draw order) and
  ``requests`` (model requests the sample made); its ``answers`` / ``correct`` lists are what Frail reads as the
  draws (the epochs layout: one draw per epoch score, ``Score.answer`` and ``Score.value``).

No-Op audit (§3.3, task ``noop_audit``): ``noop_verdict`` reads the adjudicator's ``VERDICT:`` line
(``parse_verdict``): 1.0 = answer-preserving, 0.0 = changes it, unscored when unreadable.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.scorer import Score, Scorer, ScoreReducer, Target, mean, score_reducer, scorer
from inspect_ai.solver import TaskState

from causal_suite.scores import is_unscored
from glass_inspect.answers import answers_match, final_answer, modal_vote, normalize_answer
from glass_inspect.metrics import GLASS_METRICS
from glass_inspect.prompts import CHANGES, PRESERVES

# ---------------------------------------------------------------- per-draw scorer and reducer

DRAWS_KEY = "sample_draws"  # ModelOutput.metadata key where ``solvers.draw_in_sample`` records the in-sample draws


def in_sample_record(state: TaskState) -> dict[str, Any] | None:
    """The solver's record of in-sample draws (None: one draw per epoch)."""
    return ((state.output.metadata if state.output else None) or {}).get(DRAWS_KEY)


def _modal_score(answers: list[str | None], gold: str, suite: str, extra: dict[str, Any] | None = None) -> Score:
    """Y of a prompt from its draws' normalised answers (draw order): the modal vote exact-matched to gold."""
    modal, votes, tie = modal_vote(answers, lambda a, b: answers_match(a, b, suite))
    y = 1.0 if answers_match(modal, gold, suite) else 0.0
    drawn = ", ".join("no answer" if a is None else a for a in answers)
    return Score(
        value=y,
        answer=modal,
        explanation=f"modal answer {modal!r} ({votes}/{len(answers)} draws{', tie' if tie else ''}); "
        f"gold {gold!r}; draws: {drawn}",
        metadata={
            "answers": answers,
            "gold": gold,
            "suite": suite,
            "votes": votes,
            "tie": tie,
            "no_answer": modal is None,
        }
        | (extra or {}),
    )


def _score_in_sample(state: TaskState, gold: str, suite: str, meta: dict[str, Any]) -> Score:
    """All draws of the sample (one choice each): per-draw answers and correctness, and their modal vote."""
    record = in_sample_record(state) or {}
    answers: list[str | None] = []
    failed: list[str] = []
    for k, choice in enumerate(state.output.choices if state.output else [], 1):
        try:
            answers.append(final_answer(choice.message.text, suite))
        except Exception as exc:  # machinery failure, never counted as wrong or right
            failed.append(f"draw {k}: {exc!r}")
    if failed or not answers:
        return Score.unscored(
            reason="scoring_failed",
            explanation="answer extraction failed: " + "; ".join(failed) if failed else "the sample holds no draw",
            metadata=meta,
        )
    correct = [1.0 if answers_match(a, gold, suite) else 0.0 for a in answers]
    return _modal_score(answers, gold, suite, meta | {"correct": correct, "requests": record.get("requests")})


@scorer(metrics=GLASS_METRICS)
def glass_match(suite: str) -> Scorer:
    """Per-draw score: 1.0 if the draw's normalised final answer matches the gold answer, else 0.0.

    ``Score.answer`` is the normalised answer (None when the draw gives none); the metadata carries the gold
    answer, the suite and the epoch for ``modal_answer``. Extraction exceptions give an unscored draw. A sample
    whose draws were made in-sample is scored as a whole (module docstring).
    """

    async def score(state: TaskState, target: Target) -> Score:
        meta: dict[str, Any] = {"suite": suite, "epoch": state.epoch}
        completion = state.output.completion if state.output else ""
        in_sample = in_sample_record(state) is not None
        try:
            gold = normalize_answer(target.text, suite)
        except Exception as exc:  # machinery failure, never counted as wrong or right
            return Score.unscored(
                reason="scoring_failed", explanation=f"gold answer normalisation failed: {exc!r}", metadata=meta
            )
        if in_sample and gold is not None:
            return _score_in_sample(state, gold, suite, meta)
        try:
            answer = None if in_sample else final_answer(completion, suite)
        except Exception as exc:  # machinery failure, never counted as wrong or right
            return Score.unscored(
                reason="scoring_failed", explanation=f"answer extraction failed: {exc!r}", metadata=meta
            )
        if gold is None:
            return Score.unscored(
                reason="scoring_failed", explanation=f"gold answer {target.text!r} does not normalise", metadata=meta
            )
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
    """Y = exact match of the modal normalised answer over all draws of the prompt (its epochs, or the draws
    made inside the sample) with the gold answer (rules: module doc)."""

    def reduce(scores: list[Score]) -> Score:
        ordered = sorted(scores, key=lambda s: (s.metadata or {}).get("epoch", 0))
        answers: list[str | None] = []
        for s in ordered:
            drawn = (s.metadata or {}).get("answers")
            answers.extend(drawn if isinstance(drawn, list) else [s.answer])
        failed = [(s.metadata or {}).get("epoch") for s in ordered if is_unscored(s.value)]
        first = (ordered[0].metadata or {}) if ordered else {}
        if failed or not ordered or "gold" not in first or "suite" not in first:
            return Score.unscored(
                reason="scoring_failed",
                explanation=f"draws {failed} could not be scored" if failed else "draws lack gold/suite metadata",
                metadata={"answers": answers, "failed_epochs": failed},
            )
        extra: dict[str, Any] = {}
        if all(isinstance((s.metadata or {}).get("correct"), list) for s in ordered):  # in-sample draws
            extra = {
                "correct": [c for s in ordered for c in (s.metadata or {})["correct"]],
                "requests": sum((s.metadata or {}).get("requests") or 0 for s in ordered),
            }
        return _modal_score(answers, first["gold"], first["suite"], extra)

    return reduce


# ---------------------------------------------------------------- No-Op audit verdicts (§3.3)

_VERDICT = re.compile(r"^\s*\**\s*VERDICT\s*\**\s*:\s*\**\s*([A-Za-z]+)\s*\**\s*\.?\s*$", re.I | re.M)


def parse_verdict(reply: str) -> str | None:
    """Strict parse: exactly one ``VERDICT: PRESERVES|CHANGES`` line (case-insensitive), else None."""
    found = _VERDICT.findall(reply or "")
    if len(found) != 1 or found[0].lower() not in (PRESERVES, CHANGES):
        return None
    return found[0].lower()


@scorer(metrics=[mean()])
def noop_verdict() -> Scorer:
    """1.0 when the adjudicator judged the twin answer-preserving (kept), 0.0 for "changes" (dropped);
    unscored (``invalid_response_format``) when no reply could be parsed (dropped as well)."""

    async def score(state: TaskState, target: Target) -> Score:
        verdict = parse_verdict(state.output.completion)
        if verdict is None:
            return Score.unscored(reason="invalid_response_format", explanation=state.output.completion)
        return Score(value=1.0 if verdict == PRESERVES else 0.0, answer=verdict)

    return score
