"""Frail-π (§2): the per-perturbation break probability p(job, m) = sigmoid(f([x_job, dose_features(m)])).

f is bilinear in the dose features: an MLP maps the job's text features to one coefficient per dose feature and
f = Σ_k g_k(x_job) φ_k(m), with φ(m) = (1, (m - m̄)/s). This is the logistic dose response of §1 with a job-specific
intercept and slope read off the text; a free-form MLP over [x, φ(m)] tends to learn dose effects that are additive
in the wrong scale, which turns the fitted slopes against the true ones. It is trained with binary cross-entropy on
every (job, twin) observation of the training fold's solvable stratum (Y(J) = 1), early-stopped on the validation
fold's BCE. Observations sharing (job, dose) share their input, so the loss is computed on the per-(job, dose)
counts: k breaks out of n twins contribute n·softplus(z) - k·z, which equals the sum of their n per-observation
BCE terms exactly. Job-level targets come from p in closed form: π is p averaged over the job's dose composition,
(a, b) the least-squares fit of logit p(job, m) = a + b (m - m̄) over the design doses, and the budget-K worst case
1 - (1 - p)^K.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.jsonl import DATA_LIMIT, require_regular_file
from frail.estimands import logit_dose_fit
from frail.splits import Split, write_sidecar

Progress = Callable[[int, int, float, float], None]


@dataclass
class PiConfig:
    """Frail-π hyperparameters (CPU defaults)."""

    hidden: int = 64
    dropout: float = 0.3
    lr: float = 1e-3
    weight_decay: float = 1e-2
    batch_size: int = 256
    max_epochs: int = 200
    patience: int = 20
    seed: int = 0


def dose_features(doses: np.ndarray, m_bar: float, scale: float) -> np.ndarray:
    """φ(m) = [1, (m - m̄)/s]: intercept and centred, scaled dose (s = half the design's dose range)."""
    z = (np.asarray(doses, dtype=float) - m_bar) / scale
    return np.column_stack([np.ones_like(z), z]).astype(np.float32)


N_DOSE_FEATURES = 2


class PiHead(nn.Module):
    """f([x, φ(m)]) = Σ_k g_k(x) φ_k(m), g a one-hidden-layer ReLU MLP with one output per dose feature."""

    def __init__(self, in_dim: int, hidden: int, dropout: float):
        super().__init__()
        self.in_dim = in_dim
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, N_DOSE_FEATURES)
        )

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        x, phi = inputs[:, : self.in_dim], inputs[:, self.in_dim :]
        return (self.net(x) * phi).sum(dim=-1)


@dataclass
class DoseCounts:
    """Break counts per (job, dose): row ``job`` of the feature matrix, k breaks of n twins at dose m."""

    job: np.ndarray
    dose: np.ndarray
    k: np.ndarray
    n: np.ndarray


def binomial_bce(logits: torch.Tensor, k: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    """Sum over observations of BCE(sigmoid(z), B), from the counts: n·softplus(z) - k·z."""
    return (n * nn.functional.softplus(logits) - k * logits).sum()


class FrailPi:
    """Train, predict and save Frail-π over a fixed feature matrix (frozen featurizers)."""

    epoch_seconds: list[float]  # wall time of each joint encoder epoch, set by fit_pi_with_encoder

    def __init__(self, in_dim: int, doses: list[int], config: PiConfig | None = None):
        self.config = config or PiConfig()
        self.doses = sorted(doses)
        self.m_bar = float(np.mean(self.doses))
        self.scale = max(1.0, (max(self.doses) - min(self.doses)) / 2)
        torch.manual_seed(self.config.seed)
        self.head = PiHead(in_dim, self.config.hidden, self.config.dropout)
        self.history: list[tuple[int, float, float]] = []
        self.probe: Any = None  # text_probe protocol: the ProbeStandardiser of the training fold (set by load)

    @property
    def protocol(self) -> str:
        """``text`` (problem statement only) or ``text_probe`` (its input ends with standardised probe features)."""
        return "text" if self.probe is None else "text_probe"

    def _inputs(self, x: np.ndarray, jobs: np.ndarray, doses: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.hstack([x[jobs], dose_features(doses, self.m_bar, self.scale)]))

    def _loss(self, x: np.ndarray, counts: DoseCounts) -> float:
        self.head.eval()
        with torch.no_grad():
            z = self.head(self._inputs(x, counts.job, counts.dose))
            total = binomial_bce(z, torch.from_numpy(counts.k), torch.from_numpy(counts.n))
        return float(total) / float(counts.n.sum())

    def fit(self, x: np.ndarray, train: DoseCounts, val: DoseCounts, progress: Progress | None = None) -> FrailPi:
        """Per-observation BCE on ``train``, Adam, early stopping on ``val`` BCE; keeps the best validation state."""
        if train.n.sum() == 0 or val.n.sum() == 0:
            raise SuiteInputError("Frail-π needs solvable-stratum twins in both the training and validation folds.")
        cfg = self.config
        gen = torch.Generator().manual_seed(cfg.seed)
        x = x.astype(np.float32)
        inputs = self._inputs(x, train.job, train.dose)
        k, n = torch.from_numpy(train.k.astype(np.float32)), torch.from_numpy(train.n.astype(np.float32))
        val = DoseCounts(val.job, val.dose, val.k.astype(np.float32), val.n.astype(np.float32))
        opt = torch.optim.Adam(self.head.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        best, best_state, stale = float("inf"), copy.deepcopy(self.head.state_dict()), 0
        for epoch in range(1, cfg.max_epochs + 1):
            self.head.train()
            order = torch.randperm(len(inputs), generator=gen)
            running = 0.0
            for start in range(0, len(order), cfg.batch_size):
                idx = order[start : start + cfg.batch_size]
                loss = binomial_bce(self.head(inputs[idx]), k[idx], n[idx]) / n[idx].sum().clamp(min=1.0)
                opt.zero_grad()
                loss.backward()
                opt.step()
                running += float(loss.detach()) * float(n[idx].sum())
            train_loss, val_loss = running / float(n.sum()), self._loss(x, val)
            self.history.append((epoch, train_loss, val_loss))
            if progress:
                progress(epoch, cfg.max_epochs, train_loss, val_loss)
            if val_loss < best - 1e-5:
                best, best_state, stale = val_loss, copy.deepcopy(self.head.state_dict()), 0
            else:
                stale += 1
                if stale >= cfg.patience:
                    break
        self.head.load_state_dict(best_state)
        self.best_val_loss = best
        return self

    def predict_p(self, x: np.ndarray) -> np.ndarray:
        """p(job, m) for every row of ``x`` and every design dose: shape (n_jobs, n_doses)."""
        self.head.eval()
        n_jobs, n_doses = len(x), len(self.doses)
        jobs = np.repeat(np.arange(n_jobs), n_doses)
        doses = np.tile(np.array(self.doses), n_jobs)
        with torch.no_grad():
            z = self.head(self._inputs(x.astype(np.float32), jobs, doses))
        return torch.sigmoid(z).numpy().reshape(n_jobs, n_doses)

    def save(self, path: str | Path, split: Split, featurizer: Any, probe: Any = None) -> Path:
        """Save weights, config and the fitted featurizer, and the split sidecar naming the ids it saw; a
        text_probe model also saves the protocol, its probe feature names and the training fold's standardiser
        (``probe``, a ``ProbeStandardiser``), which evaluation needs to rebuild its input."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        protocol = "text" if probe is None else "text_probe"
        torch.save(
            {
                "state": self.head.state_dict(),
                "config": asdict(self.config),
                "doses": self.doses,
                "in_dim": self.head.in_dim,
                "featurizer": featurizer,
                "protocol": protocol,
                "probe": None if probe is None else asdict(probe),
            },
            tmp,
        )
        tmp.replace(out)
        write_sidecar(out, split, {"featurizer": getattr(featurizer, "name", ""), "protocol": protocol})
        return out

    @classmethod
    def load(cls, path: str | Path) -> tuple[FrailPi, Any]:
        """(model, featurizer); ``model.probe`` is the saved ProbeStandardiser of a text_probe model, else None."""
        from frail.probes import ProbeStandardiser

        where = f"saved Frail-π model '{path}'"
        p = require_regular_file(require_file(path, "saved Frail-π model"), where, DATA_LIMIT)
        try:
            blob = torch.load(p, weights_only=False)
        except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as exc:
            raise SuiteInputError(f"{where} is not a file torch can load ({exc}).") from None
        if not isinstance(blob, dict) or not {"in_dim", "doses", "config", "state", "featurizer"} <= set(blob):
            raise SuiteInputError(f"{where} is not a model saved by `frail report --save-models`.")
        model = cls(blob["in_dim"], blob["doses"], PiConfig(**blob["config"]))
        model.head.load_state_dict(blob["state"])
        if blob.get("probe") is not None:
            model.probe = ProbeStandardiser(**blob["probe"])
        return model, blob["featurizer"]


def pi_from_p(p: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """π̂(J) = Σ_m w_m(J) p(J, m): p averaged over the job's dose composition (rows of ``weights`` sum to 1)."""
    return (np.asarray(p) * np.asarray(weights)).sum(axis=1)


def dose_response_from_p(p: np.ndarray, doses: list[int], m_bar: float) -> tuple[np.ndarray, np.ndarray]:
    """(â, b̂) per job: least-squares fit of logit p(J, m) = a + b (m - m̄) over the design doses."""
    eps = 1e-6
    logits = np.log(np.clip(p, eps, 1 - eps) / np.clip(1 - p, eps, 1 - eps))
    fits = [logit_dose_fit(row, np.array(doses), m_bar) for row in logits]
    return np.array([f[0] for f in fits]), np.array([f[1] for f in fits])


def budget_k(p: np.ndarray, k: int | np.ndarray) -> np.ndarray:
    """Probability that at least one of K independent twins breaks the job: 1 - (1 - p)^K."""
    return 1.0 - (1.0 - np.asarray(p)) ** np.asarray(k)
