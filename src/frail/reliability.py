"""Reliability ceiling and identity-twin floor (§7 steps 7-8, §11).

**Ceiling.** The measured π̂(J) = k_J / n_J is a binomial estimate of π(J) from n_J twins, so even a predictor that
knew π exactly would not reach ρ_S = 1 against it. The ceiling is the Spearman correlation a perfect predictor
attains, estimated by parametric bootstrap: a Beta(α, β) empirical-Bayes prior is fitted by maximum beta-binomial
likelihood, cross-validated (each fold's jobs get the prior fitted on the other folds, so no job shapes its own
prior); each repeat draws π*(J) from the job's posterior Beta(α + k, β + n − k), redraws k* ~ Binomial(n_J, π*)
and records Spearman(k*/n, π*). The ceiling is the mean over repeats. Normalised ρ_S = raw ρ_S / ceiling; the raw
value is always reported beside it, since the normalised one depends on the estimator and the slice (§11).

**Floor.** Sampled solvers can break a job with no perturbation at all: the identity-twin floor is the break rate
B on identity (unperturbed, re-solved) twins of solvable-stratum bases, with a Wilson 95 % interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from causal_suite.errors import SuiteInputError
from causal_suite.fragility import break_rate, solved
from frail.estimands import IDENTITY, observations_frame, spearman
from frail.pairs import PairObservation


def fit_beta_binomial(k: np.ndarray, n: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood Beta(α, β) prior under k ~ BetaBinomial(n, α, β), optimised on log α, log β."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    mean = float(np.clip((k.sum() + 0.5) / (n.sum() + 1.0), 1e-3, 1 - 1e-3))

    def nll(theta: np.ndarray) -> float:
        a, b = np.exp(theta)
        return -float(stats.betabinom.logpmf(k, n, a, b).sum())

    start = np.log([2.0 * mean, 2.0 * (1 - mean)])
    res = optimize.minimize(nll, start, method="L-BFGS-B", bounds=[(-7.0, 9.0), (-7.0, 9.0)])
    a, b = np.exp(res.x)
    return float(a), float(b)


def cross_validated_prior(k: np.ndarray, n: np.ndarray, folds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per job, the (α, β) fitted on the jobs of the other folds."""
    alpha, beta = np.empty(len(k)), np.empty(len(k))
    for fold in np.unique(folds):
        held = folds == fold
        if (~held).sum() < 2:
            raise SuiteInputError(
                f"the empirical-Bayes prior needs jobs outside fold {fold}: too few jobs for a ceiling."
            )
        alpha[held], beta[held] = fit_beta_binomial(k[~held], n[~held])
    return alpha, beta


def reliability_ceiling(
    k: np.ndarray, n: np.ndarray, n_repeats: int = 30, n_folds: int = 5, seed: int = 0, folds: np.ndarray | None = None
) -> dict[str, Any]:
    """Parametric-bootstrap ceiling on Spearman(measured π̂, π) with a cross-validated empirical-Bayes prior."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    if len(k) < max(3, n_folds) or (n <= 0).any() or (k < 0).any() or (k > n).any():
        raise SuiteInputError(
            f"a reliability ceiling needs at least {max(3, n_folds)} jobs with 0 <= breaks <= twins and twins > 0 "
            f"(got {len(k)} jobs)."
        )
    rng = np.random.default_rng(seed)
    if folds is None:
        folds = rng.permutation(np.arange(len(k)) % n_folds)
    alpha, beta = cross_validated_prior(k, n, np.asarray(folds))
    rhos = []
    for _ in range(n_repeats):
        true_pi = rng.beta(alpha + k, beta + n - k)
        measured = rng.binomial(n.astype(int), true_pi) / n
        rho = spearman(measured, true_pi)
        if rho is not None:
            rhos.append(rho)
    if not rhos:
        raise SuiteInputError("every bootstrap repeat gave a constant π̂: the ceiling is undefined for these jobs.")
    return {
        "ceiling": float(np.mean(rhos)),
        "sd": float(np.std(rhos, ddof=1)) if len(rhos) > 1 else 0.0,
        "n_jobs": int(len(k)),
        "n_repeats": len(rhos),
        "mean_twins": float(n.mean()),
        "prior_alpha": float(np.mean(alpha)),
        "prior_beta": float(np.mean(beta)),
    }


def ceiling_from_observations(obs: pd.DataFrame, **options: Any) -> dict[str, Any]:
    """The ceiling for π on the solvable stratum of an ``observations_frame``."""
    solvable = obs[solved(obs["y_base"])]
    per_job = solvable.groupby("base_id")["B"].agg(["sum", "size"])
    return reliability_ceiling(per_job["sum"].to_numpy(), per_job["size"].to_numpy(), **options)


def normalised_spearman(raw: float | None, ceiling: float) -> dict[str, float | None]:
    """Raw and ceiling-normalised ρ_S side by side."""
    return {"raw": raw, "ceiling": ceiling, "normalised": None if raw is None or ceiling <= 0 else raw / ceiling}


def identity_twin_floor(rows: list[PairObservation]) -> dict[str, Any]:
    """Break rate on identity twins of solvable bases (Y(J) = 1), with its Wilson 95 % interval."""
    from statsmodels.stats.proportion import proportion_confint

    frame = observations_frame(rows, include_identity=True)
    ident = frame[(frame["family"] == IDENTITY) & solved(frame["y_base"])]
    if ident.empty:
        raise SuiteInputError(
            "the pairs hold no identity twins of solved bases: build the corpus with identity (unperturbed) twins "
            "and score them to measure the floor."
        )
    breaks, total = int(ident["B"].sum()), len(ident)
    low, high = proportion_confint(breaks, total, alpha=0.05, method="wilson")
    return {
        "floor": break_rate(ident["y_base"], ident["y_twin"]),
        "breaks": breaks,
        "identity_twins": total,
        "bases": int(ident["base_id"].nunique()),
        "ci95": [float(low), float(high)],
    }


def ceiling_block(
    obs: pd.DataFrame,
    spearman_by_method: dict[str, float | None],
    rows: list[PairObservation] | None = None,
    n_repeats: int = 30,
    seed: int = 0,
) -> dict[str, Any]:
    """The report's reliability block: the π ceiling, each method's raw and normalised ρ_S, and the identity-twin
    floor when ``rows`` (the pairs as read, identity twins included) hold identity twins."""
    ceiling = ceiling_from_observations(obs, n_repeats=n_repeats, seed=seed)
    block: dict[str, Any] = {
        "ceiling": ceiling,
        "spearman_pi": {m: normalised_spearman(rho, ceiling["ceiling"]) for m, rho in spearman_by_method.items()},
    }
    if rows is not None and any(r.family == IDENTITY for r in rows):
        block["identity_floor"] = identity_twin_floor(rows)
    return block
