"""Downstream utility and solver transfer (§7 steps 9-10).

**Curation.** Rank held-out jobs by a predictor and keep the top k % (k ∈ {5, 10, 20, 50}); Recall@k is the share
of the truly fragile jobs (π > 0.05) that the kept set contains. Each predictor is set against the random ranking
(expected recall = kept / jobs, in closed form) and the oracle ranking (by true π: min(kept, fragile) / fragile).

**Solver transfer.** The stratum is the solver's own Y(J), so the estimand can move with the solver. For an ordered
pair (A, B) of solvers scored on the same bases, Frail-π is trained on A's pairs (training fold of one base-id split
of the shared bases), and its predictions for the test-fold bases are scored against B's measured π (CCD) and
against B's CRD (π residualised on C, cross-fitted on the same folds). The diagonal A = B is the in-solver result.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from causal_suite.fragility import FRAGILE_THRESHOLD, is_fragile
from frail.estimands import crd_residuals, spearman
from frail.evaluation import Dataset, dose_counts
from frail.featurizers import make_featurizer
from frail.models.pi import FrailPi, PiConfig, pi_from_p
from frail.splits import dataset_fingerprint, make_split

BUDGETS = (0.05, 0.10, 0.20, 0.50)


def recall_at_k(
    scores: np.ndarray, true_pi: np.ndarray, budgets: tuple[float, ...] = BUDGETS, threshold: float = FRAGILE_THRESHOLD
) -> dict[str, dict[str, float]]:
    """{"k=5%": {"model", "random", "oracle", "kept"}}: recall of jobs with π > threshold among the top-k by score."""
    scores, true_pi = np.asarray(scores, dtype=float), np.asarray(true_pi, dtype=float)
    if len(scores) != len(true_pi) or not len(scores):
        raise SuiteInputError(f"curation needs one score per job: got {len(scores)} scores for {len(true_pi)} jobs.")
    if not np.isfinite(scores).all():
        raise SuiteInputError("curation scores contain NaN or infinite values: drop or impute those jobs first.")
    fragile = is_fragile(true_pi, threshold)
    n_fragile = int(fragile.sum())
    if n_fragile == 0:
        raise SuiteInputError(f"no job has π > {threshold}: Recall@k is undefined on this holdout.")
    order = np.lexsort((np.arange(len(scores)), -scores))  # highest score first, ties by position (deterministic)
    out = {}
    for k in budgets:
        kept = max(1, math.ceil(k * len(scores) - 1e-9))  # 0.1 * 30 is 3.0000000000000004
        out[f"k={k:.0%}"] = {
            "kept": kept,
            "model": float(fragile[order[:kept]].sum() / n_fragile),
            "random": kept / len(scores),
            "oracle": min(kept, n_fragile) / n_fragile,
        }
    return out


def curation_table(predictions: dict[str, np.ndarray], true_pi: np.ndarray, **options: Any) -> dict[str, Any]:
    """Recall@k for each named predictor on the same holdout, with the random and oracle references once."""
    table = {name: recall_at_k(scores, true_pi, **options) for name, scores in predictions.items()}
    first = next(iter(table.values()))
    return {
        "n_jobs": len(true_pi),
        "n_fragile": int(is_fragile(np.asarray(true_pi), options.get("threshold", FRAGILE_THRESHOLD)).sum()),
        "random": {k: v["random"] for k, v in first.items()},
        "oracle": {k: v["oracle"] for k, v in first.items()},
        "model": {name: {k: v["model"] for k, v in rows.items()} for name, rows in table.items()},
    }


def curation_block(predictions: pd.DataFrame, **options: Any) -> dict[str, Any]:
    """The report's curation block from one seed's test-fold predictions (columns ``pi``, ``pi_hat``, ``C``):
    Frail-π's π̂ and the declared complexity C as rankings of the measured π, against random and oracle."""
    frame = predictions.dropna(subset=["pi", "pi_hat"])
    return curation_table(
        {"frail_pi": frame["pi_hat"].to_numpy(), "complexity": frame["C"].to_numpy()}, frame["pi"].to_numpy(), **options
    )


def solver_transfer(
    datasets: dict[str, Dataset], featurizer: str = "tfidf_svd", seed: int = 0, config: PiConfig | None = None
) -> list[dict[str, Any]]:
    """Train on each solver's pairs, test on every solver's measured π and CRD over the shared bases' test fold."""
    if len(datasets) < 2:
        raise SuiteInputError("solver transfer needs the pairs of at least two solvers (one pair file set per solver).")
    shared = sorted(set.intersection(*(set(d.jobs.index) for d in datasets.values())))
    if len(shared) < 10:
        raise SuiteInputError(
            f"the solvers share only {len(shared)} base ids: transfer needs the same bases scored by each."
        )
    doses = {tuple(d.doses) for d in datasets.values()}
    if len(doses) > 1:
        raise SuiteInputError(f"the solvers' pairs have different dose designs {sorted(doses)}: use the same corpus.")
    fingerprint = dataset_fingerprint((b, "", 0) for b in shared)
    split = make_split(shared, fingerprint, seed)
    ids = {r: split.ids(r) for r in ("train", "val", "test")}
    texts = next(iter(datasets.values())).jobs.loc[shared, "base_text"].tolist()
    row_of = {b: i for i, b in enumerate(shared)}
    feat = make_featurizer(featurizer, seed=seed)
    feat.fit([texts[row_of[b]] for b in ids["train"]])
    x = feat.transform(texts)
    seed_config = replace(config or PiConfig(), seed=seed)
    results = []
    for train_name, train_data in datasets.items():
        solvable = set(train_data.jobs.index[train_data.jobs["solvable"]])
        fold_ids = {r: [b for b in ids[r] if b in solvable] for r in ("train", "val")}
        model = FrailPi(x.shape[1], train_data.doses, seed_config)
        model.fit(
            x,
            dose_counts(train_data.obs, fold_ids["train"], row_of),
            dose_counts(train_data.obs, fold_ids["val"], row_of),
        )
        for test_name, test_data in datasets.items():
            results.append(
                {
                    "train": train_name,
                    "test": test_name,
                    **_score_on(model, x, row_of, test_data, shared, split, ids["test"]),
                }
            )
    return results


def _score_on(
    model: FrailPi, x: np.ndarray, row_of: dict[str, int], data: Dataset, shared: list[str], split, test_ids: list[str]
) -> dict[str, Any]:
    jobs = data.jobs.loc[shared]
    solv_ids = list(jobs.index[jobs["solvable"]])
    p = model.predict_p(x[[row_of[b] for b in solv_ids]])
    pi_hat = pi_from_p(p, data.composition.loc[solv_ids].to_numpy())
    solv = jobs.loc[solv_ids]
    folds = np.array([split.fold_of[b] for b in solv_ids])
    c = solv["C"].to_numpy(dtype=float)
    crd_target, crd_pred = crd_residuals(solv["pi"].to_numpy(), pi_hat, c, folds)
    test = pd.Index(solv_ids).isin(test_ids)
    return {
        "n_test_solvable": int(test.sum()),
        "ccd_spearman": spearman(pi_hat[test], solv.loc[test, "pi"].to_numpy()),
        "crd_spearman": spearman(crd_pred[test], crd_target[test]),
    }
