"""CoBe metrics on hand-computed scores (§4, Table 5, Figs. 6-9)."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from cobe_inspect.scorers import (
    check_failure_rates,
    cobe_accuracy,
    grouped_accuracy,
    phrasing_summary,
)


def sample(scenario: str, phrasing: str, graph: str, e0: int, e1: int, e2: int) -> SampleScore:
    value = {"E0": e0, "E1": e1, "E2": e2, "correct": int(e0 and e1 and e2)}
    meta = {"scenario_id": scenario, "phrasing": phrasing, "graph_type": graph, "domain": "Everyday", "tier": 1}
    return SampleScore(score=Score(value=value), sample_id=f"{scenario}-{phrasing}", sample_metadata=meta)


SCORES = [
    sample("1v1", "A", "chain", 1, 1, 1),
    sample("1v1", "B", "chain", 1, 0, 1),
    sample("1v1", "C", "chain", 1, 1, 1),
    sample("2v1", "A", "fork", 0, 1, 0),
    sample("2v1", "B", "fork", 1, 1, 1),
    SampleScore(score=Score.unscored(reason="grader_failed"), sample_id="2v1-C", sample_metadata={"phrasing": "C"}),
]


def test_accuracy_and_stderr():
    result = cobe_accuracy()(SCORES)
    assert result["accuracy"] == pytest.approx(3 / 5)
    assert result["stderr"] == pytest.approx(math.sqrt(0.3) / math.sqrt(5))


def test_check_failure_rates():
    assert check_failure_rates()(SCORES) == pytest.approx({"E0_failure": 0.2, "E1_failure": 0.2, "E2_failure": 0.2})


def test_grouped_accuracy_with_unlabeled_group():
    assert grouped_accuracy("graph_type")(SCORES) == pytest.approx({"graph_type=chain": 2 / 3, "graph_type=fork": 0.5})
    assert grouped_accuracy("failure_mode")(SCORES) == pytest.approx({"failure_mode=unlabeled": 0.6})


def test_phrasing_summary_mean_std_and_scenario_level():
    # per phrasing: A = 1/2, B = 1/2, C = 1/1; per scenario: 1v1 = 2/3, 2v1 = 1/2 (its C is unscored)
    result = phrasing_summary()(SCORES)
    assert result["phrasing_mean"] == pytest.approx(2 / 3)
    assert result["phrasing_std"] == pytest.approx(math.sqrt(1 / 12))
    assert result["scenario_accuracy"] == pytest.approx(7 / 12)
    assert phrasing_summary()(SCORES[:1])["phrasing_std"] is None


def test_empty_metrics_are_nan():
    assert math.isnan(cobe_accuracy()([])["accuracy"])
    assert math.isnan(check_failure_rates()([])["E0_failure"])
    empty = phrasing_summary()([])
    assert math.isnan(empty["phrasing_mean"]) and math.isnan(empty["scenario_accuracy"]) and empty["phrasing_std"] is None
    # no group to report: one NaN named by the breakdown's key (only unscored samples count as no samples)
    for scores in ([], SCORES[-1:]):
        [(name, value)] = grouped_accuracy("domain")(scores).items()
        assert name == "domain" and math.isnan(value)


@pytest.mark.shared_data
def test_phrasing_summary_reproduces_table5_from_fig8(shared_dir):
    """Table 5's mean ± std is the mean and sample std (ddof=1) of the per-phrasing accuracies of Fig. 8."""
    results = json.loads((shared_dir / "data" / "cobe" / "paper-results.json").read_text())
    for model, overall in results["overall"].items():
        scores = []
        for phrasing in "ABC":
            rate = results["by_query"]["values"][phrasing][model]  # percent, one decimal
            hits = round(rate * 10)
            meta = {"phrasing": phrasing}
            hit, miss = sample("x", phrasing, "chain", 1, 1, 1).score, sample("x", phrasing, "chain", 1, 0, 1).score
            scores += [
                SampleScore.model_construct(score=hit if i < hits else miss, sample_id=f"{i}-{phrasing}",
                                            sample_metadata=dict(meta, scenario_id=f"{i}v1"))
                for i in range(1000)
            ]
        result = phrasing_summary()(scores)
        assert 100 * result["phrasing_mean"] == pytest.approx(overall["accuracy"], abs=0.06), model
        assert 100 * result["phrasing_std"] == pytest.approx(overall["std"], abs=0.1), model
