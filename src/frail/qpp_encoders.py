"""BERTPE and VAP3, the two supervised query-performance-prediction (QPP) encoders of the paper's Table 2 (seed
§"Headline results", §2: "retrained to regress the break event"), fine-tuned here on the job-level targets.

* **BERTPE** (*BertPE: a BERT-based pre-retrieval estimator for query performance prediction*, ECIR 2024): a pre-trained encoder fine-tuned end to end, with a linear head on its pooled output,
  to regress a query's performance from the query text alone. Here the query is the base problem, the encoder the
  bundled MiniLM (mean pooling, as ``frail.encoders``), and the regression target the job's (π, a, b), each
  standardised on the training fold, in one multi-output head with a masked squared loss (b is undefined for
  some jobs). Our retargeting: the published model regresses retrieval effectiveness.
* **VAP3** (*Variation-Aware Prompt Performance Prediction*, SIGIR 2025, on PromptSET): a pre-generation prompt
  performance predictor trained on prompts together with their variations, with adversarial training for
  robustness to trivial rewordings. Our reading (the paper's full recipe was not available to us): each training
  job contributes its base text and ``twins_per_job`` of its twins (resampled every epoch), all carrying the job's
  targets, and each step adds the loss at an adversarial perturbation of the pooled embeddings (the normalised
  loss gradient scaled to ``adversarial_eps``, FGM); a held-out job's prediction is the mean over its base text
  and its first twin at each design dose.

Both train for a fixed ``epochs`` (no early stopping: the paper's baselines report no validation protocol),
AdamW with encoder LR 2e-5 and head LR 1e-3, the recipe of ``frail.models.pi_encoder``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import torch

TARGETS = ("pi", "a", "b")


@dataclass(frozen=True)
class QppTrainConfig:
    """Fine-tuning recipe of BERTPE / VAP3 (CPU defaults)."""

    epochs: int = 3
    batch_size: int = 16
    encoder_lr: float = 2e-5
    head_lr: float = 1e-3
    max_len: int = 128
    twins_per_job: int = 2  # VAP3: variations per job per epoch
    adversarial_eps: float = 0.5  # VAP3: L2 size of the pooled-embedding perturbation
    encoder: str | None = None  # None: the bundled MiniLM


def _standardise(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean, sd = np.nanmean(y, axis=0), np.nanstd(y, axis=0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    return (y - mean) / sd, np.nan_to_num(mean), sd


class QppRegressor:
    """A MiniLM encoder with a linear multi-output head, fine-tuned on (texts, targets) groups."""

    def __init__(self, config: QppTrainConfig, n_out: int, seed: int) -> None:
        import torch

        from frail.encoders import HFFinetune

        torch.manual_seed(seed)
        self.config, self.rng = config, np.random.default_rng(seed)
        self.feat = HFFinetune(seed=seed, encoder=config.encoder, max_len=config.max_len)
        _ = self.feat.module  # loads the encoder and sets its width ``dim``
        self.head = torch.nn.Linear(int(self.feat.dim), n_out).to(self.feat.device_name)

    def _loss(self, emb: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return (((self.head(emb) - y) ** 2) * mask).sum() / mask.sum().clamp(min=1.0)

    def _step(self, texts: list[str], y: np.ndarray, opt: torch.optim.Optimizer, adversarial: bool) -> None:
        import torch

        device = self.feat.device_name
        target = torch.from_numpy(np.nan_to_num(y).astype(np.float32)).to(device)
        mask = torch.from_numpy(np.isfinite(y).astype(np.float32)).to(device)
        emb = self.feat.embed(texts)
        loss = self._loss(emb, target, mask)
        if adversarial:
            (grad,) = torch.autograd.grad(loss, emb, retain_graph=True)
            step = self.config.adversarial_eps * grad / grad.norm(dim=1, keepdim=True).clamp(min=1e-12)
            loss = loss + self._loss(emb + step.detach(), target, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()

    def fit(self, groups: Sequence[Sequence[str]], y: np.ndarray, variations: int) -> QppRegressor:
        """Train on one group of texts per job (the base first, then its variations); ``variations`` > 0 samples
        that many variations per job and epoch and trains adversarially (VAP3), 0 reads the base only (BERTPE)."""
        import torch

        self.y_std, self.mean, self.sd = _standardise(y)
        module = self.feat.module
        module.train()
        opt = torch.optim.AdamW(
            [
                {"params": self.feat.trainable_parameters(), "lr": self.config.encoder_lr},
                {"params": self.head.parameters(), "lr": self.config.head_lr},
            ]
        )
        for _ in range(self.config.epochs):
            order = self.rng.permutation(len(groups))
            for start in range(0, len(groups), self.config.batch_size):
                jobs = order[start : start + self.config.batch_size]
                texts, rows = self._batch(groups, jobs, variations)
                self._step(texts, self.y_std[rows], opt, adversarial=variations > 0)
        module.eval()
        self.feat.jointly_trained = True  # encoder and head were trained together: the encoder may featurize
        return self

    def _batch(self, groups: Sequence[Sequence[str]], jobs: np.ndarray, variations: int) -> tuple[list[str], list[int]]:
        texts, rows = [], []
        for j in jobs:
            group = list(groups[j])
            picked = [group[0]]
            if variations and len(group) > 1:
                picked += [group[1 + i] for i in self.rng.choice(len(group) - 1, size=variations, replace=True)]
            texts += picked
            rows += [int(j)] * len(picked)
        return texts, rows

    def predict(self, groups: Sequence[Sequence[str]]) -> np.ndarray:
        """(n_jobs, n_out) in target units: the mean over each job's texts of the head's output (every text of every
        group embedded in the encoder's length-sorted batches, then averaged per group)."""
        import torch

        texts = [t for group in groups for t in group]
        emb = torch.from_numpy(self.feat.transform(texts)).to(self.feat.device_name)
        with torch.inference_mode():
            out = self.head(emb).float().cpu().numpy()
        starts = np.cumsum([0, *(len(g) for g in groups)])[:-1]
        means = np.add.reduceat(out, starts, axis=0) / np.array([len(g) for g in groups])[:, None]
        return means * self.sd + self.mean


def twin_groups(obs: pd.DataFrame, jobs: pd.DataFrame, per_dose: bool) -> list[list[str]]:
    """Per job, its base text then its twins (all of them, or the first at each dose with ``per_dose``)."""
    part = obs[obs["base_id"].isin(set(jobs.index))]
    if per_dose:
        part = part.drop_duplicates(["base_id", "dose"])
    twins = part.groupby("base_id")["twin_text"].apply(list)
    return [[text, *twins.get(b, [])] for b, text in zip(jobs.index, jobs["base_text"], strict=True)]


def qpp_predictions(
    train: pd.DataFrame,
    test: pd.DataFrame,
    obs: pd.DataFrame,
    targets: list[str],
    seed: int,
    variation_aware: bool,
    config: QppTrainConfig | None = None,
) -> dict[str, np.ndarray | None]:
    """BERTPE (``variation_aware`` False) or VAP3 test-fold predictions of each target of ``TARGETS``."""
    config = config or QppTrainConfig()
    cols = [t for t in targets if t in TARGETS and train[t].notna().sum() >= 3]
    if not cols:
        return dict.fromkeys(targets)
    y = train[cols].to_numpy(dtype=float)
    model = QppRegressor(config, len(cols), seed)
    variations = config.twins_per_job if variation_aware else 0
    model.fit(
        twin_groups(obs, train, per_dose=False) if variation_aware else [[t] for t in train["base_text"]], y, variations
    )
    test_groups = twin_groups(obs, test, per_dose=True) if variation_aware else [[t] for t in test["base_text"]]
    pred = model.predict(test_groups)
    return {t: (pred[:, cols.index(t)] if t in cols else None) for t in targets}
