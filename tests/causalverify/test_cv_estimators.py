"""Canonical estimators: hand-checked values, independent formulas, bad input, and upstream's 100 estimates."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pyfixest as pf
import pytest

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios.estimators import canonical_estimate

UPSTREAM = "data/causalverify"


def _panel(seed: int = 0, units: int = 12, periods: int = 6, first_post: int = 4, effect: float = 0.7):
    rng = np.random.default_rng(seed)
    unit, period = np.repeat(np.arange(units), periods), np.tile(np.arange(1, periods + 1), units)
    treated = (unit < units // 2).astype(int)
    post = (period >= first_post).astype(int)
    y = rng.normal(0, 1, units)[unit] + 0.3 * period + effect * treated * post + rng.normal(0, 0.2, unit.size)
    return pd.DataFrame(dict(unit_id=unit, period=period, treated=treated, post=post, treat_x_post=treated * post, y=y))


def test_did_hand_checked_two_by_two():
    # 2 treated + 2 control units, 2 periods: TWFE = (treated post-pre change) - (control change) = 3.0 - 1.0
    data = pd.DataFrame(
        dict(
            unit_id=[1, 1, 2, 2, 3, 3, 4, 4],
            period=[1, 2] * 4,
            treated=[1, 1, 1, 1, 0, 0, 0, 0],
            post=[0, 1] * 4,
            treat_x_post=[0, 1, 0, 1, 0, 0, 0, 0],
            y=[10.0, 13.5, 12.0, 14.5, 5.0, 6.5, 7.0, 7.5],
        )
    )
    est = canonical_estimate(data, "DID")
    assert est.estimate == pytest.approx(2.0, abs=1e-12)
    assert est.n == 8 and "TWFE" in est.spec
    # residuals are +-0.25 in each cell: sigma^2 = 8 * 0.0625 / (8 - 2); sum of demeaned x^2 = 8 * 0.25^2
    assert est.se == pytest.approx(np.sqrt((8 * 0.0625 / 6) / (8 * 0.0625)), rel=1e-9)


def test_did_matches_pyfixest_twfe_and_pooled_interaction():
    data = _panel()
    est = canonical_estimate(data, "DID")
    fe = pf.feols("y ~ treat_x_post | unit_id + period", data=data)
    assert est.estimate == pytest.approx(float(fe.coef()["treat_x_post"]), abs=1e-10)
    X = np.column_stack([np.ones(len(data)), data.treated, data.post, data.treat_x_post])
    beta = np.linalg.lstsq(X, data.y.to_numpy(), rcond=None)[0]
    assert est.estimate == pytest.approx(beta[3], abs=1e-10)


def test_did_rejects_unbalanced_panel():
    with pytest.raises(SuiteInputError, match="balanced panel"):
        canonical_estimate(_panel().iloc[1:], "DID")


def test_event_study_matches_explicit_ols_and_cluster_sandwich():
    rng = np.random.default_rng(1)
    S, days = 15, np.arange(-5, 6)
    stock, day = np.repeat(np.arange(S), days.size), np.tile(days, S)
    mkt = rng.normal(0, 0.01, stock.size)
    ret = 0.9 * mkt + 0.02 * (day >= 0) + rng.normal(0, 0.01, stock.size)
    data = pd.DataFrame(dict(stock_id=stock, event_day=day, ret=ret, mkt_ret=mkt))
    est = canonical_estimate(data, "EVENT_STUDY")
    X = np.column_stack([np.ones(len(data)), mkt, (day >= 0).astype(float)])
    XtX_inv = np.linalg.inv(X.T @ X)
    beta = XtX_inv @ X.T @ ret
    u = ret - X @ beta
    meat = sum(np.outer(X[stock == g].T @ u[stock == g], X[stock == g].T @ u[stock == g]) for g in range(S))
    n, k = X.shape
    V = (S / (S - 1)) * ((n - 1) / (n - k)) * XtX_inv @ meat @ XtX_inv
    assert est.estimate == pytest.approx(beta[2], abs=1e-12)
    assert est.se == pytest.approx(np.sqrt(V[2, 2]), rel=1e-9)
    assert est.n == n


def test_iv_wald_estimator_by_hand():
    # binary instrument, no controls: 2SLS = (mean y | z=1 - mean y | z=0) / (mean x | z=1 - mean x | z=0)
    data = pd.DataFrame(dict(y=[1.0, 2.0, 3.0, 5.0, 6.0, 8.0], x=[0.0, 1.0, 1.0, 2.0, 3.0, 3.0], z=[0, 0, 0, 1, 1, 1]))
    est = canonical_estimate(data, "IV")
    assert est.estimate == pytest.approx((19 / 3 - 2) / (8 / 3 - 2 / 3), abs=1e-12)


def test_iv_equals_two_explicit_ols_stages_with_hc0():
    rng = np.random.default_rng(2)
    n = 400
    z, c, u = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    x = 0.8 * z + 0.4 * c + u + rng.normal(0, 0.3, n)
    y = -0.5 * x + 0.3 * c + 0.7 * u + rng.normal(0, 0.5, n)
    data = pd.DataFrame(dict(y=y, x=x, z=z, controls=c))
    est = canonical_estimate(data, "IV")
    W = np.column_stack([np.ones(n), z, c])
    x_hat = W @ np.linalg.lstsq(W, x, rcond=None)[0]  # stage 1
    X_hat, X = np.column_stack([np.ones(n), x_hat, c]), np.column_stack([np.ones(n), x, c])
    beta = np.linalg.lstsq(X_hat, y, rcond=None)[0]  # stage 2
    resid = y - X @ beta  # structural residuals use the observed x
    bread = np.linalg.inv(X_hat.T @ X_hat)
    V = bread @ (X_hat.T * resid**2) @ X_hat @ bread
    assert est.estimate == pytest.approx(beta[1], abs=1e-10)
    assert est.se == pytest.approx(np.sqrt(V[1, 1]), rel=1e-8)
    assert "controls" in est.spec


def test_rdd_jump_is_difference_of_side_intercepts_both_sides():
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 100, 600)
    for side, treated in (("above", x >= 50), ("below", x < 50)):
        y = 2 + 0.05 * x + 3.0 * treated + rng.normal(0, 0.5, x.size)
        data = pd.DataFrame(dict(running_var=x, treated=treated.astype(int), y=y))
        est = canonical_estimate(data, "RDD", {"cutoff": 50, "bandwidth": 20, "treated_side": side})
        window = np.abs(x - 50) <= 20

        def intercept(mask, y=y):
            A = np.column_stack([np.ones(mask.sum()), x[mask] - 50])
            return np.linalg.lstsq(A, y[mask], rcond=None)[0][0]

        jump = intercept(window & treated) - intercept(window & ~treated)
        assert est.estimate == pytest.approx(jump, abs=1e-10)
        assert est.n == int(window.sum())
        assert est.estimate == pytest.approx(3.0, abs=0.3)


def test_rdd_uses_near_cutoff_flag_when_present_and_needs_30_rows():
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, 200)
    data = pd.DataFrame(
        dict(
            running_var=x,
            treated=(x >= 0.5).astype(int),
            y=rng.normal(size=200),
            near_cutoff=(np.abs(x - 0.5) <= 0.1).astype(int),
        )
    )
    assert canonical_estimate(data, "RDD").n == int(data.near_cutoff.sum())
    with pytest.raises(SuiteInputError, match="at least 30"):
        canonical_estimate(data.assign(near_cutoff=0), "RDD")


@pytest.mark.parametrize(
    "family,data,match",
    [
        ("PSM", pd.DataFrame(dict(y=[1.0])), "Unknown design family"),
        ("IV", pd.DataFrame(dict(y=[1.0], x=[2.0])), r"lack the column\(s\) \['z'\]"),
        ("DID", pd.DataFrame(columns=["unit_id", "period", "treat_x_post", "y"]), "no rows"),
    ],
)
def test_bad_input_is_one_sentence_error(family, data, match):
    with pytest.raises(SuiteInputError, match=match):
        canonical_estimate(data, family)


@pytest.mark.shared_data
def test_reproduces_upstream_canonical_estimates_to_6dp(shared_dir):
    root = shared_dir / UPSTREAM
    results = json.loads((root / "audit/dgp_verification.json").read_text())["results"]
    start, est_ok, se_ok, worst = time.perf_counter(), 0, 0, 0.0
    for r in results:
        data = pd.read_csv(root / f"experiments/exp_b/data/{r['scenario_id']}_data.csv")
        est = canonical_estimate(data, r["method_family"])
        est_ok += round(est.estimate, 6) == r["estimated"]
        se_ok += round(est.se, 6) == r["standard_error"]
        worst = max(worst, abs(est.estimate - r["estimated"]))
        # upstream records the CSV's rows; for RDD our n is the rows inside the bandwidth
        window = int(data["near_cutoff"].sum()) if r["method_family"] == "RDD" else r["n_observations"]
        assert est.n == window, r["scenario_id"]
    elapsed = time.perf_counter() - start
    print(
        f"upstream canonical: {est_ok}/100 estimates and {se_ok}/100 SEs equal at 6 dp; "
        f"max |diff| {worst:.2e}; {elapsed:.1f} s"
    )
    assert (len(results), est_ok, se_ok) == (100, 100, 100)
    assert worst <= 5e-7
