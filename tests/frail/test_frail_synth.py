"""Synth-CD (§3.5): the generator keeps its promises (calibration, length independence, censored stratum)."""

import json

import numpy as np

from frail.cli import main
from frail.estimands import job_targets, observations_frame
from frail.synth import (
    DOMAINS,
    MULTI,
    NO_GLOSS,
    OPERATORS,
    QUESTION,
    SIMPLE,
    Job,
    _twin_text,
    continuous_tau,
    generate_bernoulli,
    generate_continuous,
    mechanism_checks,
    oracle_tau_given_c,
)


def test_continuous_variant_is_calibrated_and_length_free():
    rows, truth = generate_continuous(1500, seed=3)
    checks = mechanism_checks(rows, truth)
    assert len(OPERATORS) == 12 and len({t["domain"] for t in truth}) == 8
    assert abs(checks["spearman_davg_C"] - 0.60) < 0.06 and abs(checks["spearman_davg_E"] - 0.60) < 0.06
    assert abs(checks["spearman_length_C"]) < 0.08 and abs(checks["spearman_length_E"]) < 0.08
    # the oracle D⊥ carries no complexity and keeps the expertise signal
    assert abs(checks["spearman_oracle_dperp_C"]) < 0.08 and checks["spearman_oracle_dperp_E"] > 0.6
    # cosmetic-only operators never hurt more than their noise allows
    cosmetic = [r.delta for r in rows if r.family == "whitespace"]
    assert np.mean(cosmetic) < 0.05


def test_oracle_conditional_mean_matches_monte_carlo():
    rng = np.random.default_rng(0)
    e, eta = rng.beta(2, 2, 40000), rng.normal(0, 0.037, 40000)
    mc = continuous_tau(np.full(40000, 0.7), e, eta).mean()
    assert abs(oracle_tau_given_c(np.array([0.7]))[0] - mc) < 2e-3


def test_bernoulli_variant_has_censored_stratum_and_recoverable_truth():
    rows, truth = generate_bernoulli(300, twins_per_dose=4, seed=1)
    jobs = job_targets(observations_frame(rows))
    assert len(rows) == 300 * 5 * 4 and sorted({r.dose for r in rows}) == [1, 3, 5, 7, 9]
    assert jobs.attrs["m_bar"] == 5.0
    assert 0.6 < jobs["solvable"].mean() < 0.98
    unsolved = [r for r in rows if r.y_base == 0.0]
    assert unsolved and all(r.delta <= 0 for r in unsolved)
    checks = mechanism_checks(rows, truth)
    assert checks["spearman_measured_pi_true_pi"] > 0.7 and checks["spearman_true_pi_E"] > 0.6


def test_cli_synth_writes_pairs_and_truth(tmp_path, capsys):
    out = tmp_path / "synth.jsonl"
    assert main(["synth", "--n-jobs", "20", "--twins-per-dose", "1", "--seed", "2", "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mechanism_checks"]["n_pairs"] == 100
    truth = [json.loads(line) for line in (tmp_path / "synth.truth.jsonl").read_text().splitlines()]
    assert len(truth) == 20 and {"a", "b", "pi", "C", "E"} <= set(truth[0])
    assert len(out.read_text().splitlines()) == 100


def test_every_continuous_operator_makes_a_visible_edit_whose_size_ignores_c():
    import re

    from scipy import stats

    from frail.featurizers import WORD_TOKENS

    rows, _ = generate_continuous(400, seed=4)
    by_family = {}
    for r in rows:
        by_family.setdefault(r.family, []).append(r)
    assert set(by_family) == {name for name, _, _ in OPERATORS}
    for family, twins in by_family.items():
        assert all(t.twin_text != t.base_text for t in twins), family
        if family not in ("whitespace", "punctuation"):  # a word-level model sees the others (words or word order)
            words = [(re.findall(WORD_TOKENS, t.base_text), re.findall(WORD_TOKENS, t.twin_text)) for t in twins]
            assert all(b != w for b, w in words), family
        growth = np.array([len(t.twin_text) - len(t.base_text) for t in twins])
        c = np.array([t.complexity_score for t in twins])
        if np.ptp(growth):  # random-sized edits (names, distractor numbers, glossed noun) are unrelated to C
            assert abs(stats.spearmanr(growth, c).statistic) < 0.15, family
    # a deterministic edit: same job, same operator -> same twin text on regeneration
    again, _ = generate_continuous(400, seed=4)
    assert [r.twin_text for r in again] == [r.twin_text for r in rows]


def _job(multi: int, nouns: list[str]) -> Job:
    """A bakery job whose first ``multi`` setup sentences are multi-step (C = multi / 6)."""
    setup = [
        (MULTI if i < multi else SIMPLE).format(name="Ava", n=20 + i, k=3, noun=noun)
        for i, noun in enumerate(nouns[:-1])
    ]
    return Job("j", "bakery", multi / 6, 0.5, "Ava", setup, QUESTION.format(noun=nouns[-1], name="Ava"), nouns)


def _word_change(base: str, twin: str) -> dict[str, int]:
    import re
    from collections import Counter

    from frail.featurizers import WORD_TOKENS

    diff = Counter(re.findall(WORD_TOKENS, twin.lower()))
    diff.subtract(Counter(re.findall(WORD_TOKENS, base.lower())))
    return {w: n for w, n in diff.items() if n}


def test_edit_words_never_depend_on_c_and_expertise_edits_act_on_the_jargon():
    plain, expert = DOMAINS["bakery"]
    nouns = [expert[0], plain[1], expert[2], plain[3], expert[0], plain[2], plain[0]]  # 3 expert uses, 2 distinct
    simple, complex_ = _job(0, nouns), _job(6, nouns)
    for family, _, _ in OPERATORS:
        changes = [_word_change(j.text, _twin_text(j, family, 1, np.random.default_rng(5))) for j in (simple, complex_)]
        assert changes[0] == changes[1], family  # the same words added and removed at C = 0 and C = 1
    swap = _word_change(simple.text, _twin_text(simple, "jargon_swap", 1, np.random.default_rng(0)))
    # every noun changes register: cob->bun twice, cake->roux, genoa->bread, muffin->kougin, bread->genoa, bun->cob
    assert swap == {"cobs": -1, "buns": 1, "cakes": -1, "rouxs": 1, "muffins": -1, "kougins": 1}
    gloss = _twin_text(simple, "domain_gloss", 1, np.random.default_rng(0))
    assert gloss.count("Note: in bakery usage") == 2 and NO_GLOSS not in gloss
    no_jargon = _job(3, [plain[0]] * 7)
    assert _twin_text(no_jargon, "domain_gloss", 1, np.random.default_rng(0)).count(NO_GLOSS) == 1
