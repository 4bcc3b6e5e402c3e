"""Frail-π with a trainable encoder (§2: ``--featurizer hf_finetune`` / ``hf_lora``; §7 step 5 recipe).

The model is the one of ``models/pi.py``, p(job, m) = sigmoid(f([x_job, φ(m)])), except that x_job is the pooled
embedding of a trainable encoder and the encoder is updated together with the head: AdamW with two parameter groups
(encoder LR 2e-5 for full fine-tuning, the adapters' LR for LoRA; head LR 1e-3), optionally after warm-starting
the head on the untrained embeddings, the same per-observation BCE over
the per-(job, dose) break counts, ``jobs_per_batch`` jobs per optimiser step accumulated over encoder micro-batches
of ``microbatch`` jobs (the loss is a sum over jobs, so accumulation gives the full-batch gradient), and early
stopping on the validation fold's BCE, restoring the best encoder and head weights.

Under the text_probe protocol the head also reads fixed per-job columns (``extra``: the standardised base probes),
appended to the embedding exactly as on the frozen path; the encoder sees only the text.

The result is an ordinary ``FrailPi`` whose head reads the fine-tuned featurizer's ``transform`` output, so
prediction, the closed-form targets and ``FrailPi.save`` (which pickles the featurizer with its trained weights and
writes the split sidecar) are shared with the frozen path.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np
import torch

from causal_suite.errors import SuiteInputError
from frail.models.pi import DoseCounts, FrailPi, PiConfig, Progress, binomial_bce, dose_features


@dataclass
class EncoderTrainConfig:
    """Joint-training recipe; ``encoder_lr`` None takes the featurizer's default (2e-5 full, 1e-3 LoRA).

    ``warm_start_head``: first fit the head alone on the untrained encoder's embeddings (``FrailPi.fit``, a linear-
    probe-then-fine-tune start), so the few joint steps a small corpus allows refine a fitted head instead of a
    random one; the warm-started state is also the state to beat for early stopping.
    """

    encoder_lr: float | None = None
    head_lr: float = 1e-3
    jobs_per_batch: int = 64
    microbatch: int = 16
    max_epochs: int = 20
    patience: int = 5
    warm_start_head: bool = True


def _job_rows(counts: DoseCounts) -> dict[int, np.ndarray]:
    """Row indices of ``counts`` per job index."""
    order = np.argsort(counts.job, kind="stable")
    jobs, starts = np.unique(counts.job[order], return_index=True)
    return {int(j): rows for j, rows in zip(jobs, np.split(order, starts[1:]), strict=False)}


class _JointTrainer:
    def __init__(self, featurizer, texts: list[str], model: FrailPi, enc: EncoderTrainConfig, extra: np.ndarray):
        self.feat, self.texts, self.model, self.enc = featurizer, texts, model, enc
        self.device = featurizer.device_name
        self.extra = torch.from_numpy(extra.astype(np.float32)).to(self.device)  # (n_texts, k) fixed columns
        model.head.to(self.device)

    def _phi(self, counts: DoseCounts, rows: np.ndarray) -> torch.Tensor:
        phi = dose_features(counts.dose[rows], self.model.m_bar, self.model.scale)
        return torch.from_numpy(phi).to(self.device)

    def _logits(self, emb: torch.Tensor, local: np.ndarray, counts: DoseCounts, rows: np.ndarray) -> torch.Tensor:
        """``emb`` holds one row per job of the batch, ``local`` its row for each count row; jobs index texts."""
        at = torch.from_numpy(local).to(self.device)
        job_extra = self.extra[torch.from_numpy(counts.job[rows]).to(self.device)]
        return self.model.head(torch.cat([emb[at], job_extra, self._phi(counts, rows)], dim=1))

    def _kn(self, counts: DoseCounts, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        k = torch.from_numpy(counts.k[rows].astype(np.float32)).to(self.device)
        return k, torch.from_numpy(counts.n[rows].astype(np.float32)).to(self.device)

    def step(self, counts: DoseCounts, by_job: dict[int, np.ndarray], jobs: list[int], opt) -> float:
        """One optimiser step over ``jobs``, accumulated over encoder micro-batches; returns the summed BCE."""
        total_n = float(sum(counts.n[by_job[j]].sum() for j in jobs))
        opt.zero_grad()
        summed = 0.0
        for start in range(0, len(jobs), self.enc.microbatch):
            part = jobs[start : start + self.enc.microbatch]
            emb = self.feat.embed([self.texts[j] for j in part])
            rows = np.concatenate([by_job[j] for j in part])
            local = np.concatenate([np.full(len(by_job[j]), i) for i, j in enumerate(part)])
            loss = binomial_bce(self._logits(emb, local, counts, rows), *self._kn(counts, rows))
            (loss / max(total_n, 1.0)).backward()
            summed += float(loss.detach())
        opt.step()
        return summed

    def val_loss(self, counts: DoseCounts, by_job: dict[int, np.ndarray]) -> float:
        self.feat.module.eval()
        self.model.head.eval()
        jobs = sorted(by_job)
        emb = torch.from_numpy(self.feat.transform([self.texts[j] for j in jobs])).to(self.device)
        rows = np.concatenate([by_job[j] for j in jobs])
        local = np.concatenate([np.full(len(by_job[j]), i) for i, j in enumerate(jobs)])
        with torch.no_grad():
            loss = binomial_bce(self._logits(emb, local, counts, rows), *self._kn(counts, rows))
        return float(loss) / float(counts.n[rows].sum())


def _snapshot(featurizer, model: FrailPi) -> tuple[dict, dict]:
    """Copies of the encoder's trained weights and the head's state (the best-so-far checkpoint)."""
    return (
        {k: v.detach().clone() for k, v in featurizer.trained_state().items()},
        copy.deepcopy(model.head.state_dict()),
    )


def _start_head(
    featurizer,
    texts: list[str],
    doses: list[int],
    train: DoseCounts,
    val: DoseCounts,
    config: PiConfig,
    enc: EncoderTrainConfig,
    extra: np.ndarray | None,
) -> tuple[FrailPi, np.ndarray]:
    """Check the inputs, fit the featurizer on the training texts and build the head (warm-started on the starting
    embeddings when ``enc.warm_start_head``); return it with the extra head columns."""
    if not getattr(featurizer, "trainable", False):
        raise SuiteInputError(
            f"featurizer {featurizer.name!r} is frozen: train Frail-π on its output with FrailPi.fit."
        )
    if train.n.sum() == 0 or val.n.sum() == 0:
        raise SuiteInputError("Frail-π needs solvable-stratum twins in both the training and validation folds.")
    torch.manual_seed(config.seed)
    featurizer.fit([texts[j] for j in np.unique(train.job)])
    featurizer.jointly_trained = True  # its embeddings are now the ones the head is trained on
    extra = np.zeros((len(texts), 0), dtype=np.float32) if extra is None else extra
    if len(extra) != len(texts):
        raise SuiteInputError(f"the extra head inputs have {len(extra)} rows for {len(texts)} texts.")
    model = FrailPi(featurizer.dim + extra.shape[1], doses, config)
    if enc.warm_start_head:  # LoRA adapters start at zero, so these are exactly the starting embeddings
        model.fit(np.hstack([featurizer.transform(texts), extra]), train, val)
        model.history = []
    return model, extra


def _train_epochs(
    trainer: _JointTrainer,
    featurizer,
    model: FrailPi,
    opt,
    train: DoseCounts,
    val: DoseCounts,
    config: PiConfig,
    enc: EncoderTrainConfig,
    progress: Progress | None,
) -> tuple[float, tuple[dict, dict]]:
    """The joint epochs with early stopping on validation BCE; return the best loss and its checkpoint."""
    by_train, by_val = _job_rows(train), _job_rows(val)
    train_jobs = np.array(sorted(by_train))
    gen = torch.Generator().manual_seed(config.seed)
    best = trainer.val_loss(val, by_val) if enc.warm_start_head else float("inf")
    best_state, stale = _snapshot(featurizer, model), 0
    model.epoch_seconds = []
    for epoch in range(1, enc.max_epochs + 1):
        started = time.perf_counter()
        featurizer.module.train()
        model.head.train()
        order = train_jobs[torch.randperm(len(train_jobs), generator=gen).numpy()]
        running = 0.0
        for start in range(0, len(order), enc.jobs_per_batch):
            running += trainer.step(train, by_train, [int(j) for j in order[start : start + enc.jobs_per_batch]], opt)
        train_loss, val_loss = running / float(train.n.sum()), trainer.val_loss(val, by_val)
        model.epoch_seconds.append(time.perf_counter() - started)
        model.history.append((epoch, train_loss, val_loss))
        if progress:
            progress(epoch, enc.max_epochs, train_loss, val_loss)
        if val_loss < best - 1e-5:
            best, best_state, stale = val_loss, _snapshot(featurizer, model), 0
        else:
            stale += 1
            if stale >= enc.patience:
                break
    return best, best_state


def fit_pi_with_encoder(
    featurizer,
    texts: list[str],
    doses: list[int],
    train: DoseCounts,
    val: DoseCounts,
    config: PiConfig | None = None,
    enc: EncoderTrainConfig | None = None,
    progress: Progress | None = None,
    extra: np.ndarray | None = None,
) -> FrailPi:
    """Train a trainable encoder featurizer and a Frail-π head jointly; ``DoseCounts.job`` indexes ``texts``.

    ``extra`` (one row per text) are fixed columns the head reads after the embedding (text_probe protocol).
    Returns the ``FrailPi`` (head on CPU, best validation state) with ``history`` and ``epoch_seconds``; the
    featurizer is left holding the best encoder weights, so
    ``model.predict_p(np.hstack([featurizer.transform(texts), extra]))``.
    """
    config, enc = config or PiConfig(), enc or EncoderTrainConfig()
    model, extra = _start_head(featurizer, texts, doses, train, val, config, enc, extra)
    trainer = _JointTrainer(featurizer, texts, model, enc, extra)
    opt = torch.optim.AdamW(
        [
            {"params": featurizer.trainable_parameters(), "lr": enc.encoder_lr or featurizer.encoder_lr},
            {"params": model.head.parameters(), "lr": enc.head_lr},
        ],
        weight_decay=config.weight_decay,
    )
    best, best_state = _train_epochs(trainer, featurizer, model, opt, train, val, config, enc, progress)
    featurizer.restore_state(best_state[0])
    model.head.load_state_dict(best_state[1])
    model.head.to("cpu").eval()
    featurizer.module.eval()
    model.best_val_loss = best
    return model
