"""CoBe metrics on hand-computed scores (§4, Table 5, Figs. 6-9)."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from cobe_inspect.scorers import (
    check_failure_rates,
    cobe_accuracy,
    final_story_marker,
    grouped_accuracy,
    paper_weighted_accuracy,
    phrasing_summary,
)


def sample(scenario: str, phrasing: str, graph: str, e0: int, e1: int, e2: int) -> SampleScore:
    value = {"E0": e0, "E1": e1, "E2": e2, "correct": int(e0 and e1 and e2)}
    meta = {"scenario_id": scenario, "core_id": int(scenario.split("v")[0]), "phrasing": phrasing, "graph_type": graph}
    meta |= {"domain": "Everyday", "tier": 1}
    return SampleScore(score=Score(value=value), sample_id=f"{scenario}-{phrasing}", sample_metadata=meta)


SCORES = [
    sample("1v1", "A", "chain", 1, 1, 1),
    sample("1v1", "B", "chain", 1, 0, 1),
    sample("1v1", "C", "chain", 1, 1, 1),
    sample("2v1", "A", "fork", 0, 1, 0),
    sample("2v1", "B", "fork", 1, 1, 1),
    SampleScore(score=Score.unscored(reason="grader_failed"), sample_id="2v1-C", sample_metadata={"phrasing": "C"}),
]


def test_accuracy_and_stderr_clustered_by_core_example():
    result = cobe_accuracy()(SCORES)
    assert result["accuracy"] == pytest.approx(3 / 5)
    assert result["accuracy_se_iid"] == pytest.approx(math.sqrt(0.3) / math.sqrt(5))
    # residuals from 0.6: core 1 (0.4, -0.6, 0.4) sums to 0.2, core 2 (-0.6, 0.4) to -0.2;
    # CR1: sqrt(G / (G - 1) * (0.2^2 + 0.2^2)) / n = sqrt(2 * 0.08) / 5
    assert result["accuracy_se"] == pytest.approx(0.08)
    assert (result["accuracy_n"], result["accuracy_clusters"]) == (5, 2)
    assert result["accuracy_low"] < 0.6 < result["accuracy_high"]


def test_variations_of_one_core_are_one_cluster():
    # 10 cores x 3 variations x 2 phrasings; the variations of a core always agree, so clustering by variation
    # (the old unit) understates the SE and clustering by core does not
    scores = [
        SampleScore(
            score=Score(value={"E0": 1, "E1": 1, "E2": 1, "correct": core % 2}),
            sample_id=f"{core}v{v}-{p}",
            sample_metadata={"core_id": core, "scenario_id": f"{core}v{v}", "phrasing": p},
        )
        for core in range(10)
        for v in range(3)
        for p in "AB"
    ]
    result = cobe_accuracy()(scores)
    assert result["accuracy_clusters"] == 10 and result["accuracy_n"] == 60
    assert result["accuracy_se"] == pytest.approx(math.sqrt(10 / 9 * 10 * (6 * 0.5) ** 2) / 60)
    by_variation = math.sqrt(30 / 29 * 30 * (2 * 0.5) ** 2) / 60
    assert result["accuracy_se"] == pytest.approx(math.sqrt(3 * 29 / 27) * by_variation)
    assert result["accuracy_se"] > 2.4 * result["accuracy_se_iid"]


def test_one_core_has_no_standard_error():
    result = cobe_accuracy()([s for s in SCORES if s.sample_metadata.get("core_id") == 1])
    assert math.isnan(result["accuracy_se"]) and result["accuracy_clusters"] == 1
    assert 0 < result["accuracy_low"] < result["accuracy_high"] < 1  # Wilson on one effective unit


def test_check_failure_rates():
    rates = check_failure_rates()(SCORES)
    assert {k: rates[k] for k in ("E0_failure", "E1_failure", "E2_failure")} == pytest.approx(
        {"E0_failure": 0.2, "E1_failure": 0.2, "E2_failure": 0.2}
    )
    assert math.isnan(rates["E4_numeric_failure"]) and math.isnan(rates["E5_latent_failure"])  # nothing tagged
    assert rates["E0_failure_n"] == 5 and rates["E0_failure_clusters"] == 2 and rates["E0_failure_se"] > 0


def tagged(scenario: str, e1: int, e2: int, numeric: list[str], latent: list[str]) -> SampleScore:
    score = sample(scenario, "A", "chain", 1, e1, e2)
    score.sample_metadata.update(numeric_checks=numeric, latent_checks=latent)
    return score


def test_numeric_and_latent_subcriteria_fail_on_their_tagged_checks():
    scores = [
        tagged("1v1", 1, 0, ["E2"], []),  # numeric E2 fails
        tagged("2v1", 0, 1, ["E2"], []),  # numeric tag on E2, which holds: E1 failing is not a numeric failure
        tagged("3v1", 0, 1, [], ["E1"]),  # latent E1 fails
        tagged("4v1", 1, 1, [], ["E1"]),
        tagged("5v1", 1, 1, ["E1", "E2"], ["E1"]),
        tagged("6v1", 0, 0, [], []),  # untagged: counts for E1/E2 only
    ]
    rates = check_failure_rates()(scores)
    assert rates["E4_numeric_failure"] == pytest.approx(1 / 3)
    assert rates["E5_latent_failure"] == pytest.approx(1 / 3)
    assert rates["E1_failure"] == pytest.approx(3 / 6) and rates["E2_failure"] == pytest.approx(2 / 6)


def test_grouped_accuracy_with_unlabeled_group():
    by_graph = grouped_accuracy("graph_type")(SCORES)
    assert [by_graph["graph_type=chain"], by_graph["graph_type=fork"]] == pytest.approx([2 / 3, 0.5])
    assert (by_graph["graph_type=chain_n"], by_graph["graph_type=chain_clusters"]) == (3, 1)
    assert grouped_accuracy("failure_mode")(SCORES)["failure_mode=unlabeled"] == pytest.approx(0.6)
    assert grouped_accuracy("failure_mode")(SCORES)["failure_mode=unlabeled_se"] == pytest.approx(0.08)


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
    assert (
        math.isnan(empty["phrasing_mean"]) and math.isnan(empty["scenario_accuracy"]) and empty["phrasing_std"] is None
    )
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
            hit, miss = sample("0v1", phrasing, "chain", 1, 1, 1).score, sample("0v1", phrasing, "chain", 1, 0, 1).score
            scores += [
                SampleScore.model_construct(
                    score=hit if i < hits else miss,
                    sample_id=f"{i}-{phrasing}",
                    sample_metadata=dict(meta, scenario_id=f"{i}v1"),
                )
                for i in range(1000)
            ]
        result = phrasing_summary()(scores)
        assert 100 * result["phrasing_mean"] == pytest.approx(overall["accuracy"], abs=0.06), model
        assert 100 * result["phrasing_std"] == pytest.approx(overall["std"], abs=0.1), model


def test_marker_missing_is_the_share_of_tier4_replies_without_the_marker():
    def h2(sid: str, missing: bool | None) -> SampleScore:
        meta = {} if missing is None else {"marker_missing": missing}
        return SampleScore(score=Score(value={"correct": 1}, metadata=meta), sample_id=sid)

    result = final_story_marker()([h2("1v1-H2", True), h2("2v1-H2", False), h2("3v1-H2", False), h2("4v1-A", None)])
    assert result == {"marker_missing": pytest.approx(1 / 3), "marker_missing_n": 3}
    assert math.isnan(final_story_marker()(SCORES)["marker_missing"])


def test_paper_weighted_accuracy_weights_graph_types_by_the_papers_shares():
    # chain: 2/3 correct (weight 51.0), fork: 1/2 (weight 4.8); the unscored sample is left out
    result = paper_weighted_accuracy()(SCORES)
    assert result["paper_weighted_accuracy"] == pytest.approx((51.0 * 2 / 3 + 4.8 * 1 / 2) / (51.0 + 4.8))
    assert result["paper_weighted_accuracy_types"] == 2
    untagged = [SampleScore(score=Score(value={"correct": 1}), sample_id="x", sample_metadata={})]
    assert math.isnan(paper_weighted_accuracy()(untagged)["paper_weighted_accuracy"])
