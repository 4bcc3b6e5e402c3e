"""Reference predictors (§2 "Featurizers and baselines", §7 step 12), each regressing the same job-level targets on
the same folds as Frail-π:

* ``surface_gbt``: gradient-boosted trees on the surface statistics of the base text;
* ``complexity``: the declared complexity proxy C alone (quadratic least squares);
* ``text_length``: the base text's character length alone (quadratic least squares);
* ``base_y``: the measured base pass rate Ȳ(J) (fraction of epochs correct) where the data carry it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from .estimands import fit_complexity_regression, predict_complexity_regression
from .featurizers import surface_features

BaselineFn = Callable[[pd.DataFrame, pd.DataFrame, str, int], "np.ndarray | None"]


def _one_dimensional(column: Callable[[pd.DataFrame], np.ndarray]) -> BaselineFn:
    def fit_predict(train: pd.DataFrame, test: pd.DataFrame, target: str, seed: int) -> np.ndarray | None:
        x = column(train)
        if np.isnan(x).any() or np.std(x) == 0:
            return None
        params = fit_complexity_regression(train[target].to_numpy(), x, degree=2)
        return predict_complexity_regression(params, column(test))

    return fit_predict


def surface_gbt(train: pd.DataFrame, test: pd.DataFrame, target: str, seed: int) -> np.ndarray:
    from sklearn.ensemble import GradientBoostingRegressor

    def feats(frame: pd.DataFrame) -> np.ndarray:
        return np.array([surface_features(t) for t in frame["base_text"]], dtype=float)

    model = GradientBoostingRegressor(n_estimators=150, max_depth=3, learning_rate=0.05, subsample=0.8, random_state=seed)
    model.fit(feats(train), train[target].to_numpy())
    return model.predict(feats(test))


BASELINES: dict[str, BaselineFn] = {
    "surface_gbt": surface_gbt,
    "complexity": _one_dimensional(lambda f: f["C"].to_numpy(dtype=float)),
    "text_length": _one_dimensional(lambda f: f["base_text"].str.len().to_numpy(dtype=float)),
    "base_y": _one_dimensional(lambda f: f["y_base_epoch_mean"].to_numpy(dtype=float)),
}


def run_baselines(train: pd.DataFrame, test: pd.DataFrame, targets: list[str], seed: int) -> dict[str, dict[str, np.ndarray | None]]:
    """{baseline: {target: test predictions or None when the baseline's input is unavailable}}."""
    out: dict[str, dict[str, np.ndarray | None]] = {}
    for name, fn in BASELINES.items():
        out[name] = {}
        for target in targets:
            fit_rows = train[train[target].notna()]
            out[name][target] = fn(fit_rows, test, target, seed) if len(fit_rows) >= 3 else None
    return out
