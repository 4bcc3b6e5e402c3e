"""Frail-τ, the Siamese counterfactual encoder (§2 "Frail-τ / SCE"; §7 steps 6 and 11; config of §9).

A shared encoder maps the base J and the twin T(J) to h and h' from the features of any registered frozen
featurizer, fitted on the training fold's base and twin texts. It is ``linear`` by default (h = W φ(J) + b) or an
``mlp``. With an additive featurizer (``bow_svd``: linear in the word counts) the linear encoder makes
h − h' = W (φ(J) − φ(T(J))) a function of the words the edit changed alone, so the contrast head cannot read the base
problem's complexity from it: this is the "intrinsically complexity-orthogonal" property of §2, here by
construction rather than by hope. A non-linear encoder, or a featurizer that normalises by length (``tfidf_svd``) or
contextualises (``hf_frozen``), lets base content, complexity included, leak into h − h' (measured by
``python -m frail.tau_eval --featurizer tfidf_svd --encoder-kind mlp``). Two heads read it:

* contrast head   Δ̂(J, T) = ψ(h − h'), supervised per observation by Δ(J, T) = Y(J) − Y(T(J));
* ex-ante head    D̂(J) = g(h), supervised by the job's observed D_obs(J) (mean Δ), deployable from the base alone.

Loss (calibration stage): Σ_T Huber(Δ̂, Δ) + Huber(D̂, D_obs) + λ_inv R_inv, where
R_inv = E‖Π_C h − Π_C h'‖² and Π_C is a learned complexity-subspace projection: a linear map to
``complexity_dim`` dimensions trained to predict the declared complexity C from Π_C h (a probe loss), whose
row-normalised weights, held fixed inside R_inv, define the subspace the twins must agree on. Since T keeps C and
the requirements fixed, this pushes the complexity part of h to cancel in h − h', so the contrast head sees surface
form only. Training is the two-stage curriculum: (1) a label-free representation stage, a triplet loss pulling each
twin onto its base and pushing a requirement-changing edit (when given; otherwise another job's base) at least
``triplet_margin`` further away, with the complexity probe and R_inv; (2) a calibration stage on the score labels
of a fraction of the training jobs, early-stopped on the validation fold. The job-level contrast prediction is
τ̂(J) = mean_T Δ̂(J, T); the ex-ante one is D̂(J).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from causal_suite.errors import SuiteInputError


@dataclass
class TauConfig:
    """Frail-τ hyperparameters (CPU defaults; names follow the §9 model/train blocks)."""

    encoder: str = "linear"  # "linear" or "mlp": the shared encoder (see the module docstring)
    hidden: int = 64
    complexity_dim: int = 8
    dropout: float = 0.1
    triplet_margin: float = 0.5
    representation_epochs: int = 30
    representation_lr: float = 1e-3
    calibration_epochs: int = 300
    calibration_lr: float = 1e-3
    weight_decay: float = 1e-2
    batch_size: int = 256
    lambda_inv: float = 1.0
    huber_delta: float = 0.1
    label_fraction: float = 1.0
    patience: int = 30
    seed: int = 0


ENCODERS = ("linear", "mlp")


def mlp(in_dim: int, hidden: int, out_dim: int, dropout: float) -> nn.Sequential:
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, out_dim))


class SiameseTau(nn.Module):
    """Shared encoder, contrast head ψ, ex-ante head g, complexity projection Π_C and its probe."""

    def __init__(self, in_dim: int, config: TauConfig):
        super().__init__()
        if config.encoder not in ENCODERS:
            raise SuiteInputError(
                f"Frail-τ encoder {config.encoder!r} is unknown: choose one of {', '.join(ENCODERS)}."
            )
        self.encoder = (
            nn.Linear(in_dim, config.hidden)
            if config.encoder == "linear"
            else mlp(in_dim, config.hidden, config.hidden, config.dropout)
        )
        self.contrast = mlp(config.hidden, config.hidden, 1, config.dropout)
        self.ex_ante = mlp(config.hidden, config.hidden, 1, config.dropout)
        self.projection = nn.Linear(config.hidden, config.complexity_dim, bias=False)
        self.probe = nn.Linear(config.complexity_dim, 1)

    def complexity_subspace(self) -> torch.Tensor:
        """Π_C as row-normalised projection weights, detached: R_inv shapes the encoder, not the subspace."""
        w = self.projection.weight.detach()
        return w / w.norm(dim=1, keepdim=True).clamp(min=1e-8)

    def invariance(self, h: torch.Tensor, h_twin: torch.Tensor) -> torch.Tensor:
        """R_inv = mean ‖Π_C h − Π_C h'‖²."""
        return ((h - h_twin) @ self.complexity_subspace().T).pow(2).sum(dim=1).mean()

    def complexity_loss(self, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        """The probe reading standardised C from Π_C h: what makes Π_C the complexity subspace."""
        return nn.functional.mse_loss(self.probe(self.projection(h)).squeeze(-1), c)


def triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, margin: float) -> torch.Tensor:
    """max(0, ‖a − p‖ − ‖a − n‖ + margin), averaged: twins close to their base, other requirements further away."""
    return nn.functional.triplet_margin_loss(anchor, positive, negative, margin=margin)


@dataclass
class TauData:
    """Per observation: base features, twin features, Δ, job index; per job: C (standardised inside the model)."""

    x_base: np.ndarray
    x_twin: np.ndarray
    delta: np.ndarray
    job: np.ndarray
    c_job: np.ndarray
    x_negative: np.ndarray | None = None  # requirement-changing edits, one per observation, when available


class FrailTau:
    """Train (two-stage curriculum) and predict Frail-τ over fixed base/twin feature matrices."""

    seconds: float  # wall time of the fit, set by frail.tau_eval

    def __init__(self, in_dim: int, config: TauConfig | None = None):
        self.config = config or TauConfig()
        torch.manual_seed(self.config.seed)
        self.net = SiameseTau(in_dim, self.config)
        self.history: dict[str, list[float]] = {"representation": [], "calibration_train": [], "calibration_val": []}

    def _c(self, data: TauData, idx: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(((data.c_job[data.job[idx]] - self._c_mean) / self._c_sd).astype(np.float32))

    def _negatives(self, data: TauData, idx: np.ndarray, xb: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        if data.x_negative is not None:
            return torch.from_numpy(data.x_negative[idx].astype(np.float32))
        # another job's base: a different problem, hence different requirements
        jobs = data.job[idx]
        perm = torch.randperm(len(idx), generator=gen).numpy()
        same = jobs[perm] == jobs
        perm[same] = np.roll(np.arange(len(idx)), 1)[same]
        return xb[perm]

    def representation_stage(self, data: TauData, gen: torch.Generator) -> None:
        """Stage 1, label-free: triplet + complexity probe + λ_inv R_inv."""
        cfg = self.config
        opt = torch.optim.Adam(self.net.parameters(), lr=cfg.representation_lr)
        n = len(data.delta)
        xb_all, xt_all = (torch.from_numpy(a.astype(np.float32)) for a in (data.x_base, data.x_twin))
        for _ in range(cfg.representation_epochs):
            self.net.train()
            total = 0.0
            for idx in torch.randperm(n, generator=gen).split(cfg.batch_size):
                idx = idx.numpy()
                xb, xt = xb_all[idx], xt_all[idx]
                h, h_twin = self.net.encoder(xb), self.net.encoder(xt)
                h_neg = self.net.encoder(self._negatives(data, idx, xb, gen))
                loss = (
                    triplet_loss(h, h_twin, h_neg, cfg.triplet_margin)
                    + self.net.complexity_loss(h, self._c(data, idx))
                    + cfg.lambda_inv * self.net.invariance(h, h_twin)
                )
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
            self.history["representation"].append(total / n)

    def _calibration_loss(self, data: TauData, idx: np.ndarray, d_obs: np.ndarray) -> torch.Tensor:
        cfg = self.config
        xb = torch.from_numpy(data.x_base[idx].astype(np.float32))
        xt = torch.from_numpy(data.x_twin[idx].astype(np.float32))
        h, h_twin = self.net.encoder(xb), self.net.encoder(xt)
        huber = nn.functional.huber_loss
        delta = torch.from_numpy(data.delta[idx].astype(np.float32))
        target_job = torch.from_numpy(d_obs[data.job[idx]].astype(np.float32))
        return (
            huber(self.net.contrast(h - h_twin).squeeze(-1), delta, delta=cfg.huber_delta)
            + huber(self.net.ex_ante(h).squeeze(-1), target_job, delta=cfg.huber_delta)
            + cfg.lambda_inv * self.net.invariance(h, h_twin)
            + self.net.complexity_loss(h, self._c(data, idx))
        )

    @staticmethod
    def _d_obs(data: TauData) -> np.ndarray:
        sums = np.bincount(data.job, weights=data.delta, minlength=len(data.c_job))
        counts = np.bincount(data.job, minlength=len(data.c_job))
        return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)

    def fit(self, train: TauData, val: TauData) -> FrailTau:
        """Stage 1 on all training observations, then stage 2 on the labelled fraction, early-stopped on ``val``."""
        if len(train.delta) == 0 or len(val.delta) == 0:
            raise SuiteInputError("Frail-τ needs twin observations in both the training and validation folds.")
        cfg = self.config
        gen = torch.Generator().manual_seed(cfg.seed)
        c_train = train.c_job[np.unique(train.job)]
        self._c_mean, self._c_sd = float(c_train.mean()), float(c_train.std() or 1.0)
        self.representation_stage(train, gen)

        rng = np.random.default_rng(cfg.seed)
        jobs = np.unique(train.job)
        labelled = rng.choice(jobs, size=max(1, int(round(cfg.label_fraction * len(jobs)))), replace=False)
        rows = np.flatnonzero(np.isin(train.job, labelled))
        d_train, d_val = self._d_obs(train), self._d_obs(val)
        opt = torch.optim.AdamW(self.net.parameters(), lr=cfg.calibration_lr, weight_decay=cfg.weight_decay)
        best, best_state, stale = float("inf"), copy.deepcopy(self.net.state_dict()), 0
        val_rows = np.arange(len(val.delta))
        for _ in range(cfg.calibration_epochs):
            self.net.train()
            total = 0.0
            for part in torch.from_numpy(rows)[torch.randperm(len(rows), generator=gen)].split(cfg.batch_size):
                loss = self._calibration_loss(train, part.numpy(), d_train)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(part)
            self.net.eval()
            with torch.no_grad():
                val_loss = float(self._calibration_loss(val, val_rows, d_val))
            self.history["calibration_train"].append(total / len(rows))
            self.history["calibration_val"].append(val_loss)
            if val_loss < best - 1e-6:
                best, best_state, stale = val_loss, copy.deepcopy(self.net.state_dict()), 0
            else:
                stale += 1
                if stale >= cfg.patience:
                    break
        self.net.load_state_dict(best_state)
        self.net.eval()
        return self

    def predict(self, data: TauData) -> dict[str, np.ndarray]:
        """Per observation Δ̂ ('contrast_obs'); per job (rows of ``c_job``) τ̂ = mean Δ̂ ('contrast') and D̂ ('ex_ante')."""
        self.net.eval()
        with torch.no_grad():
            xb = torch.from_numpy(data.x_base.astype(np.float32))
            h, h_twin = self.net.encoder(xb), self.net.encoder(torch.from_numpy(data.x_twin.astype(np.float32)))
            obs = self.net.contrast(h - h_twin).squeeze(-1).numpy()
            ex_obs = self.net.ex_ante(h).squeeze(-1).numpy()
        n_jobs = len(data.c_job)
        counts = np.bincount(data.job, minlength=n_jobs)
        with np.errstate(invalid="ignore"):
            contrast = np.bincount(data.job, weights=obs, minlength=n_jobs) / counts
            ex_ante = np.bincount(data.job, weights=ex_obs, minlength=n_jobs) / counts
        return {"contrast_obs": obs, "contrast": contrast, "ex_ante": ex_ante}
