"""Canonical estimators: the realised-data reference that L2b+ compares against (paper §4, App. C.1, Table 5).

One specification per design family, computed with pyfixest / statsmodels on the scenario's CSV. With the default
design facts they are upstream's specifications (``src/agents/dgp_verifier.py``) and reproduce
``audit/dgp_verification.json`` to its 6 decimals:

* DID - two-way fixed effects: ``y`` on ``treat_x_post`` with unit and period fixed effects, by the within
  transformation of a balanced panel; iid SE without a degrees-of-freedom charge for the absorbed effects.
* EVENT_STUDY - market model: ``ret`` on a constant, ``mkt_ret`` and ``1[event_day >= 0]`` pooled over stocks and
  days; the coefficient is the per-day average abnormal return; SE clustered by ``stock_id``.
* IV - 2SLS of ``y`` on ``x`` instrumented by ``z``, with a constant and every other column (e.g. ``controls``)
  as exogenous regressors; heteroskedasticity-robust (HC0) SE.
* RDD - local linear at the cutoff with a uniform kernel and fixed bandwidth: ``y`` on ``treated``, the centred
  running variable and their interaction within the bandwidth; HC3 SE. The coefficient on ``treated`` is the jump
  for the treated side, whichever side of the cutoff that is.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
import pyfixest as pf
import statsmodels.api as sm

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios.records import (
    FAMILIES,
    UPSTREAM_RDD,
    CanonicalEstimate,
    iv_default_controls,
    missing_columns,
)

MIN_RDD_OBS = 30
_NO_SSC = pf.ssc(k_adj=False, G_adj=False)


def _check(data: pd.DataFrame, family: str) -> None:
    if family not in FAMILIES:
        raise SuiteInputError(f"Unknown design family {family!r}; expected one of {FAMILIES}.")
    missing = missing_columns(data, family)
    if missing:
        raise SuiteInputError(f"{family} data lack the column(s) {missing} (they have {list(data.columns)}).")
    if data.empty:
        raise SuiteInputError(f"{family} data have no rows.")


def did_twfe(data: pd.DataFrame) -> CanonicalEstimate:
    """TWFE on a balanced panel by the within transformation (upstream's one-pass two-way demeaning).

    OLS of the demeaned ``y`` on a constant and the demeaned ``treat_x_post``; iid SE on n - 2 degrees of freedom
    (no charge for the absorbed effects). On a balanced panel one pass is the exact two-way within transformation.
    """
    cells = data.groupby(["unit_id", "period"]).size()
    n_units, n_periods = data["unit_id"].nunique(), data["period"].nunique()
    if len(cells) != n_units * n_periods or (cells != 1).any():
        raise SuiteInputError(
            f"DID data are not a balanced panel ({len(data)} rows for {n_units} units x {n_periods} periods); "
            "the canonical TWFE needs exactly one row per unit and period."
        )
    y, x = _two_way_demean(data, "y"), _two_way_demean(data, "treat_x_post")
    fit = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
    return CanonicalEstimate(
        float(fit.params[1]),
        float(fit.bse[1]),
        int(fit.nobs),
        "TWFE: y ~ treat_x_post + unit FE + period FE (balanced panel, within transformation); iid SE",
    )


def _two_way_demean(data: pd.DataFrame, col: str) -> np.ndarray:
    """Subtract the unit mean, then the period mean of the unit-demeaned series (exact on balanced panels)."""
    within_unit = data[col] - data.groupby("unit_id")[col].transform("mean")
    return np.asarray(within_unit - within_unit.groupby(data["period"]).transform("mean"), dtype=float)


def event_study_market_model(data: pd.DataFrame, event_day: int = 0) -> CanonicalEstimate:
    """Pooled market model ``ret ~ mkt_ret + post`` with ``post = 1[event_day >= 0]``; SE clustered by stock."""
    frame = data.assign(post_event=(data["event_day"] >= event_day).astype(float))
    fit = sm.OLS(frame["ret"], sm.add_constant(frame[["mkt_ret", "post_event"]])).fit(
        cov_type="cluster", cov_kwds={"groups": frame["stock_id"].to_numpy()}
    )
    return CanonicalEstimate(
        float(fit.params["post_event"]),
        float(fit.bse["post_event"]),
        int(fit.nobs),
        f"OLS ret ~ 1 + mkt_ret + 1[event_day >= {event_day}] (per-day AR); SE clustered by stock_id",
    )


def iv_2sls(data: pd.DataFrame, controls: list[str] | None = None) -> CanonicalEstimate:
    """2SLS ``y ~ 1 + controls | x ~ z``; HC0 SE. Controls default to :func:`iv_default_controls`."""
    controls = iv_default_controls(data) if controls is None else list(controls)
    absent = [c for c in controls if c not in data.columns]
    if absent:
        raise SuiteInputError(f"IV data lack the control column(s) {absent} (they have {list(data.columns)}).")
    exog = " + ".join(["1", *controls])
    fit = pf.feols(f"y ~ {exog} | x ~ z", data=data, vcov="hetero", ssc=_NO_SSC)
    return CanonicalEstimate(
        float(fit.coef()["x"]),
        float(fit.se()["x"]),
        len(data),
        f"2SLS y ~ {exog} | x ~ z; HC0 SE",
    )


def rdd_local_linear(
    data: pd.DataFrame, cutoff: float = 0.5, bandwidth: float = 0.3, treated_side: str = "above"
) -> CanonicalEstimate:
    """Uniform-kernel local linear: ``y ~ treated + r + r:treated`` on ``|running_var - cutoff| <= bandwidth``.

    Upstream's CSVs carry a ``near_cutoff`` flag computed on the unrounded running variable; when present it
    defines the sample (as upstream does), else the window is computed from ``running_var``.
    """
    if treated_side not in ("above", "below"):
        raise SuiteInputError(f"RDD treated_side must be 'above' or 'below', got {treated_side!r}.")
    if "near_cutoff" in data.columns:
        window = data[data["near_cutoff"] == 1]
    else:
        window = data[(data["running_var"] - cutoff).abs() <= bandwidth + 1e-12]
    if len(window) < MIN_RDD_OBS:
        raise SuiteInputError(f"RDD data hold {len(window)} rows within the bandwidth; at least {MIN_RDD_OBS} needed.")
    r = window["running_var"] - cutoff
    X = pd.DataFrame({"treated": window["treated"], "r": r, "r_treated": r * window["treated"]})
    fit = sm.OLS(window["y"], sm.add_constant(X)).fit(cov_type="HC3")
    return CanonicalEstimate(
        float(fit.params["treated"]),
        float(fit.bse["treated"]),
        int(fit.nobs),
        f"OLS y ~ treated + r + r:treated, r = running_var - {cutoff:g}, |r| <= {bandwidth:g} "
        f"(treated {treated_side}); HC3 SE",
    )


def canonical_estimate(data: pd.DataFrame, family: str, design: Mapping[str, Any] | None = None) -> CanonicalEstimate:
    """The family's canonical estimate on ``data``.

    ``design`` (a scenario's design facts) may set the event day, the IV controls or the RDD cutoff, bandwidth and
    treated side; absent keys take upstream's values.
    """
    _check(data, family)
    design = dict(design or {})
    if family == "DID":
        return did_twfe(data)
    if family == "EVENT_STUDY":
        return event_study_market_model(data, int(design.get("event_day", 0)))
    if family == "IV":
        return iv_2sls(data, design.get("controls"))
    rdd = {k: design.get(k, v) for k, v in UPSTREAM_RDD.items()}
    return rdd_local_linear(data, float(rdd["cutoff"]), float(rdd["bandwidth"]), str(rdd["treated_side"]))


@lru_cache(maxsize=256)
def iv_stage_estimates(data_path: str) -> dict[str, float]:
    """First stage (x on z), reduced form (y on z) and naive OLS (y on x), with the other columns as controls."""
    data = pd.read_csv(data_path)
    controls = iv_default_controls(data)

    def coef(dep: str, reg: str) -> float:
        fit = sm.OLS(data[dep], sm.add_constant(data[[reg, *controls]])).fit()
        return float(fit.params[reg])

    return {"first_stage": coef("x", "z"), "reduced_form": coef("y", "z"), "ols": coef("y", "x")}
