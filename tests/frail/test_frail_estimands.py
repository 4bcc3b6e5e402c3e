"""Estimands against hand-computed tables (§1): B, π on the solvable stratum, U-CCD, worst case, (a, b), CRD."""

import math

import numpy as np
import pytest

from causal_suite.errors import SuiteInputError
from frail.estimands import (
    break_event,
    cross_fitted_residual,
    dose_composition,
    job_targets,
    observations_frame,
    orthogonality_diagnostics,
    spearman,
)
from frail.pairs import PairObservation


def obs(base, twin, dose, y_base, y_twin, family="sentence_reorder", c=0.5):
    return PairObservation(
        base_id=base,
        twin_id=twin,
        operator=f"{family}_m{dose}",
        family=family,
        dose=dose,
        complexity_score=c,
        base_text=f"text {base}",
        twin_text=f"twin {twin}",
        y_base=y_base,
        y_twin=y_twin,
    )


@pytest.fixture
def table():
    return [
        # J1 solved: dose 1 breaks 1 of 2, dose 9 breaks 2 of 2 -> pi = 3/4
        obs("J1", "J1-a", 1, 1.0, 0.0, c=0.2),
        obs("J1", "J1-b", 1, 1.0, 1.0, c=0.2),
        obs("J1", "J1-c", 9, 1.0, 0.0, c=0.2),
        obs("J1", "J1-d", 9, 1.0, 0.0, c=0.2),
        obs("J1", "J1-id", 9, 1.0, 0.0, family="identity", c=0.2),  # placebo: dropped by default
        # J2 not solved: censored stratum, its twins can only show Delta <= 0
        obs("J2", "J2-a", 1, 0.0, 0.0),
        obs("J2", "J2-b", 1, 0.0, 1.0),
        obs("J2", "J2-c", 9, 0.0, 0.0),
        obs("J2", "J2-d", 9, 0.0, 0.0),
        # J3 solved, one dose only, never broken
        obs("J3", "J3-a", 1, 1.0, 1.0, c=0.9),
        obs("J3", "J3-b", 1, 1.0, 1.0, c=0.9),
    ]


def test_break_event_truth_table():
    assert break_event(np.array([1, 1, 0, 0]), np.array([0, 1, 0, 1])).tolist() == [1.0, 0.0, 0.0, 0.0]


def test_job_targets_hand_computed(table):
    frame = observations_frame(table)
    assert "J1-id" not in set(frame["twin_id"])
    jobs = job_targets(frame)
    assert jobs.attrs["m_bar"] == 5.0  # mean of the design doses {1, 9}
    j1, j2, j3 = jobs.loc["J1"], jobs.loc["J2"], jobs.loc["J3"]
    assert j1["pi"] == pytest.approx(0.75)
    assert j1["d_avg"] == pytest.approx(0.75) and j1["d_wc"] == 1.0
    # empirical logits: dose 1 log(1.5/1.5) = 0, dose 9 log(2.5/0.5) = log 5; x = m - 5 = -4, +4
    assert j1["b"] == pytest.approx(math.log(5) / 8)
    assert j1["a"] == pytest.approx(math.log(5) / 2)
    # censored stratum: no pi, no dose response, but U-CCD is defined (and <= 0)
    assert not j2["solvable"] and math.isnan(j2["pi"]) and math.isnan(j2["a"]) and math.isnan(j2["b"])
    assert j2["d_avg"] == pytest.approx(-0.25) and j2["d_wc"] == 0.0
    # one dose: the intercept is the empirical logit there, the slope is undefined
    assert j3["pi"] == 0.0 and j3["a"] == pytest.approx(math.log(0.5 / 2.5)) and math.isnan(j3["b"])


def test_job_with_no_solvable_base_has_no_pi(table):
    jobs = job_targets(observations_frame([r for r in table if r.base_id == "J2"]))
    assert jobs["solvable"].sum() == 0 and jobs["pi"].isna().all()


def test_identity_twins_kept_when_asked(table):
    jobs = job_targets(observations_frame(table, include_identity=True))
    assert jobs.loc["J1", "pi"] == pytest.approx(4 / 5)


def test_dose_composition_weights(table):
    comp = dose_composition(observations_frame(table), [1, 9])
    assert comp.loc["J1"].tolist() == [0.5, 0.5] and comp.loc["J3"].tolist() == [1.0, 0.0]


def test_inconsistent_base_outcome_is_refused(table):
    table[1] = obs("J1", "J1-b", 1, 0.0, 1.0)
    with pytest.raises(SuiteInputError, match="J1"):
        observations_frame(table)


def test_cross_fitted_residual_hand_computed():
    # constant C -> m̂ is the out-of-fold mean: fold 0 sees mean(3, 4), fold 1 sees mean(1, 2)
    res, fitted = cross_fitted_residual(np.array([1.0, 2, 3, 4]), np.zeros(4), np.array([0, 0, 1, 1]))
    assert fitted == pytest.approx([3.5, 3.5, 1.5, 1.5]) and res == pytest.approx([-2.5, -1.5, 1.5, 2.5])
    # Q exactly quadratic in C: the out-of-fold fit is exact, the residual is zero
    c = np.linspace(0, 1, 12)
    res, _ = cross_fitted_residual(1 + 2 * c - 3 * c**2, c, np.arange(12) % 3)
    assert np.allclose(res, 0, atol=1e-9)


def test_cross_fitted_residual_is_uncorrelated_with_c():
    rng = np.random.default_rng(0)
    c = rng.beta(2, 2, 600)
    anomaly = rng.normal(0, 0.1, 600)  # the part C cannot explain
    q = 0.2 + 0.5 * c + 0.4 * c**2 + anomaly
    res, _ = cross_fitted_residual(q, c, rng.integers(0, 5, 600))
    diag = orthogonality_diagnostics(q, res, c)
    assert diag["corr_target_C"] > 0.7
    assert abs(diag["corr_pred_C"]) < 0.05 and abs(diag["corr_pred_C2"]) < 0.05
    assert np.corrcoef(res, anomaly)[0, 1] > 0.95


def test_orthogonality_diagnostics_hand_computed():
    diag = orthogonality_diagnostics(np.array([1.0, 2, 3]), np.array([3.0, 2, 1]), np.array([1.0, 2, 3]))
    assert diag["corr_target_C"] == pytest.approx(1.0) and diag["corr_pred_C"] == pytest.approx(-1.0)
    assert diag["corr_pred_C2"] == pytest.approx(-8 / math.sqrt(2 * 294 / 9))
    assert orthogonality_diagnostics(np.ones(3), np.ones(3), np.arange(3.0))["corr_pred_C"] is None


def test_spearman_hand_computed_and_undefined_cases():
    assert spearman([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(0.8)
    # non-finite pairs are dropped, not propagated
    assert spearman([1, 2, np.nan, 3, 4], [1, 2, 5, 3, 4]) == pytest.approx(1.0)
    assert spearman([1, 2], [1, 2]) is None  # fewer than three pairs
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1, 2, 3], [5, 5, 5]) is None
