"""Exp B metrics (paper §4-5, App. C.2, C.5-C.6, E-F), declared on ``exp_b_scorer``: the headline rates with their
uncertainty clustered by scenario, the bounds of L2b+ over unscored runs, P(L2b+ | L2b), per-family rates, the
failure taxonomy and, when the calibration arm ran, the calibration summary.

A score dict whose ``unscored`` key is set (a run whose estimate stayed unknown) keeps its L1, L2a, L2b and
environment flags, which are known, so those rates are over every run (:func:`counts_in`); it is out of L2b+ and
every rate built on the estimate (the sweep, P(L2b+ | L2b), the failure taxonomy, calibration) and counted there
only by :func:`unscored_bounds`.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from causal_suite.uncertainty import RateEstimate, rate
from causalverify_inspect.scenarios import FAMILIES

SWEEP = (0.10, 0.25, 0.50, 0.75, 1.00)
FAILURES = (
    "no_code",
    "execution_failure",
    "environment",
    "no_estimate",
    "wrong_coefficient",
    "window_scale",
    "iv_stage",
    "rdd_cutoff_sign",
    "other",
)
LEVELS = ("L1", "L2a", "L2b", "L2b_plus")
KNOWN_WITHOUT_ESTIMATE = ("L1", "L2a", "L2b", "environment", "environment_degraded")
"""Score keys known for every run, its estimate known or not (the levels it reached, whether it failed or passed
for want of a reference package): their rates are over every run, unscored ones included."""


def sweep_key(tol: float) -> str:
    """The score key of the L2b+ rate at tolerance ``tol`` (``tol_50``)."""
    return f"tol_{round(tol * 100)}"


def _runs(scores: list[SampleScore]) -> list[SampleScore]:
    """Samples with a score dict: scored ones and runs whose estimate stayed unknown (``unscored`` > 0)."""
    return [s for s in scores if isinstance(s.score.value, dict)]


def value_of(sample: SampleScore) -> dict[str, float]:
    """The score dict of an Exp B sample (every key a float; see ``scorers``)."""
    return cast(dict[str, float], sample.score.value)


def scored_samples(scores: list[SampleScore]) -> list[SampleScore]:
    """The runs whose estimate is known: every rate is over these."""
    return [s for s in _runs(scores) if not value_of(s).get("unscored")]


def counts_in(value: dict[str, float], key: str) -> bool:
    """Whether the run whose score dict is ``value`` counts in the rate of ``key``: every run for the keys of
    :data:`KNOWN_WITHOUT_ESTIMATE`, a scored run only for L2b+ and every key built on the estimate."""
    return key in KNOWN_WITHOUT_ESTIMATE or not value.get("unscored")


def level_samples(scores: list[SampleScore], level: str) -> list[SampleScore]:
    """The runs a level's rate is over (:func:`counts_in`): every run for L1, L2a and L2b, the scored runs for
    L2b+."""
    return [s for s in _runs(scores) if counts_in(value_of(s), level)]


def unscored_bounds(scores: list[SampleScore]) -> dict[str, float]:
    """The honest headline beside L2b+ (over scored samples): L2b+ with every unscored run counted as a miss
    (``L2b_plus_unscored_as_0``) and as a pass (``_as_1``), the ``unscored_share`` of runs and its count. With no
    ``extractor`` role the deterministic reader leaves unclear outputs unscored, and they are mostly passes."""
    runs = _runs(scores)
    if not runs:
        return {}
    unscored = [float(value_of(s).get("unscored", 0.0)) for s in runs]
    passes = sum(float(value_of(s)["L2b_plus"]) for s, u in zip(runs, unscored, strict=True) if not u)
    total, n_unscored = float(len(runs)), sum(unscored)
    return {
        "L2b_plus_unscored_as_0": passes / total,
        "L2b_plus_unscored_as_1": (passes + n_unscored) / total,
        "unscored_share": n_unscored / total,
        "unscored_n": n_unscored,
    }


def _values(scores: list[SampleScore]) -> list[dict[str, float]]:
    return [value_of(s) for s in scored_samples(scores)]


def scenario_rate(scored: list[SampleScore], key: str, given: str | None = None) -> RateEstimate:
    """The mean of ``key`` over scored samples (restricted to those with ``given`` = 1), with its uncertainty
    clustered by scenario (the sample id: each scenario is one sample, its epochs reduced into it)."""
    kept = [s for s in scored if given is None or value_of(s)[given] == 1]
    return rate([value_of(s)[key] for s in kept], [s.sample_id for s in kept])


@metric
def conditional_pass() -> Metric:
    """P(L2b+ | L2b): among runs that executed, the share whose estimate matched (App. C.2), with its uncertainty
    (``_se``, ``_low``, ``_high``, ``_n`` runs that executed, ``_clusters`` their scenarios)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return scenario_rate(scored_samples(scores), "L2b_plus", given="L2b").metrics("conditional_pass")

    return compute


@metric
def by_family() -> Metric:
    """L2b (over every run) and L2b+ (over scored runs) per design family (paper §5, App. C.6), each with its
    uncertainty beside it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for fam in FAMILIES:
            for level in ("L2b", "L2b_plus"):
                members = [s for s in level_samples(scores, level) if (s.sample_metadata or {}).get("family") == fam]
                if members:
                    out |= scenario_rate(members, level).metrics(f"{fam}_{level}")
        return out

    return compute


@metric
def failure_taxonomy() -> Metric:
    """Share of samples in each failure category (App. C.2); categories sum with the L2b+ passes to 1."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        vals = _values(scores)
        return {name: float(np.mean([v[f"fail_{name}"] for v in vals])) if vals else float("nan") for name in FAILURES}

    return compute


def calibration_summary(confidence: list[float], correct: list[float], bins: int = 10) -> dict[str, float]:
    """Confidence gap, ECE (equal-width bins, 1.0 in the last bin), Brier score and reliability-diagram bins."""
    conf, acc = np.asarray(confidence, float), np.asarray(correct, float)
    out: dict[str, float] = {"n_rated": float(len(conf))}
    if len(conf) == 0:
        return out
    right, wrong = conf[acc == 1], conf[acc == 0]
    out["confidence_gap"] = float(right.mean() - wrong.mean()) if len(right) and len(wrong) else float("nan")
    out["brier"] = float(np.mean((conf - acc) ** 2))
    index = np.minimum((conf * bins).astype(int), bins - 1)
    ece = 0.0
    for b in range(bins):
        members = index == b
        if members.any():
            ece += members.mean() * abs(conf[members].mean() - acc[members].mean())
            out[f"bin{b}_conf"] = float(conf[members].mean())
            out[f"bin{b}_acc"] = float(acc[members].mean())
            out[f"bin{b}_n"] = float(members.sum())
    out["ece"] = float(ece)
    return out


@metric
def calibration() -> Metric:
    """Calibration arm (paper §5): the ``estimate`` confidence against L2b+; also ECE of the other two scales."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        vals = [v for v in _values(scores) if "conf_estimate" in v]  # the calibration arm ran
        if not vals:
            return {}
        rated = [v for v in vals if not math.isnan(v["conf_estimate"])]
        out = calibration_summary([v["conf_estimate"] for v in rated], [v["L2b_plus"] for v in rated])
        for field in ("method", "specification"):
            ok = [v for v in vals if not math.isnan(v[f"conf_{field}"])]
            out[f"ece_{field}"] = calibration_summary(
                [v[f"conf_{field}"] for v in ok], [v["L2b_plus"] for v in ok]
            ).get("ece", float("nan"))
        out["n_unparsed"] = float(len(vals) - len(rated))
        return out

    return compute


@metric
def rates() -> Metric:
    """The headline rates, L2b+ first (the viewer's log list shows the first metric): L2b+, its bounds with the
    unscored runs as misses and as passes and the unscored share (:func:`unscored_bounds`), L2b, L2a, L1 (each rate
    with its uncertainty clustered by scenario: ``_se``, ``_low``, ``_high``, ``_n``, ``_clusters``), the tolerance
    sweep (over scored runs), and the environment shares (failed for a missing reference package; passed without
    one; over every run, as L1..L2b)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for level in reversed(LEVELS):
            out |= scenario_rate(level_samples(scores, level), level).metrics(level)
            if level == "L2b_plus":
                out |= unscored_bounds(scores)
        for key in [*(sweep_key(t) for t in SWEEP), "environment", "environment_degraded"]:
            kept = [value_of(s)[key] for s in level_samples(scores, key)]
            out[key] = float(np.mean(kept)) if kept else float("nan")
        return out

    return compute


EXP_B_METRICS = [rates(), conditional_pass(), by_family(), failure_taxonomy(), calibration()]
"""What ``exp_b_scorer`` declares, headline first; ``calibration`` is empty unless the calibration arm ran."""
