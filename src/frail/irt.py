"""Amortized item response theory for the break event (§2 "Featurizers and baselines": amortized IRT).

A Rasch (one-parameter logistic) model of the solver's outcomes on the twins of its solved problems: problem J is
the item, the perturbation dose m plays the respondent, and

    logit P(B = 1 | J, m) = β_J + θ_m,

β_J the item's difficulty-to-keep-solved (its fragility) and θ_m the dose's strength (θ at the first design dose is
0, the model's reference). *Amortized*: β_J is not a free parameter per item but a linear function of the item's
text embedding x_J, β_J = w·x_J + w_0, fitted jointly with θ by L2-penalised maximum likelihood on the training
fold's per-(job, dose) break counts, so the model predicts the difficulty of held-out problems it never saw
answered. Our reading of "amortized IRT" (the seed names it without a formula): the single solver gives one
response per twin, so the doses take the respondents' place; the slope is shared by all items (Rasch), which is
why this model has no per-job dose slope b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from causal_suite.errors import SuiteInputError

DEFAULT_L2 = 1.0  # inverse of sklearn's C: the penalty on w and θ


@dataclass(frozen=True)
class AmortizedRasch:
    """A fitted model: difficulty weights (w, w_0) over the text embedding and the dose effects θ_m."""

    weights: np.ndarray
    intercept: float
    dose_effects: np.ndarray  # θ_m per design dose, θ at the first dose = 0
    doses: tuple[int, ...]

    def difficulty(self, x: np.ndarray) -> np.ndarray:
        """β̂_J = w·x_J + w_0 for each row of ``x``."""
        return np.asarray(x, dtype=float) @ self.weights + self.intercept

    def break_probability(self, x: np.ndarray) -> np.ndarray:
        """p(J, m) = σ(β̂_J + θ_m): one row per job, one column per design dose."""
        return np.asarray(expit(self.difficulty(x)[:, None] + self.dose_effects[None, :]))


def fit_amortized_rasch(
    x: np.ndarray,
    job_row: np.ndarray,
    dose: np.ndarray,
    breaks: np.ndarray,
    trials: np.ndarray,
    doses: list[int],
    l2: float = DEFAULT_L2,
) -> AmortizedRasch:
    """Fit on per-(job, dose) counts: ``breaks`` of ``trials`` twins of job ``x[job_row]`` at dose ``dose``."""
    from sklearn.linear_model import LogisticRegression

    breaks, trials = np.asarray(breaks, dtype=float), np.asarray(trials, dtype=float)
    if breaks.sum() == 0 or breaks.sum() == trials.sum():
        raise SuiteInputError("amortized IRT needs both broken and kept twins in the training fold; it has one kind.")
    index = {m: i for i, m in enumerate(doses)}
    one_hot = np.zeros((len(dose), len(doses)))
    one_hot[np.arange(len(dose)), [index[int(m)] for m in dose]] = 1.0
    design = np.hstack([np.asarray(x, dtype=float)[job_row], one_hot[:, 1:]])
    # each (job, dose) cell enters twice: as a break with weight k and as a kept twin with weight n - k
    features = np.vstack([design, design])
    labels = np.concatenate([np.ones(len(design)), np.zeros(len(design))])
    weights = np.concatenate([breaks, trials - breaks])
    model = LogisticRegression(C=1.0 / l2, max_iter=2000)
    model.fit(features, labels, sample_weight=weights)
    d = np.asarray(x).shape[1]
    return AmortizedRasch(
        weights=model.coef_[0, :d].copy(),
        intercept=float(model.intercept_[0]),
        dose_effects=np.concatenate([[0.0], model.coef_[0, d:]]),
        doses=tuple(doses),
    )
