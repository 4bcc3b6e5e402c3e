"""causal_suite.uncertainty against known answers: inspect's clustered stderr, statsmodels' CR1 OLS, a brute-force
cluster bootstrap on a synthetic clustered log, Wilson's interval from statsmodels, and the degenerate cases."""

import math

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score, stderr
from scipy import stats

from causal_suite import uncertainty as u


def synthetic_log(seed: int = 0, clusters: int = 60):
    """Clusters of 1-9 units whose rates differ (intra-cluster correlation) and whose units count in the denominator
    only when a cluster-level condition holds half the time or so (the glass break rate's shape)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, clusters)
    labels = np.repeat(np.arange(clusters), sizes)
    rate = rng.beta(2, 5, clusters)[labels]
    counted = (rng.uniform(size=clusters) < 0.6)[labels].astype(float)
    broke = (rng.uniform(size=len(labels)) < rate).astype(float) * counted
    return labels, broke, counted


def bootstrap_se(statistic, labels, arrays, reps=4000, seed=1):
    """Brute force: resample whole clusters with replacement and take the std of the statistic."""
    rng = np.random.default_rng(seed)
    groups = np.unique(labels)
    totals = [np.array([a[labels == g].sum() for g in groups]) for a in arrays]
    draws = rng.integers(0, len(groups), (reps, len(groups)))
    values = statistic(*(t[draws].sum(axis=1) for t in totals))
    return float(np.nanstd(values, ddof=1))


def test_ratio_se_matches_a_brute_force_cluster_bootstrap():
    labels, broke, counted = synthetic_log()
    est = u.ratio(broke, counted, labels)
    boot = bootstrap_se(lambda a, b: a / b, labels, [broke, counted])
    assert est.value == pytest.approx(broke.sum() / counted.sum())
    assert est.se == pytest.approx(boot, rel=0.08)
    assert est.n == int(counted.sum()) and est.clusters == len(np.unique(labels[counted == 1]))


def test_paired_difference_se_matches_a_brute_force_paired_cluster_bootstrap():
    labels, broke, counted = synthetic_log(seed=2)
    rng = np.random.default_rng(3)
    other = np.where(rng.uniform(size=len(broke)) < 0.8, broke, 1 - broke) * counted  # correlated with A
    diff = u.paired_difference((broke, counted), (other, counted), labels)
    boot = bootstrap_se(lambda a, b, c: a / b - c / b, labels, [broke, counted, other])
    assert diff.value == pytest.approx(broke.sum() / counted.sum() - other.sum() / counted.sum())
    assert diff.se == pytest.approx(boot, rel=0.08)
    # pairing: the SE of the difference is below the SE of two independent estimates
    unpaired = math.hypot(u.ratio(broke, counted, labels).se, u.ratio(other, counted, labels).se)
    assert diff.se < unpaired


def test_rate_se_is_inspects_clustered_stderr_and_statsmodels_cr1():
    import statsmodels.api as sm

    labels, broke, _ = synthetic_log(seed=4)
    scores = [
        SampleScore(score=Score(value=float(y)), sample_id=i, sample_metadata={"core": int(g)})
        for i, (y, g) in enumerate(zip(broke, labels, strict=False))
    ]
    ols = sm.OLS(broke, np.ones(len(broke))).fit(cov_type="cluster", cov_kwds={"groups": labels})
    est = u.rate(broke, labels)
    assert est.se == pytest.approx(stderr(cluster="core")(scores))
    assert est.se == pytest.approx(float(ols.bse[0]))


def test_wilson_is_statsmodels_wilson_at_integer_n():
    from statsmodels.stats.proportion import proportion_confint

    for k, n in [(0, 10), (3, 10), (10, 10), (17, 40)]:
        assert u.wilson(k / n, n) == pytest.approx(proportion_confint(k, n, method="wilson"))


def test_rates_of_0_and_1_keep_a_width_and_stay_in_0_1():
    labels = np.repeat(np.arange(8), 3)
    zero, one = u.rate(np.zeros(24), labels), u.rate(np.ones(24), labels)
    assert zero.se == 0 and zero.low == 0 and 0 < zero.high < 1
    assert one.high == 1 and 0 < one.low < 1
    # the SE is 0, so the cluster count stands in for n: as wide as Wilson's on 8 units, not 24
    assert zero.high == pytest.approx(u.wilson(0.0, 8)[1])


def test_effective_n_narrows_with_independence():
    rng = np.random.default_rng(5)
    y = (rng.uniform(size=400) < 0.3).astype(float)
    iid = u.rate(y, np.arange(400))
    clustered = u.rate(np.repeat(y[:40], 10), np.repeat(np.arange(40), 10))  # 40 clusters of identical outcomes
    assert iid.high - iid.low < clustered.high - clustered.low
    assert iid.low < iid.value < iid.high


def test_degenerate_inputs_give_nan_not_errors():
    empty = u.rate([], [])
    assert math.isnan(empty.value) and empty.n == 0 and empty.clusters == 0
    unsolved = u.ratio([0, 0], [0, 0], ["a", "b"])  # no unit in the denominator (no solved base)
    assert math.isnan(unsolved.value) and unsolved.n == 0
    single = u.rate([1, 0, 1], ["a", "a", "a"])
    assert single.value == pytest.approx(2 / 3) and math.isnan(single.se) and single.clusters == 1
    assert 0 < single.low < single.high < 1  # Wilson on one unit: the widest honest interval
    one_cluster = u.paired_difference(([1, 0], [1, 1]), ([0, 0], [1, 1]), ["a", "a"])
    assert math.isnan(one_cluster.se) and math.isnan(one_cluster.p_value) and one_cluster.clusters == 1


def test_difference_p_value_mdd_and_power():
    labels = np.repeat(np.arange(30), 2)
    rng = np.random.default_rng(6)
    a = (rng.uniform(size=60) < 0.6).astype(float)
    b = (rng.uniform(size=60) < 0.4).astype(float)
    ones = np.ones(60)
    d = u.paired_difference((a, ones), (b, ones), labels)
    t = stats.t(df=29)
    assert d.p_value == pytest.approx(2 * t.sf(abs(d.value) / d.se))
    assert d.low == pytest.approx(d.value - t.ppf(0.975) * d.se) and d.high > d.value
    assert d.mdd == pytest.approx((t.ppf(0.975) + t.ppf(0.8)) * d.se)
    assert u.power_at(d.mdd, d.se, 30) == pytest.approx(0.8, abs=0.01)
    same = u.paired_difference((a, ones), (a, ones), labels)
    assert same.value == 0 and same.p_value == 1.0 and same.low == same.high == 0
