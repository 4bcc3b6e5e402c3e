"""The per-draw scorer, the modal-answer reducer (Y) and the break-event metrics on hand-made scores."""

from __future__ import annotations

import math

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target, mode_score
from inspect_ai.solver import TaskState

import glass_inspect.scorers as scorers
from glass_inspect.answers import modal_vote
from glass_inspect.metrics import (
    base_accuracy,
    break_rate,
    dose_break_rate,
    family_break_rate,
    fragile_fraction,
    identity_floor,
    mean_pi,
    pi_by_base,
)
from glass_inspect.scorers import glass_match, modal_answer


def draws(answers: list[str | None], gold: str = "4", suite: str = "gsm", order: list[int] | None = None):
    """Per-draw scores as ``glass_match`` makes them (epoch-numbered), optionally in a shuffled order."""
    scores = [
        Score(value=1.0 if a == gold else 0.0, answer=a, metadata={"suite": suite, "epoch": e, "gold": gold})
        for e, a in enumerate(answers, 1)
    ]
    return [scores[i] for i in order] if order else scores


# ---------------------------------------------------------------- the reducer


def test_modal_answer_is_not_the_mode_of_correctness():
    scores = draws(["4", "3", "5", "4", "6"])
    assert modal_answer()(scores).value == 1.0  # modal answer 4 is the gold answer
    assert mode_score()(scores).value == 0.0  # mode(C, I, I, C, I) = I


def test_reducer_keeps_answers_and_votes_in_epoch_order():
    y = modal_answer()(draws(["4", "3", "4", "4", "6"], order=[4, 2, 0, 3, 1]))
    assert (y.value, y.answer) == (1.0, "4")
    assert y.metadata["answers"] == ["4", "3", "4", "4", "6"]
    assert y.metadata["votes"] == 3 and not y.metadata["tie"]


@pytest.mark.parametrize(
    ("answers", "modal", "y", "tie"),
    [
        (["3", "4", "4", "3", "9"], "3", 0.0, True),  # tie 3/4: 3 was drawn first
        (["4", "3", "3", "4", "9"], "4", 1.0, True),  # the same multiset drawn in another order
        (["1", "2", "3", "4", "5"], "1", 0.0, True),  # all different: the first draw
        (["4", "2", "3", "1", "5"], "4", 1.0, True),
        ([None, None, "4", "4", "7"], None, 0.0, True),  # "no answer" is a vote, and drew first
        (["4", None, None, "4", "7"], "4", 1.0, True),
        ([None, None, None, "4", "4"], None, 0.0, False),  # no answer is modal: Y = 0
        ([None] * 5, None, 0.0, False),  # no answer in any draw: the model's failure, Y = 0
    ],
)
def test_tie_rule_and_no_answer(answers, modal, y, tie):
    reduced = modal_answer()(draws(answers, order=[4, 3, 2, 1, 0]))
    assert (reduced.answer, reduced.value, reduced.metadata["tie"]) == (modal, y, tie)
    assert reduced.metadata["no_answer"] is (modal is None)


def test_equivalent_math_answers_are_one_vote():
    # "(x + 1)**2" and "x**2 + 2*x + 1" are different canonical strings but the same answer
    reduced = modal_answer()(
        draws(["x**2 + 2*x + 1", "3", "(x + 1)**2", "3", "x**2 + 2*x + 1"], gold="(x + 1)**2", suite="math")
    )
    assert reduced.value == 1.0 and reduced.metadata["votes"] == 3 and not reduced.metadata["tie"]


def test_a_failed_draw_makes_the_sample_unscored():
    scores = draws(["4", "4", "4", "4", "4"])
    scores[2] = Score.unscored(reason="scoring_failed", metadata={"suite": "gsm", "epoch": 3})
    reduced = modal_answer()(scores)
    assert math.isnan(reduced.value) and reduced.reason == "scoring_failed"
    assert reduced.metadata["failed_epochs"] == [3]


def test_reducer_without_glass_metadata_is_unscored_not_wrong():
    reduced = modal_answer()([Score(value=1.0, answer="4")])
    assert math.isnan(reduced.value) and "metadata" in reduced.explanation
    assert math.isnan(modal_answer()([]).value)


def test_modal_vote_directly():
    same = str.__eq__
    assert modal_vote([], same) == (None, 0, False)
    assert modal_vote(["a", "b", "b"], same) == ("b", 2, False)
    assert modal_vote(["a", None, "b", None], same) == (None, 2, False)


# ---------------------------------------------------------------- the per-draw scorer


def state(completion: str, suite: str = "gsm") -> TaskState:
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id="g1",
        epoch=2,
        input="q",
        messages=[],
        output=ModelOutput.from_content(model="mockllm/model", content=completion),
        metadata={"suite": suite},
    )


async def test_glass_match_scores_one_draw():
    right = await glass_match("gsm")(state("3 + 4 = 7\nANSWER: 7"), Target("7"))
    assert (right.value, right.answer, right.metadata) == (1.0, "7", {"suite": "gsm", "epoch": 2, "gold": "7"})
    wrong = await glass_match("gsm")(state("ANSWER: 1,070"), Target("7"))
    assert (wrong.value, wrong.answer) == (0.0, "1070")
    silent = await glass_match("gsm")(state("I cannot tell."), Target("7"))
    assert (silent.value, silent.answer, silent.explanation) == (0.0, None, "no final answer found")
    boxed = await glass_match("math")(state("so \\boxed{\\dfrac{1}{2}}", "math"), Target("0.5"))
    assert (boxed.value, boxed.answer) == (1.0, "1/2")


async def test_glass_match_machinery_failures_are_unscored(monkeypatch):
    bad_gold = await glass_match("gsm")(state("ANSWER: 7"), Target("seven"))
    assert math.isnan(bad_gold.value) and bad_gold.reason == "scoring_failed"

    def broken(completion, suite):
        raise RecursionError("parser blew up")

    monkeypatch.setattr(scorers, "final_answer", broken)
    crashed = await glass_match("gsm")(state("ANSWER: 7"), Target("7"))
    assert math.isnan(crashed.value) and "parser blew up" in crashed.explanation


# ---------------------------------------------------------------- metrics


def sample(text_id: str, base_id: str, operator: str, doses: list[int], y: float, **extra) -> SampleScore:
    role = "base" if operator == "base" else "twin"
    meta = {
        "text_id": text_id,
        "base_id": base_id,
        "role": role,
        "operator": operator,
        "doses": doses,
        "same_text": [],
        **extra,
    }
    return SampleScore(score=Score(value=y), sample_id=text_id, sample_metadata=meta)


SCORES = [
    # base A solved: 4 perturbing pairs (er m1, er m3, so m3, ic m3) with one break (so) -> pi = 1/4
    sample("A", "A", "base", [1, 3], 1.0),
    sample("A-er", "A", "entity_rename", [1, 3], 1.0),
    sample("A-so", "A", "sentence_reorder", [3], 0.0),
    sample("A-ic", "A", "irrelevant_context", [3], 1.0),
    sample("A-id", "A", "identity", [1, 3], 1.0),
    # base B solved: 2 pairs, no break -> pi = 0; its identity twin broke at both doses
    sample("B", "B", "base", [1, 3], 1.0),
    sample("B-so", "B", "sentence_reorder", [1, 3], 1.0),
    sample("B-id", "B", "identity", [1, 3], 0.0),
    # base C unsolved: its twins never count
    sample("C", "C", "base", [1], 0.0),
    sample("C-er", "C", "entity_rename", [1], 0.0),
    sample("C-id", "C", "identity", [1], 0.0),
]


UNCERTAINTY = ("_se", "_low", "_high", "_n", "_clusters")


def rates(values: dict[str, float]) -> dict[str, float]:
    """The rates of a metric's entries, without the uncertainty beside each."""
    return {k: v for k, v in values.items() if not k.endswith(UNCERTAINTY)}


def test_metrics_by_hand():
    assert rates(base_accuracy()(SCORES)) == pytest.approx({"base_accuracy": 2 / 3})
    assert rates(break_rate()(SCORES)) == pytest.approx({"break_rate": 1 / 6})
    assert rates(family_break_rate()(SCORES)) == pytest.approx(
        {"break_rate_entity_rename": 0.0, "break_rate_irrelevant_context": 0.0, "break_rate_sentence_reorder": 1 / 3}
    )
    assert rates(dose_break_rate()(SCORES)) == pytest.approx({"break_rate_m1": 0.0, "break_rate_m3": 1 / 4})
    assert pi_by_base(SCORES) == pytest.approx({"A": 0.25, "B": 0.0})
    assert rates(mean_pi()(SCORES)) == pytest.approx({"mean_pi": 0.125})
    assert rates(fragile_fraction()(SCORES)) == pytest.approx({"fragile_fraction": 0.5})
    assert rates(identity_floor()(SCORES)) == pytest.approx({"identity_floor": 2 / 4})


def test_every_rate_carries_its_count_clusters_and_interval():
    overall = break_rate()(SCORES)
    # 6 pairs of solved bases (A: 4, B: 2) in 2 clusters; C's pair is censored, not counted
    assert (overall["break_rate_n"], overall["break_rate_clusters"]) == (6, 2)
    # by hand: R = 1/6, influences (1 - 4R)/6 and (0 - 2R)/6, CR1 factor G/(G-1) = 2
    z = [(1 - 4 / 6) / 6, (0 - 2 / 6) / 6]
    assert overall["break_rate_se"] == pytest.approx(math.sqrt(2 * sum(v * v for v in z)))
    assert 0 <= overall["break_rate_low"] < 1 / 6 < overall["break_rate_high"] <= 1
    family = family_break_rate()(SCORES)
    assert (family["break_rate_sentence_reorder_n"], family["break_rate_sentence_reorder_clusters"]) == (3, 2)
    # entity_rename never broke: its interval still has a width (Wilson at 0)
    assert family["break_rate_entity_rename"] == 0 and family["break_rate_entity_rename_high"] > 0
    assert base_accuracy()(SCORES)["base_accuracy_n"] == 3 and mean_pi()(SCORES)["mean_pi_clusters"] == 2


def test_break_rate_se_matches_a_brute_force_bootstrap_over_bases():
    """A synthetic glass log of 40 bases with 2-6 twins each, base-level fragility; the SE in the metric against
    resampling whole bases (a base with all its twins) 3,000 times."""
    import numpy as np

    rng = np.random.default_rng(0)
    scores, by_base = [], []
    for b in range(40):
        solved_base = float(rng.uniform() < 0.7)
        fragility = rng.beta(1, 3)
        twins = [float(rng.uniform() > fragility) for _ in range(rng.integers(2, 7))]
        group = [sample(f"b{b}", f"b{b}", "base", [1], solved_base)]
        group += [sample(f"b{b}-{t}", f"b{b}", "entity_rename", [1], y) for t, y in enumerate(twins)]
        scores += group
        by_base.append(group)
    est = break_rate()(scores)
    draws = [break_rate()([s for i in rng.integers(0, 40, 40) for s in by_base[i]])["break_rate"] for _ in range(3000)]
    assert est["break_rate_se"] == pytest.approx(float(np.nanstd(draws, ddof=1)), rel=0.1)


def test_metrics_use_same_text_copies_and_skip_unscored():
    copy = {"text_id": "A-so2", "base_id": "A", "role": "twin", "operator": "sentence_reorder", "doses": [1]}
    scores = [s for s in SCORES if s.sample_id != "A-so"]
    scores.append(sample("A-so", "A", "sentence_reorder", [3], 0.0, same_text=[copy]))
    assert dose_break_rate()(scores)["break_rate_m1"] == pytest.approx(1 / 3)  # A-so2 breaks A at dose 1
    assert dose_break_rate()(scores)["break_rate_m1_n"] == 3
    unscored = [s for s in scores if s.sample_id != "A"] + [
        SampleScore(
            score=Score.unscored(reason="scoring_failed"), sample_id="A", sample_metadata=SCORES[0].sample_metadata
        )
    ]
    assert rates(base_accuracy()(unscored)) == pytest.approx(
        {"base_accuracy": 1 / 2}
    )  # A is out; its twins have no base Y
    assert pi_by_base(unscored) == {"B": 0.0}


def test_metrics_without_a_solved_base_are_nan():
    unsolved = [sample("C", "C", "base", [1], 0.0), sample("C-er", "C", "entity_rename", [1], 1.0)]
    assert rates(base_accuracy()(unsolved)) == {"base_accuracy": 0.0}
    assert math.isnan(break_rate()(unsolved)["break_rate"]) and math.isnan(mean_pi()(unsolved)["mean_pi"])
    assert math.isnan(fragile_fraction()(unsolved)["fragile_fraction"])
    assert math.isnan(identity_floor()(unsolved)["identity_floor"])
    assert math.isnan(family_break_rate()(unsolved)["break_rate_entity_rename"])
    assert math.isnan(base_accuracy()([])["base_accuracy"])
