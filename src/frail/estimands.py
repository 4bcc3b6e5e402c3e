"""The estimands of §1: break event, CCD π on the solvable stratum, U-CCD, worst case, dose response, CRD.

Definitions (*Fragility Is Not Reducible to Hardness: Conditional Causal Difficulty for LLMs*, arXiv:2611.02065, §1):

* break event B(J, T) = 1{Y(J) = 1 and Y(T(J)) = 0};
* CCD π(J) = E_T[B(J, T) | Y(J) = 1]: the fraction of J's twins that break it, defined only when Y(J) = 1
  (the Y(J) = 0 stratum is censored, not robust);
  B, π and the fragility threshold are those of ``causal_suite.fragility``, shared with the glass metrics;
* U-CCD D_avg(J) = E_T[Y(J) - Y(T(J))] over all jobs (the control target) and the worst case max_T Delta(J, T);
* dose response logit Pr[B = 1 | m] = a_J + b_J (m - m̄), m̄ the mean of the design's distinct doses;
* CRD D⊥(J) = Q(J) - m̂(C(J)) with m̂ the out-of-fold regression of Q on the declared complexity C (cross-fitted on
  the folds the evaluation uses), and the orthogonality diagnostics Corr(target, C), Corr(pred, C), Corr(pred, C²).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from causal_suite import fragility
from causal_suite.errors import SuiteInputError
from frail.pairs import PairObservation
from glass_inspect.corpus import IDENTITY  # the placebo twin family, excluded from every estimand

EMPIRICAL_LOGIT_PRIOR = 0.5  # Haldane-Anscombe correction: logit((k + 0.5) / (n + 1)) stays finite at k = 0 or n


def break_event(y_base: np.ndarray, y_twin: np.ndarray) -> np.ndarray:
    """B = 1{Y(J) = 1 and Y(T(J)) = 0} (``causal_suite.fragility.break_event``), elementwise, as 0.0 / 1.0."""
    return np.asarray(fragility.break_event(np.asarray(y_base), np.asarray(y_twin))).astype(float)


def observations_frame(rows: list[PairObservation], include_identity: bool = False) -> pd.DataFrame:
    """One row per observation with Delta and B; identity (placebo) twins are dropped unless asked for."""
    frame = pd.DataFrame(
        {
            "base_id": [r.base_id for r in rows],
            "twin_id": [r.twin_id for r in rows],
            "family": [r.family for r in rows],
            "dose": [r.dose for r in rows],
            "C": [r.complexity_score for r in rows],
            "y_base": [r.y_base for r in rows],
            "y_twin": [r.y_twin for r in rows],
            "base_text": [r.base_text for r in rows],
            "twin_text": [r.twin_text for r in rows],
            "y_base_epoch_mean": [np.nan if r.y_base_epoch_mean is None else r.y_base_epoch_mean for r in rows],
        }
    )
    if not include_identity:
        frame = frame[frame["family"] != IDENTITY].reset_index(drop=True)
    if frame.empty:
        raise SuiteInputError("the pairs hold no non-identity twins: nothing to estimate.")
    inconsistent = frame.groupby("base_id")["y_base"].nunique()
    if (inconsistent > 1).any():
        bad = inconsistent[inconsistent > 1].index[0]
        raise SuiteInputError(f"base {bad!r} has different Y(J) values across its rows: the pairs mix runs.")
    frame["delta"] = frame["y_base"] - frame["y_twin"]
    frame["B"] = break_event(frame["y_base"].to_numpy(), frame["y_twin"].to_numpy())
    return frame


def design_dose_centre(doses: np.ndarray) -> float:
    """m̄: the mean of the distinct doses of the design (5 for {1, 3, 5, 7, 9})."""
    return float(np.mean(np.unique(doses)))


def logit_dose_fit(logits: np.ndarray, doses: np.ndarray, m_bar: float) -> tuple[float, float]:
    """Least-squares fit of logit p = a + b (m - m̄) over the doses given; b is NaN with fewer than two doses."""
    x = np.asarray(doses, dtype=float) - m_bar
    y = np.asarray(logits, dtype=float)
    if len(np.unique(x)) < 2:
        return (float(y.mean()) if len(y) else float("nan")), float("nan")
    b = float(np.sum((x - x.mean()) * (y - y.mean())) / np.sum((x - x.mean()) ** 2))
    return float(y.mean() - b * x.mean()), b


def empirical_logit(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """logit((k + 0.5) / (n + 1)): the measured per-dose break logit, finite when k = 0 or k = n."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    return np.log((k + EMPIRICAL_LOGIT_PRIOR) / (n - k + EMPIRICAL_LOGIT_PRIOR))


def job_targets(obs: pd.DataFrame, m_bar: float | None = None) -> pd.DataFrame:
    """Per-job targets: Y(J), π (NaN off the solvable stratum), D_avg, worst case, (a, b), dose composition."""
    m_bar = design_dose_centre(obs["dose"].to_numpy()) if m_bar is None else m_bar
    grouped = obs.groupby("base_id", sort=True)
    jobs = grouped.agg(
        C=("C", "first"),
        base_text=("base_text", "first"),
        y_base=("y_base", "first"),
        y_base_epoch_mean=("y_base_epoch_mean", "first"),
        n_twins=("B", "size"),
        n_breaks=("B", "sum"),
        d_avg=("delta", "mean"),
        d_wc=("delta", "max"),
    )
    jobs["solvable"] = fragility.solved(jobs["y_base"])
    jobs["pi"] = fragility.pi_from_counts(jobs["n_breaks"], jobs["n_twins"], jobs["y_base"])
    per_dose = obs.groupby(["base_id", "dose"])["B"].agg(["sum", "size"])
    a_vals, b_vals = [], []
    for base_id, solvable in jobs["solvable"].items():
        if not solvable:
            a_vals.append(np.nan)
            b_vals.append(np.nan)
            continue
        table = per_dose.loc[base_id]
        a, b = logit_dose_fit(empirical_logit(table["sum"], table["size"]), table.index.to_numpy(), m_bar)
        a_vals.append(a)
        b_vals.append(b)
    jobs["a"], jobs["b"] = a_vals, b_vals
    jobs.attrs["m_bar"] = m_bar
    return jobs


def dose_composition(obs: pd.DataFrame, doses: list[int]) -> pd.DataFrame:
    """Per job, the share of its twins at each design dose (the weights that aggregate p(J, m) to π)."""
    counts = obs.groupby(["base_id", "dose"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=doses, fill_value=0)
    return counts.div(counts.sum(axis=1), axis=0)


def polynomial_design(c: np.ndarray, degree: int) -> np.ndarray:
    c = np.asarray(c, dtype=float)
    return np.column_stack([c**d for d in range(degree + 1)])


def fit_complexity_regression(q: np.ndarray, c: np.ndarray, degree: int = 2) -> np.ndarray:
    """OLS coefficients of Q on (1, C, ..., C^degree) through statsmodels; the degree drops to what the data allow."""
    import statsmodels.api as sm

    degree = max(0, min(degree, len(np.unique(c)) - 1))
    return sm.OLS(np.asarray(q, dtype=float), polynomial_design(c, degree)).fit().params


def predict_complexity_regression(params: np.ndarray, c: np.ndarray) -> np.ndarray:
    return polynomial_design(c, len(params) - 1) @ params


def cross_fitted_residual(
    q: np.ndarray, c: np.ndarray, folds: np.ndarray, degree: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """D⊥ = Q - m̂(C), where m̂ for fold k is fitted on the other folds only (no own-observation leakage).

    Returns (residual, m̂). ``folds`` are the evaluation's fold labels, so the residualisation shares its folds.
    """
    q, c, folds = np.asarray(q, dtype=float), np.asarray(c, dtype=float), np.asarray(folds)
    fitted = np.full(len(q), np.nan)
    for k in np.unique(folds):
        held = folds == k
        if (~held).sum() < 2:
            raise SuiteInputError(f"cross-fitting needs observations outside fold {k}: too few jobs for CRD.")
        params = fit_complexity_regression(q[~held], c[~held], degree)
        fitted[held] = predict_complexity_regression(params, c[held])
    return q - fitted, fitted


def crd_residuals(
    pi: np.ndarray, pi_hat: np.ndarray, c: np.ndarray, folds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(measured D⊥, predicted D⊥): π and π̂ each residualised on C, cross-fitted on the same folds."""
    target, _ = cross_fitted_residual(pi, c, folds)
    pred, _ = cross_fitted_residual(pi_hat, c, folds)
    return target, pred


def pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson correlation, or None when either side is constant or fewer than three points."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def spearman(pred: np.ndarray, target: np.ndarray) -> float | None:
    """Spearman ρ over the finite pairs, or None when fewer than three or either side is constant."""
    from scipy import stats

    pred, target = np.asarray(pred, dtype=float), np.asarray(target, dtype=float)
    keep = np.isfinite(pred) & np.isfinite(target)
    if keep.sum() < 3 or np.ptp(pred[keep]) == 0 or np.ptp(target[keep]) == 0:
        return None
    return float(stats.spearmanr(pred[keep], target[keep]).statistic)


def orthogonality_diagnostics(target: np.ndarray, pred: np.ndarray, c: np.ndarray) -> dict[str, float | None]:
    """Corr(target, C), Corr(pred, C), Corr(pred, C²): how much of the complexity proxy each side still carries."""
    c = np.asarray(c, dtype=float)
    return {
        "corr_target_C": pearson(target, c),
        "corr_pred_C": pearson(pred, c),
        "corr_pred_C2": pearson(pred, c**2),
    }
