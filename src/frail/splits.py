"""Fingerprinted, base-id-disjoint folds (§3.2, §11).

The five dose files are resamples of one pool, so every split is by ``base_id``, never by row or file. Each base id
goes to one of K folds by a hash of (dataset fingerprint, seed, base id): the same data and seed always give the
same folds, and a different seed reshuffles them. For seed s the test fold is s mod K, the validation fold the next
one, and the rest is training; the CRD cross-fitting uses the same K folds. A saved model carries a sidecar with the
fingerprint, the seed and its training/validation ids, and evaluation refuses a model whose ids touch its test fold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.files import write_text_atomic
from causal_suite.jsonl import read_json

N_FOLDS = 5
SIDECAR_SUFFIX = ".split.json"


def dataset_fingerprint(keys: Iterable[tuple[str, str, int]]) -> str:
    """sha256 over the sorted (base_id, twin_id, dose) design keys: independent of row order and of the labels."""
    h = hashlib.sha256()
    for base_id, twin_id, dose in sorted(set(keys)):
        h.update(f"{base_id}\x1f{twin_id}\x1f{dose}\n".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class Split:
    """K base-id folds and the train / validation / test roles they play for one seed."""

    fingerprint: str
    seed: int
    fold_of: dict[str, int]
    n_folds: int = N_FOLDS

    @property
    def test_fold(self) -> int:
        return self.seed % self.n_folds

    @property
    def val_fold(self) -> int:
        return (self.seed + 1) % self.n_folds

    def ids(self, role: str) -> list[str]:
        wanted = {"test": {self.test_fold}, "val": {self.val_fold}}.get(role)
        if wanted is None:
            wanted = set(range(self.n_folds)) - {self.test_fold, self.val_fold}
        return sorted(b for b, f in self.fold_of.items() if f in wanted)

    def role_of(self, base_id: str) -> str:
        fold = self.fold_of[base_id]
        return "test" if fold == self.test_fold else ("val" if fold == self.val_fold else "train")


def make_split(base_ids: Iterable[str], fingerprint: str, seed: int, n_folds: int = N_FOLDS) -> Split:
    """Assign base ids to ``n_folds`` near-equal folds, ordered by a keyed hash; deterministic in (fingerprint, seed)."""
    unique = sorted(set(base_ids))
    if len(unique) < n_folds:
        raise SuiteInputError(
            f"only {len(unique)} base problems: a {n_folds}-fold base-id split needs at least {n_folds}."
        )
    order = sorted(unique, key=lambda b: hashlib.sha256(f"{fingerprint}:{seed}:{b}".encode()).hexdigest())
    fold_of = {b: (i * n_folds) // len(order) for i, b in enumerate(order)}
    return Split(fingerprint=fingerprint, seed=seed, fold_of=fold_of, n_folds=n_folds)


def sidecar_path(model_path: str | Path) -> Path:
    p = Path(model_path)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def write_sidecar(model_path: str | Path, split: Split, extra: dict[str, Any] | None = None) -> Path:
    """Write the fingerprint, seed and the ids the model saw (train + validation) beside the saved model."""
    record = {
        "fingerprint": split.fingerprint,
        "seed": split.seed,
        "n_folds": split.n_folds,
        "train_ids": split.ids("train"),
        "val_ids": split.ids("val"),
        **(extra or {}),
    }
    return write_text_atomic(sidecar_path(model_path), json.dumps(record, indent=1))


def read_sidecar(model_path: str | Path) -> dict[str, Any]:
    path = sidecar_path(model_path)
    if not path.exists():
        raise SuiteInputError(
            f"model '{model_path}' has no split sidecar '{path.name}': refusing to evaluate a model whose training ids are unknown."
        )
    sidecar = read_json(path, f"split sidecar '{path}'")
    if not isinstance(sidecar, dict) or not all(isinstance(sidecar.get(k), list) for k in ("train_ids", "val_ids")):
        raise SuiteInputError(f"split sidecar '{path}': fields 'train_ids' and 'val_ids' (lists) are missing.")
    return sidecar


def refuse_overlap(model_path: str | Path, test_ids: Iterable[str]) -> None:
    """Raise if any base id the model trained or early-stopped on is in the evaluation's test ids."""
    require_file(model_path, "saved model")
    sidecar = read_sidecar(model_path)
    seen = set(sidecar["train_ids"]) | set(sidecar["val_ids"])
    overlap = sorted(seen & set(test_ids))
    if overlap:
        raise SuiteInputError(
            f"model '{model_path}' was trained on {len(overlap)} of the test base ids (e.g. {overlap[0]!r}): "
            "refusing to score it on a test fold it has seen."
        )
