"""Frail-π (§2): closed-form aggregation of p(job, m), and a training run recovering a planted dose effect."""

import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import spearmanr

from frail.featurizers import available_featurizers, make_featurizer
from frail.models.pi import DoseCounts, FrailPi, PiConfig, budget_k, dose_response_from_p, pi_from_p

DOSES = [1, 3, 5, 7, 9]


def test_closed_forms_hand_computed():
    assert pi_from_p(np.array([[0.1, 0.3]]), np.array([[0.5, 0.5]])) == pytest.approx([0.2])
    p = expit(-1.0 + 0.25 * (np.array(DOSES) - 5.0))[None, :]
    a, b = dose_response_from_p(p, DOSES, 5.0)
    assert a[0] == pytest.approx(-1.0) and b[0] == pytest.approx(0.25)
    assert budget_k(np.array([0.2]), 3)[0] == pytest.approx(1 - 0.8**3)


def planted(n_jobs, rng):
    """Two text features: x0 drives the intercept a_J, x1 the dose slope b_J."""
    x = rng.normal(size=(n_jobs, 2)).astype(np.float32)
    a, b = -0.5 + 0.8 * x[:, 0], 0.1 + 0.25 * x[:, 1]
    p = expit(a[:, None] + b[:, None] * (np.array(DOSES)[None, :] - 5.0))
    k = rng.binomial(30, p)
    return (
        x,
        a,
        b,
        DoseCounts(
            np.repeat(np.arange(n_jobs), 5),
            np.tile(np.array(DOSES, float), n_jobs),
            k.ravel().astype(np.float32),
            np.full(k.size, 30, np.float32),
        ),
    )


def subset(counts, jobs):
    keep = np.isin(counts.job, jobs)
    return DoseCounts(counts.job[keep], counts.dose[keep], counts.k[keep], counts.n[keep])


def test_frail_pi_recovers_a_planted_dose_effect(tmp_path):
    rng = np.random.default_rng(0)
    x, a, b, counts = planted(300, rng)
    model = FrailPi(
        2,
        DOSES,
        PiConfig(hidden=16, dropout=0.0, weight_decay=0.0, lr=2e-2, batch_size=1024, max_epochs=80, patience=10),
    )
    seen = []
    model.fit(x, subset(counts, np.arange(200)), subset(counts, np.arange(200, 250)), lambda *e: seen.append(e))
    assert seen and seen[0][0] == 1 and len(seen) == len(model.history)
    test = np.arange(250, 300)
    p = model.predict_p(x[test])
    a_hat, b_hat = dose_response_from_p(p, DOSES, 5.0)
    assert spearmanr(a_hat, a[test]).statistic > 0.9
    assert spearmanr(b_hat, b[test]).statistic > 0.8
    assert np.mean(b_hat) == pytest.approx(np.mean(b[test]), abs=0.05)
    # early stopping kept the best validation state
    assert model.best_val_loss == pytest.approx(min(h[2] for h in model.history), rel=1e-6)


def test_training_is_deterministic_in_the_seed():
    rng = np.random.default_rng(1)
    x, _, _, counts = planted(60, rng)
    runs = []
    for _ in range(2):
        m = FrailPi(2, DOSES, PiConfig(hidden=8, max_epochs=5, seed=3))
        m.fit(x, subset(counts, np.arange(40)), subset(counts, np.arange(40, 60)))
        runs.append(m.predict_p(x))
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("name", ["tfidf_svd", "surface", "hashing"])
def test_featurizers_are_registered_and_fit_on_train_only(name):
    train = [f"Ann buys {i} apples and sells {i % 3} pears at the market." for i in range(12)]
    feat = make_featurizer(name, seed=0).fit(train)
    x = feat.transform(train + ["A wholly unseen sentence about boats?"])
    assert name in available_featurizers() and x.shape[0] == 13 and x.dtype == np.float32
    assert np.isfinite(x).all() and not feat.trainable


def test_unknown_featurizer_lists_the_known_ones():
    from causal_suite.errors import SuiteInputError

    with pytest.raises(SuiteInputError, match="tfidf_svd"):
        make_featurizer("nope")


def test_tfidf_svd_drops_components_of_a_rank_deficient_vocabulary():
    """Four texts over a handful of words: the SVD has fewer real components than ``dim``; the rest would be
    rounding noise blown up to unit variance by standardisation."""
    from frail.featurizers import make_featurizer

    texts = ["red apple pie", "green apple pie", "red pear tart", "green pear tart"] * 3
    for name in ("tfidf_svd", "bow_svd"):
        x = make_featurizer(name, dim=64).fit_transform(texts)
        assert 1 <= x.shape[1] <= 4, name  # four distinct texts: rank 4 at most (it kept 11 columns before)
        assert np.isfinite(x).all() and np.abs(x).max() < 10, name


def test_bow_svd_features_are_additive_in_the_edit():
    from frail.featurizers import make_featurizer

    bases = ["Ava has ten buns and keeps them at home.", "Ben sells cakes at noon then buys more flour today."]
    edit = " A neighbour saw buns at the market."
    texts = bases + [b + edit for b in bases]
    feat = make_featurizer("bow_svd").fit(texts * 2)
    x = feat.transform(texts)
    np.testing.assert_allclose(x[2] - x[0], x[3] - x[1], atol=1e-5)
    tfidf = make_featurizer("tfidf_svd").fit(texts * 2).transform(texts)
    assert not np.allclose(
        tfidf[2] - tfidf[0], tfidf[3] - tfidf[1], atol=1e-3
    )  # length normalisation mixes in the base
