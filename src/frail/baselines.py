"""Reference predictors (§2 "Featurizers and baselines", §7 step 12), each regressing the same job-level targets on
the same folds as Frail-π:

* ``surface_gbt``: gradient-boosted trees on the surface statistics of the base text;
* ``complexity``: the declared complexity proxy C alone (quadratic least squares);
* ``text_length``: the base text's character length alone (quadratic least squares);
* ``base_y``: the measured base pass rate Ȳ(J) (fraction of epochs correct) where the data carry it;
* ``probe_only`` (``text_probe`` protocol only, passed as an extra baseline): gradient-boosted trees on the base
  probe features alone (``probes.py``), the columns ``probe_<feature>`` of the job frame.

The baselines that need more than one job's row (embeddings, twins, outcome models, fine-tuned encoders) are in
``learned_baselines.py``; ``fit_targets`` is the per-target fit both share.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np
import pandas as pd

from frail.estimands import fit_complexity_regression, predict_complexity_regression
from frail.featurizers import surface_matrix

Features = Callable[[pd.DataFrame], np.ndarray]  # job frame -> (n_jobs, d) inputs
FitPredict = Callable[[np.ndarray, np.ndarray, np.ndarray, int], "np.ndarray | None"]  # (x, y, x_test, seed)


def quadratic(x: np.ndarray, y: np.ndarray, x_test: np.ndarray, seed: int) -> np.ndarray | None:
    """Quadratic least squares on one input; None when that input is missing or constant on the fit rows."""
    x, x_test = x[:, 0], x_test[:, 0]
    if np.isnan(x).any() or np.std(x) == 0:
        return None
    return predict_complexity_regression(fit_complexity_regression(y, x, degree=2), x_test)


def gbt(x: np.ndarray, y: np.ndarray, x_test: np.ndarray, seed: int) -> np.ndarray:
    from sklearn.ensemble import GradientBoostingRegressor

    model = GradientBoostingRegressor(
        n_estimators=150, max_depth=3, learning_rate=0.05, subsample=0.8, random_state=seed
    )
    return model.fit(x, y).predict(x_test)


def _column(values: Callable[[pd.DataFrame], pd.Series]) -> Features:
    return lambda frame: values(frame).to_numpy(dtype=float)[:, None]


BASELINES: dict[str, tuple[Features, FitPredict]] = {
    "surface_gbt": (lambda frame: surface_matrix(frame["base_text"]), gbt),
    "complexity": (_column(lambda f: f["C"]), quadratic),
    "text_length": (_column(lambda f: f["base_text"].str.len()), quadratic),
    "base_y": (_column(lambda f: f["y_base_epoch_mean"]), quadratic),
}


PROBE_PREFIX = "probe_"


def _probe_columns(frame: pd.DataFrame) -> np.ndarray:
    return frame[[c for c in frame.columns if c.startswith(PROBE_PREFIX)]].to_numpy(dtype=float)


PROBE_BASELINES: dict[str, tuple[Features, FitPredict]] = {"probe_only": (_probe_columns, gbt)}


def fit_targets(
    train: pd.DataFrame, x: np.ndarray, x_test: np.ndarray, targets: list[str], fit_predict: FitPredict, seed: int
) -> dict[str, np.ndarray | None]:
    """Each target fitted on the training rows where it is defined (None with fewer than 3 such rows)."""
    out: dict[str, np.ndarray | None] = {}
    for target in targets:
        keep = train[target].notna().to_numpy()
        y = train[target].to_numpy(dtype=float)[keep]
        out[target] = fit_predict(x[keep], y, x_test, seed) if keep.sum() >= 3 else None
    return out


def run_baselines(
    train: pd.DataFrame,
    test: pd.DataFrame,
    targets: list[str],
    seed: int,
    extra: dict[str, tuple[Features, FitPredict]] | None = None,
    names: Collection[str] | None = None,
) -> dict[str, dict[str, np.ndarray | None]]:
    """{baseline: {target: test predictions or None when the baseline's input is unavailable}}; each baseline's
    inputs are computed once and shared by the targets, each target fitted on the training jobs where it is defined.
    ``extra`` adds baselines to ``BASELINES`` (e.g. ``PROBE_BASELINES`` under the text_probe protocol); ``names``
    keeps only those of ``BASELINES`` (None: all of them)."""
    chosen = {n: v for n, v in BASELINES.items() if names is None or n in names}
    return {
        name: fit_targets(train, features(train), features(test), targets, fit_predict, seed)
        for name, (features, fit_predict) in {**chosen, **(extra or {})}.items()
    }
