"""Clustered uncertainty of the suite's rates and of paired differences between two models (issue 25).

Every rate the suite reports is a ratio of cluster totals, ``R = sum_g a_g / sum_g b_g`` over G clusters (the units
of independence: a glass base with its twins and their draws, an exp_b scenario, a CoBe core example):

- a plain rate over units (CoBe accuracy, exp_b L2b+): ``a_g`` = the values of cluster g, ``b_g`` = its units;
- the glass break rate P(B=1 | Y(base)=1): ``a_g`` = the breaks among base g's pairs with Y(base) = 1, ``b_g`` =
  those pairs (so the denominator itself is random).

Its variance is the cluster-robust (CR1) delta method: cluster g's influence is ``z_g = (a_g - R b_g) / sum b`` and
``var(R) = G / (G - 1) * sum_g z_g^2``. For a plain rate this is inspect's ``stderr(cluster=...)`` and the CR1 SE
of an OLS fit on a constant (statsmodels ``cov_type="cluster"``); the tests check both, and a brute-force cluster
bootstrap. The paired difference of two models on the same clusters adds their influences,
``z_g = z_g^A - z_g^B``, so the covariance of the two models within a cluster enters; ``var(d)`` is the same sum.

Intervals: a rate's 95 % interval is Wilson's at the effective sample size ``n_eff = R (1 - R) / var(R)`` (capped
at the n units; the design-effect-adjusted Wilson interval), so it stays inside [0, 1] and keeps a width at
R = 0 or 1, where the delta-method SE is 0 and ``n_eff`` falls back to the G clusters (as if every cluster were
one unit). A difference's interval, p-value and minimum detectable difference (MDD, two-sided 5 %, 80 % power) use
Student's t with G - 1 degrees of freedom. Closed form throughout: nothing is random, so nothing needs a seed.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

LEVEL = 0.95
POWER = 0.80


@dataclass(frozen=True)
class RateEstimate:
    """A rate with its clustered SE, its 95 % Wilson interval, the units in its denominator and their clusters."""

    value: float
    se: float
    low: float
    high: float
    n: int
    clusters: int

    def metrics(self, name: str) -> dict[str, float]:
        """The log's entries: ``name`` and ``name_se``, ``name_low``, ``name_high``, ``name_n``, ``name_clusters``."""
        return {name: self.value} | {f"{name}_{k}": float(v) for k, v in asdict(self).items() if k != "value"}


@dataclass(frozen=True)
class Difference:
    """A paired difference A - B with its clustered SE, 95 % interval, two-sided p-value and MDD at 80 % power."""

    value: float
    se: float
    low: float
    high: float
    p_value: float
    mdd: float
    clusters: int


def _cluster_totals(
    numerator: Sequence[float], denominator: Sequence[float], clusters: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray]:
    """Each cluster's numerator and denominator totals (clusters in first-seen order)."""
    index: dict[Hashable, int] = {}
    rows = [index.setdefault(c, len(index)) for c in clusters]
    a = np.bincount(rows, weights=np.asarray(numerator, float), minlength=len(index))
    b = np.bincount(rows, weights=np.asarray(denominator, float), minlength=len(index))
    return a, b


def _influence(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """The ratio sum(a) / sum(b) and each cluster's delta-method influence on it (NaN ratio when sum(b) = 0)."""
    total = float(b.sum())
    if total == 0:
        return math.nan, np.full(len(a), math.nan)
    ratio = float(a.sum()) / total
    return ratio, (a - ratio * b) / total


def _cr1_se(z: np.ndarray) -> float:
    """sqrt(G / (G - 1) * sum z_g^2); NaN with fewer than two clusters."""
    groups = len(z)
    return math.sqrt(groups / (groups - 1) * float(np.sum(z * z))) if groups > 1 else math.nan


def wilson(value: float, n_eff: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``value`` observed on ``n_eff`` (possibly fractional) units."""
    if math.isnan(value) or not n_eff > 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(0.5 + level / 2))
    denom = 1 + z * z / n_eff
    centre = (value + z * z / (2 * n_eff)) / denom
    half = z * math.sqrt(max(value * (1 - value), 0.0) / n_eff + z * z / (4 * n_eff * n_eff)) / denom
    low = 0.0 if value <= 0 else max(centre - half, 0.0)
    return low, 1.0 if value >= 1 else min(centre + half, 1.0)


def rate_interval(value: float, se: float, n: int, clusters: int) -> RateEstimate:
    """A rate's record from its clustered SE: Wilson's interval at ``n_eff = value (1 - value) / se^2``, capped at
    ``n``; ``n_eff`` is ``clusters`` where the SE is 0 at a rate of 0 or 1 or is NaN (one cluster), and ``n`` where
    the SE is 0 inside (0, 1) (every cluster at the same rate)."""
    spread = value * (1 - value)
    if se > 0:
        n_eff = min(float(n), spread / (se * se))
    else:  # 0 or NaN
        n_eff = float(n) if se == 0 and spread > 0 else float(clusters)
    low, high = wilson(value, n_eff)
    return RateEstimate(value, se, low, high, n, clusters)


def ratio(numerator: Sequence[float], denominator: Sequence[float], clusters: Sequence[Hashable]) -> RateEstimate:
    """``sum(numerator) / sum(denominator)`` over units grouped in ``clusters``, with its CR1 delta-method SE.

    ``n`` is the denominator's total (the units counted) and ``clusters`` the G clusters with a unit in it (a
    cluster whose denominator is 0, e.g. a glass base the model did not solve, is not one of them).
    """
    a, b = _cluster_totals(numerator, denominator, clusters)
    counted = b != 0
    value, z = _influence(a[counted], b[counted])
    if math.isnan(value):
        return RateEstimate(math.nan, math.nan, math.nan, math.nan, 0, 0)
    return rate_interval(value, _cr1_se(z), int(round(float(b.sum()))), int(counted.sum()))


def rate(values: Sequence[float], clusters: Sequence[Hashable]) -> RateEstimate:
    """The mean of ``values`` (one per unit) with its SE clustered by ``clusters``."""
    return ratio(values, [1.0] * len(values), clusters)


def paired_difference(
    a: tuple[Sequence[float], Sequence[float]],
    b: tuple[Sequence[float], Sequence[float]],
    clusters: Sequence[Hashable],
    level: float = LEVEL,
    power: float = POWER,
) -> Difference:
    """The difference R_A - R_B of two ratios on the same units, paired through their shared ``clusters``.

    ``a`` and ``b`` are each (numerator, denominator) aligned with ``clusters``: one entry per matched unit. G counts
    the clusters with a unit in either denominator.
    """
    a_num, a_den = _cluster_totals(*a, clusters)
    b_num, b_den = _cluster_totals(*b, clusters)
    counted = (a_den != 0) | (b_den != 0)
    value_a, z_a = _influence(a_num[counted], a_den[counted])
    value_b, z_b = _influence(b_num[counted], b_den[counted])
    groups = int(counted.sum())
    value = value_a - value_b
    se = _cr1_se(z_a - z_b) if groups > 1 else math.nan
    if math.isnan(value) or math.isnan(se):
        return Difference(value, se, math.nan, math.nan, math.nan, math.nan, groups)
    dist = stats.t(df=groups - 1)
    crit = float(dist.ppf(0.5 + level / 2))
    mdd = (crit + float(dist.ppf(power))) * se
    if se > 0:
        p_value = 2 * float(dist.sf(abs(value) / se))
    else:  # every cluster moved by the same amount
        p_value = 1.0 if value == 0 else 0.0
    return Difference(value, se, value - crit * se, value + crit * se, p_value, mdd, groups)


def power_at(difference: float, se: float, clusters: int, level: float = LEVEL) -> float:
    """The probability that the two-sided t test at ``level`` rejects 0 when the true difference is ``difference``
    and the difference's SE is ``se`` (normal approximation around the t critical value)."""
    if not se > 0 or clusters < 2:
        return math.nan
    crit = float(stats.t(df=clusters - 1).ppf(0.5 + level / 2))
    shift = abs(difference) / se
    return float(stats.norm.sf(crit - shift) + stats.norm.cdf(-crit - shift))
