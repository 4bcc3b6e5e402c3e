"""Frail-τ: invariance regulariser, contrast and ex-ante heads, curriculum, and the Synth-CD check plumbing."""

import numpy as np
import pytest
import torch

from causal_suite.errors import SuiteInputError
from frail.estimands import observations_frame, spearman
from frail.models.tau import FrailTau, TauConfig, TauData
from frail.synth import generate_continuous
from frail.tau_eval import synth_mechanism_check

DIM = 12


def _pairs(n_jobs: int, seed: int, twins: int = 4) -> tuple[TauData, np.ndarray]:
    """Column 0 carries C; a twin shifts C's column (a complexity-coded surface edit) and surface columns 1-3.

    The true per-twin effect is Δ = 2·(twin's change in columns 1-3 summed), independent of C.
    """
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 1, n_jobs)
    x = rng.normal(size=(n_jobs, DIM))
    x[:, 0] = 3 * c
    job = np.repeat(np.arange(n_jobs), twins)
    edit = rng.normal(size=(len(job), DIM)) * 0.5
    x_twin = x[job] + edit
    delta = 2 * edit[:, 1:4].sum(axis=1) * -1
    return TauData(x[job], x_twin, delta, job, c), c


def test_invariance_loss_decreases_on_constructed_pairs():
    train, _ = _pairs(60, 0)
    val, _ = _pairs(20, 1)

    def final_invariance(lambda_inv: float) -> tuple[float, float]:
        model = FrailTau(DIM, TauConfig(lambda_inv=lambda_inv, representation_epochs=20, calibration_epochs=0, seed=3))
        xb, xt = (torch.from_numpy(a.astype(np.float32)) for a in (train.x_base, train.x_twin))
        with torch.no_grad():
            start = float(model.net.invariance(model.net.encoder(xb), model.net.encoder(xt)))
        model.fit(train, val)
        model.net.eval()
        with torch.no_grad():
            return start, float(model.net.invariance(model.net.encoder(xb), model.net.encoder(xt)))

    start, end = final_invariance(5.0)
    assert end < 0.5 * start
    assert end < final_invariance(0.0)[1]


def test_two_stage_curriculum_runs_both_stages():
    train, _ = _pairs(30, 4)
    val, _ = _pairs(10, 5)
    model = FrailTau(DIM, TauConfig(representation_epochs=3, calibration_epochs=3, seed=0)).fit(train, val)
    assert [len(v) for v in model.history.values()] == [3, 3, 3]
    assert all(np.isfinite(v).all() for v in model.history.values())


def test_contrast_head_recovers_planted_effect_and_is_deterministic():
    train, _ = _pairs(100, 0)
    val, _ = _pairs(30, 1)
    test, _ = _pairs(60, 2)
    cfg = TauConfig(representation_epochs=3, calibration_epochs=60, patience=20, seed=0)
    pred = FrailTau(DIM, cfg).fit(train, val).predict(test)
    assert spearman(pred["contrast_obs"], test.delta) > 0.8
    assert pred["contrast"].shape == pred["ex_ante"].shape == (60,)
    again = FrailTau(DIM, cfg).fit(train, val).predict(test)
    np.testing.assert_array_equal(pred["contrast_obs"], again["contrast_obs"])


def test_bad_input():
    train, _ = _pairs(20, 0)
    empty = TauData(train.x_base[:0], train.x_twin[:0], train.delta[:0], train.job[:0], train.c_job)
    with pytest.raises(SuiteInputError, match="both the training and validation"):
        FrailTau(DIM).fit(train, empty)
    with pytest.raises(SuiteInputError, match="no non-identity twins"):
        rows, _ = generate_continuous(2, 0)
        for r in rows:
            r.family = "identity"
        observations_frame(rows)


def test_synth_mechanism_check_reports_every_method():
    rows, truth = generate_continuous(40, 3)
    cfg = TauConfig(representation_epochs=2, calibration_epochs=5, seed=0)
    out = synth_mechanism_check(rows, truth, [0], "hashing", cfg)
    assert {"frail_tau_contrast", "frail_tau_ex_ante", "complexity", "surface_gbt"} <= set(out["mean"]["job"])
    assert {"frail_tau_contrast", "operator_mean", "complexity"} <= set(out["mean"]["observation"])
    assert out["mean"]["job"]["complexity"]["abs_rho_C"] == pytest.approx(1.0)  # quadratic in C, monotone on [0, 1]
    seed0 = out["per_seed"][0]
    assert seed0["n_test_jobs"] == 8 and seed0["n_test_observations"] == 8 * 12
