"""Recall@k curation against random and oracle rankings; solver transfer on two synthetic solvers."""

import copy

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from causal_suite.errors import SuiteInputError
from frail.curation import curation_block, curation_table, recall_at_k, solver_transfer
from frail.models.pi import PiConfig
from frail.pairs import write_pairs
from frail.report import load_dataset
from frail.synth import generate_bernoulli

TRUE_PI = np.array([0.30, 0.20, 0.10, 0.06, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05])  # jobs 0-3 are fragile (π > 0.05)
RANK = [0, 5, 1, 6, 2, 7, 3, 8, 9, 4]  # the predictor's order, best first


def _scores() -> np.ndarray:
    scores = np.empty(10)
    scores[RANK] = np.arange(10, 0, -1)
    return scores


def test_recall_at_k_on_a_hand_made_ranking():
    out = recall_at_k(_scores(), TRUE_PI)
    assert out["k=5%"] == {"kept": 1, "model": 0.25, "random": 0.1, "oracle": 0.25}
    assert out["k=10%"] == {"kept": 1, "model": 0.25, "random": 0.1, "oracle": 0.25}
    assert out["k=20%"] == {"kept": 2, "model": 0.25, "random": 0.2, "oracle": 0.5}
    assert out["k=50%"] == {"kept": 5, "model": 0.75, "random": 0.5, "oracle": 1.0}
    oracle = recall_at_k(TRUE_PI, TRUE_PI)
    assert [v["model"] for v in oracle.values()] == [v["oracle"] for v in oracle.values()]


def test_curation_table_and_bad_input():
    table = curation_table({"frail_pi": _scores(), "reversed": -_scores()}, TRUE_PI)
    assert table["n_fragile"] == 4 and table["oracle"]["k=50%"] == 1.0
    assert table["model"]["reversed"]["k=50%"] == 0.25  # bottom-5 of the predictor's order holds job 3 only
    frame = pd.DataFrame({"pi": TRUE_PI, "pi_hat": _scores(), "C": TRUE_PI * 2})
    block = curation_block(frame)
    assert block["model"]["frail_pi"] == table["model"]["frail_pi"] and block["model"]["complexity"]["k=20%"] == 0.5
    with pytest.raises(SuiteInputError, match="one score per job"):
        recall_at_k(np.ones(3), TRUE_PI)
    with pytest.raises(SuiteInputError, match="NaN"):
        recall_at_k(np.array([np.nan] * 10), TRUE_PI)
    with pytest.raises(SuiteInputError, match="no job has"):
        recall_at_k(_scores(), np.zeros(10))


def _second_solver(rows, truth, seed):
    """The same bases and twins re-scored by another solver: fresh Bernoulli breaks from the same p(J, m)."""
    rng = np.random.default_rng(seed)
    params = {t["base_id"]: t for t in truth}
    out = []
    for r in rows:
        r2 = copy.copy(r)
        r2.solver = "solver-b"
        if r2.y_base == 1.0:
            t = params[r.base_id]
            r2.y_twin = 0.0 if rng.random() < expit(t["a"] + t["b"] * (r.dose - 5)) else 1.0
        out.append(r2)
    return out


def test_solver_transfer_on_two_synthetic_solvers(tmp_path):
    rows, truth = generate_bernoulli(60, 2, seed=5)
    write_pairs(tmp_path / "a.jsonl", rows)
    write_pairs(tmp_path / "b.jsonl", _second_solver(rows, truth, 1))
    data = {"a": load_dataset([tmp_path / "a.jsonl"]), "b": load_dataset([tmp_path / "b.jsonl"])}
    cfg = PiConfig(max_epochs=30, patience=5)
    results = solver_transfer(data, "tfidf_svd", seed=0, config=cfg)
    assert [(r["train"], r["test"]) for r in results] == [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]
    for r in results:
        assert r["n_test_solvable"] > 5 and -1 <= r["ccd_spearman"] <= 1 and -1 <= r["crd_spearman"] <= 1
    assert results == solver_transfer(data, "tfidf_svd", seed=0, config=cfg)  # deterministic
    with pytest.raises(SuiteInputError, match="at least two solvers"):
        solver_transfer({"a": data["a"]})
