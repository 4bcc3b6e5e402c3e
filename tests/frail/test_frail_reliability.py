"""Reliability ceiling (parametric bootstrap, cross-validated EB prior) and the identity-twin floor."""

import numpy as np
import pytest

from causal_suite.errors import SuiteInputError
from frail.estimands import spearman
from frail.pairs import PairObservation
from frail.reliability import (
    ceiling_block,
    ceiling_from_observations,
    fit_beta_binomial,
    identity_twin_floor,
    normalised_spearman,
    reliability_ceiling,
)


def _known_noise(n_jobs: int, twins: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """π ~ Beta(2, 8), k ~ Binomial(twins, π), and the true ceiling E[Spearman(k/n, π)] by direct simulation."""
    rng = np.random.default_rng(seed)
    pi = rng.beta(2, 8, n_jobs)
    n = np.full(n_jobs, twins)
    k = rng.binomial(twins, pi)
    truth = np.mean(
        [spearman(rng.binomial(twins, p_) / twins, p_) for p_ in [rng.beta(2, 8, n_jobs) for _ in range(40)]]
    )
    return k, n, float(truth)


def test_beta_binomial_prior_is_recovered():
    rng = np.random.default_rng(0)
    pi = rng.beta(2, 8, 3000)
    a, b = fit_beta_binomial(rng.binomial(20, pi), np.full(3000, 20))
    assert a / (a + b) == pytest.approx(0.2, abs=0.01)
    assert a + b == pytest.approx(10, rel=0.25)


@pytest.mark.parametrize("twins", [5, 30])
def test_ceiling_matches_known_noise(twins):
    k, n, truth = _known_noise(1500, twins, seed=twins)
    out = reliability_ceiling(k, n, n_repeats=20, seed=1)
    assert out["ceiling"] == pytest.approx(truth, abs=0.05)  # estimator sd ~0.02 at 5 twins
    assert out["n_jobs"] == 1500 and out["n_repeats"] == 20 and out["sd"] > 0


def test_ceiling_grows_with_twins_and_normalises():
    low = reliability_ceiling(*_known_noise(400, 4, 1)[:2], n_repeats=10)["ceiling"]
    high = reliability_ceiling(*_known_noise(400, 40, 1)[:2], n_repeats=10)["ceiling"]
    assert low < high < 1.0
    assert normalised_spearman(0.5, 0.8) == {"raw": 0.5, "ceiling": 0.8, "normalised": 0.625}
    assert normalised_spearman(None, 0.8)["normalised"] is None


def test_ceiling_from_observations_uses_the_solvable_stratum():
    import pandas as pd

    rng = np.random.default_rng(2)
    rows = []
    for j in range(30):
        p = rng.uniform(0, 0.5)
        for _ in range(8):
            rows.append({"base_id": f"j{j}", "y_base": float(j % 5 != 0), "B": float(rng.random() < p)})
    out = ceiling_from_observations(pd.DataFrame(rows), n_repeats=5)
    assert out["n_jobs"] == 24 and out["mean_twins"] == 8
    block = ceiling_block(pd.DataFrame(rows), {"frail_pi": 0.4, "complexity": None}, rows=None, n_repeats=5)
    assert block["ceiling"] == out
    assert block["spearman_pi"]["frail_pi"]["normalised"] == pytest.approx(0.4 / out["ceiling"])
    assert "identity_floor" not in block


def test_ceiling_bad_input():
    with pytest.raises(SuiteInputError, match="at least 5 jobs"):
        reliability_ceiling(np.array([1, 2]), np.array([5, 5]))
    with pytest.raises(SuiteInputError, match="0 <= breaks <= twins"):
        reliability_ceiling(np.array([1, 2, 9, 0, 1, 1]), np.array([5, 5, 5, 5, 5, 5]))


def _obs(base: str, twin: str, family: str, y_base: float, y_twin: float) -> PairObservation:
    return PairObservation(
        base_id=base,
        twin_id=twin,
        operator=f"{family}_m1",
        family=family,
        dose=1,
        complexity_score=0.5,
        base_text="b",
        twin_text="t",
        y_base=y_base,
        y_twin=y_twin,
    )


def test_identity_twin_floor_on_hand_made_rows():
    rows = [_obs("a", f"a-id{i}", "identity", 1.0, 0.0 if i == 0 else 1.0) for i in range(5)]
    rows += [_obs("b", f"b-id{i}", "identity", 1.0, 1.0) for i in range(5)]
    rows += [_obs("c", f"c-id{i}", "identity", 0.0, 0.0) for i in range(5)]  # unsolved base: censored, not counted
    rows += [_obs("a", "a-r", "sentence_reorder", 1.0, 0.0)]  # a real twin: not part of the floor
    out = identity_twin_floor(rows)
    assert out["floor"] == pytest.approx(0.1) and out["breaks"] == 1 and out["identity_twins"] == 10
    assert out["bases"] == 2 and out["ci95"][0] < 0.1 < out["ci95"][1]
    with pytest.raises(SuiteInputError, match="no identity twins"):
        identity_twin_floor([_obs("a", "a-r", "sentence_reorder", 1.0, 0.0)])
