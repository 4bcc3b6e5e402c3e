"""One seed of the §7 step 5-6 protocol: split by base id, fit the featurizer and Frail-π on the training fold,
early-stop on validation, predict the test fold, score Frail-π and every baseline on the same folds, and compute
CRD by cross-fitted residualisation on the same folds, with the orthogonality diagnostics. A trainable encoder
featurizer (``hf_finetune``, ``hf_lora``) is trained jointly with the head (``models/pi_encoder.py``) and then
featurizes like a frozen one.

Under the ``text_probe`` protocol (§2, ``probes.py``) the caller passes the base probe features: Frail-π's input is
the text features concatenated with the probe features standardised on the training fold, and the ``probe_only``
baseline fits the probe features alone on the same folds. The ``text`` protocol passes none and never sees them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from frail.baselines import PROBE_BASELINES, PROBE_PREFIX, run_baselines
from frail.estimands import crd_residuals, orthogonality_diagnostics, pearson, spearman
from frail.featurizers import make_featurizer
from frail.learned_baselines import (
    DEFAULT_BASELINES,
    LEARNED_BASELINES,
    NEEDS_MEASURES,
    BaselineInputs,
    TextEmbedder,
    measures_frame,
    run_learned_baselines,
)
from frail.models.pi import DoseCounts, FrailPi, PiConfig, Progress, dose_response_from_p, pi_from_p
from frail.probes import ProbeStandardiser
from frail.report_config import DEFAULT_BASELINE_ENCODER
from frail.splits import Split

TARGETS = ("pi", "a", "b")
CONTROL_TARGET = "d_avg"  # D_avg(J), the U-CCD control (§7 step 6): defined on every stratum, solved or not
MIN_TEST_SOLVABLE = 3


@dataclass
class Dataset:
    """Everything the seeds share: observations, job targets, dose design and composition, fingerprint, raw rows."""

    obs: pd.DataFrame
    jobs: pd.DataFrame
    doses: list[int]
    m_bar: float
    composition: pd.DataFrame
    fingerprint: str
    rows: list | None = None  # the pair rows as read, identity twins included (for the identity-twin floor)
    fold_free_features: dict = field(default_factory=dict)  # (featurizer, options) -> (featurizer, x), filled once


@dataclass
class SeedResult:
    seed: int
    spearman: dict[str, dict[str, float | None]] = field(default_factory=dict)
    crd: dict[str, Any] = field(default_factory=dict)
    orthogonality: dict[str, dict[str, float | None]] = field(default_factory=dict)
    predictions: pd.DataFrame | None = None
    p_test: np.ndarray | None = None
    n: dict[str, int] = field(default_factory=dict)
    epochs: int = 0
    epoch_seconds: float | None = None  # mean wall time of one joint encoder epoch (trainable featurizers)
    seconds: float = 0.0
    skipped: str | None = None
    model: FrailPi | None = None
    featurizer: Any = None
    probe_standardiser: ProbeStandardiser | None = None  # text_probe: the training fold's probe standardiser
    family_spearman: dict[str, dict[str, float | None]] = field(default_factory=dict)  # method -> family -> ρ_S
    corr_pred_c: dict[str, float | None] = field(default_factory=dict)  # method -> Corr(predicted π, C), test fold


def dose_counts(obs: pd.DataFrame, ids: list[str], row_of: dict[str, int]) -> DoseCounts:
    """Break counts per (job, dose) for the given solvable jobs."""
    part = obs[obs["base_id"].isin(set(ids))]
    table = part.groupby(["base_id", "dose"])["B"].agg(["sum", "size"]).reset_index()
    return DoseCounts(
        job=table["base_id"].map(row_of).to_numpy(),
        dose=table["dose"].to_numpy(dtype=float),
        k=table["sum"].to_numpy(dtype=np.float32),
        n=table["size"].to_numpy(dtype=np.float32),
    )


def predict_targets(
    model: FrailPi, x: np.ndarray, composition: np.ndarray, m_bar: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """p(J, m) at the model's design doses for each row of ``x``, and the closed-form π̂ (over the jobs' dose
    ``composition``), â and b̂ read off it: (p, π̂, â, b̂)."""
    p = model.predict_p(x)
    a_hat, b_hat = dose_response_from_p(p, model.doses, m_bar)
    return p, pi_from_p(p, composition), a_hat, b_hat


def _any_break_probability(p: np.ndarray, obs: pd.DataFrame, ids: list[str], doses: list[int]) -> np.ndarray:
    """Budget-K worst case from p: 1 - Π_m (1 - p(J, m))^{n_m(J)}, K = the job's own twins at each dose."""
    counts = obs[obs["base_id"].isin(set(ids))].groupby(["base_id", "dose"]).size().unstack(fill_value=0)
    counts = counts.reindex(index=ids, columns=doses, fill_value=0).to_numpy()
    return 1.0 - np.prod((1.0 - p) ** counts, axis=1)


def _frozen_features(
    data: Dataset, feat: Any, options: dict[str, Any] | None, train_texts: pd.Series
) -> tuple[Any, np.ndarray]:
    """(featurizer, features of every job) fitted on the training fold; a featurizer whose fit learns nothing
    (``fit_learns = False``: hashing, a frozen encoder) is fitted and applied once per dataset, not once per seed."""
    key = (feat.name, tuple(sorted((options or {}).items())))
    if not feat.fit_learns and key in data.fold_free_features:
        return data.fold_free_features[key]
    feat.fit(train_texts.tolist())
    x = feat.transform(data.jobs["base_text"].tolist())
    if not feat.fit_learns:
        data.fold_free_features[key] = (feat, x)
    return feat, x


def family_spearman(
    obs: pd.DataFrame, test_ids: list[str], method_pi: dict[str, np.ndarray]
) -> dict[str, dict[str, float | None]]:
    """Per operator family (§7 step 13): ρ_S of each method's predicted π against π measured on that family's twins
    alone, test fold (a job without twins of a family is left out of that family's column)."""
    part = obs[obs["base_id"].isin(set(test_ids))]
    by_family = part.groupby(["family", "base_id"])["B"].mean().unstack("family").reindex(test_ids)
    out: dict[str, dict[str, float | None]] = {}
    for method, pred in method_pi.items():
        out[method] = {}
        for family in by_family.columns:
            measured = by_family[family].to_numpy(dtype=float)
            keep = np.isfinite(measured)
            out[method][str(family)] = spearman(np.asarray(pred)[keep], measured[keep]) if keep.sum() >= 3 else None
    return out


def _baseline_inputs(
    data: Dataset,
    train: pd.DataFrame,
    test: pd.DataFrame,
    fold_ids: list[str],
    seed: int,
    baselines: Sequence[str] | None,
    encoder: str,
    encoder_model: str | None = None,
) -> BaselineInputs:
    """The learned baselines' inputs; the frozen embedder (``encoder``, reading the transformers ``encoder_model``)
    and the label-free PromptSET measures are built once per dataset and shared by the seeds."""
    key = ("baseline_embedder", encoder, encoder_model)
    if key not in data.fold_free_features:
        data.fold_free_features[key] = TextEmbedder(encoder, encoder_model)
    embed = data.fold_free_features[key]
    measures = pd.DataFrame(index=data.jobs.index)
    if NEEDS_MEASURES & set(baselines or ()):
        mkey = ("promptset_measures", encoder, encoder_model)
        if mkey not in data.fold_free_features:
            data.fold_free_features[mkey] = measures_frame(data.jobs, embed)
        measures = data.fold_free_features[mkey]
    return BaselineInputs(
        train=train,
        test=test,
        fold=data.jobs.loc[fold_ids],
        obs=data.obs,
        composition=data.composition,
        doses=data.doses,
        m_bar=data.m_bar,
        embed=embed,
        seed=seed,
        measures=measures,
    )


def _score_baselines(
    data: Dataset,
    result: SeedResult,
    frame: pd.DataFrame,
    train_ids: list[str],
    test: np.ndarray,
    fold_ids: list[str],
    frail_pi_test: np.ndarray,
    with_probes: bool,
    baselines: Sequence[str],
    encoder: tuple[str, str | None],
) -> None:
    """Every chosen baseline on the seed's folds: its test-fold ρ_S per target, and, with Frail-π's, each method's
    per-family ρ_S and Corr(predicted π, C) (``frame``: the solvable jobs, probe columns included under text_probe)."""
    train, held_out = frame.loc[train_ids], frame.loc[test]
    predictions = run_baselines(
        train, held_out, list(TARGETS), result.seed, PROBE_BASELINES if with_probes else None, names=baselines
    )
    if any(n in LEARNED_BASELINES for n in baselines):
        inputs = _baseline_inputs(data, train, held_out, fold_ids, result.seed, baselines, *encoder)
        predictions.update(run_learned_baselines(inputs, baselines, list(TARGETS)))
    method_pi = {"frail_pi": frail_pi_test}
    for name, by_target in predictions.items():
        result.spearman[name] = {t: (None if v is None else spearman(v, held_out[t])) for t, v in by_target.items()}
        pi = by_target.get("pi")
        if pi is not None:
            method_pi[name] = pi
    result.family_spearman = family_spearman(data.obs, list(held_out.index), method_pi)
    c = held_out["C"].to_numpy(dtype=float)
    result.corr_pred_c = {m: pearson(v, c) for m, v in method_pi.items()}


def _solvable_fold_ids(jobs: pd.DataFrame, roles: pd.Series) -> dict[str, list[str]]:
    """The solvable jobs of each fold (train, val, test), in job order."""
    solvable = jobs["solvable"].to_numpy()
    return {r: list(jobs.index[(roles == r).to_numpy() & solvable]) for r in ("train", "val", "test")}


def _fit_frail_pi(
    data: Dataset,
    result: SeedResult,
    roles: pd.Series,
    ids: dict[str, list[str]],
    featurizer: str,
    config: PiConfig,
    progress: Progress | None,
    featurizer_options: dict[str, Any] | None,
    encoder_config: Any,
    probes: pd.DataFrame | None,
) -> tuple[FrailPi, np.ndarray]:
    """Fit the featurizer and Frail-π on the training fold (early-stopped on val); return the model and the
    features of every job (probe features appended under text_probe). Records the model on ``result``."""
    jobs = data.jobs
    feat = make_featurizer(featurizer, seed=result.seed, **(featurizer_options or {}))
    texts = jobs["base_text"].tolist()
    row_of = {b: i for i, b in enumerate(jobs.index)}
    counts = {r: dose_counts(data.obs, ids[r], row_of) for r in ("train", "val")}
    seed_config = replace(config, seed=result.seed)
    extra = np.zeros((len(jobs), 0), dtype=np.float32)
    if probes is not None:
        result.probe_standardiser = ProbeStandardiser.fit(probes.loc[jobs.index[(roles == "train").to_numpy()]])
        extra = result.probe_standardiser.transform(probes.loc[jobs.index])
    if feat.trainable:
        from frail.models.pi_encoder import fit_pi_with_encoder

        model = fit_pi_with_encoder(
            feat, texts, data.doses, counts["train"], counts["val"], seed_config, encoder_config, progress, extra
        )
        result.epoch_seconds = float(np.mean(model.epoch_seconds)) if model.epoch_seconds else None
        x = np.hstack([feat.transform(texts), extra])
    else:
        feat, x = _frozen_features(data, feat, featurizer_options, jobs.loc[(roles == "train").to_numpy(), "base_text"])
        x = np.hstack([x, extra])
        model = FrailPi(x.shape[1], data.doses, seed_config)
        model.fit(x, counts["train"], counts["val"], progress)
    result.epochs, result.model, result.featurizer = len(model.history), model, feat
    return model, x


def _frail_pi_spearman(
    pred: pd.DataFrame, solv: pd.DataFrame, test: np.ndarray, p_test: np.ndarray, data: Dataset
) -> dict[str, float | None]:
    """Frail-π's test-fold ρ_S of π, a, b and of the budget-K worst case (any break among the job's own twins)."""
    cells = {t: spearman(pred.loc[test, t], solv.loc[test, t]) for t in TARGETS}
    cells["worst_case"] = spearman(
        _any_break_probability(p_test, data.obs, list(solv.index[test]), data.doses),
        (solv.loc[test, "n_breaks"] > 0).astype(float),
    )
    return cells


def _score_crd(result: SeedResult, solv: pd.DataFrame, folds: np.ndarray, test: np.ndarray, pred: pd.DataFrame) -> None:
    """CRD by cross-fitted residualisation on C over the evaluation folds, the orthogonality diagnostics and the
    test-fold prediction frame (``pred``: Frail-π's π̂, â, b̂ of every solvable job ``solv``)."""
    pi_hat = pred["pi"].to_numpy()
    c = solv["C"].to_numpy(dtype=float)
    crd_target, crd_pred = crd_residuals(solv["pi"].to_numpy(), pi_hat, c, folds)
    result.crd = {"spearman_frail_pi": spearman(crd_pred[test], crd_target[test])}
    result.orthogonality = {
        "pi": orthogonality_diagnostics(solv.loc[test, "pi"], pi_hat[test], c[test]),
        "crd": orthogonality_diagnostics(crd_target[test], crd_pred[test], c[test]),
    }
    result.predictions = pd.DataFrame(
        {
            "base_id": solv.index[test],
            "C": c[test],
            "pi": solv.loc[test, "pi"].to_numpy(),
            "pi_hat": pi_hat[test],
            "a": solv.loc[test, "a"].to_numpy(),
            "a_hat": pred["a"].to_numpy()[test],
            "b": solv.loc[test, "b"].to_numpy(),
            "b_hat": pred["b"].to_numpy()[test],
            "crd": crd_target[test],
            "crd_hat": crd_pred[test],
        }
    )


def _score_control_target(
    data: Dataset,
    result: SeedResult,
    train_ids: list[str],
    test_ids: list[str],
    baselines: Sequence[str],
    encoder: tuple[str, str | None],
) -> None:
    """Every chosen baseline regressing D_avg on the same folds, but on all their jobs (D_avg, the U-CCD control, is
    defined off the solvable stratum too): its test-fold ρ_S joins the baseline's cells as ``d_avg``. Frail-π
    models breaks of solved bases only and has no D_avg prediction; nor have ``amortized_irt`` (its p(J, m) gives π
    and a) and ``bertpe`` / ``vap3`` (fine-tuned on π, a, b), whose cell is None."""
    train, held_out = data.jobs.loc[train_ids], data.jobs.loc[test_ids]
    predictions = run_baselines(train, held_out, [CONTROL_TARGET], result.seed, names=baselines)
    if any(n in LEARNED_BASELINES for n in baselines):
        inputs = _baseline_inputs(data, train, held_out, train_ids, result.seed, baselines, *encoder)
        predictions.update(run_learned_baselines(inputs, baselines, [CONTROL_TARGET]))
    for name, by_target in predictions.items():
        value = by_target.get(CONTROL_TARGET)
        cells = result.spearman.setdefault(name, {})
        cells[CONTROL_TARGET] = None if value is None else spearman(value, held_out[CONTROL_TARGET])


def run_seed(
    data: Dataset,
    split: Split,
    featurizer: str,
    config: PiConfig,
    progress: Progress | None = None,
    featurizer_options: dict[str, Any] | None = None,
    encoder_config: Any = None,
    probes: pd.DataFrame | None = None,
    *,
    baselines: Sequence[str] | None = None,
    baseline_encoder: str = DEFAULT_BASELINE_ENCODER,
    baseline_encoder_model: str | None = None,
) -> SeedResult:
    """Train and score one seed; a fold without enough solvable jobs gives a result with ``skipped`` set.

    ``featurizer_options`` go to the featurizer (e.g. ``encoder``, ``max_len``, ``device``); ``encoder_config``
    (an ``EncoderTrainConfig``) is the joint-training recipe of a trainable featurizer. ``probes`` (text_probe
    protocol): the raw probe features of every job, indexed by base id, one column per feature. ``baselines``: the
    baselines to score (None: ``learned_baselines.DEFAULT_BASELINES``), the learned ones embedding with the frozen
    ``baseline_encoder`` (which reads the transformers ``baseline_encoder_model``; None: the bundled MiniLM).
    """
    baselines = DEFAULT_BASELINES if baselines is None else tuple(baselines)
    start = time.perf_counter()
    jobs = data.jobs
    roles = pd.Series({b: split.role_of(b) for b in jobs.index})
    ids = _solvable_fold_ids(jobs, roles)
    result = SeedResult(seed=split.seed, n={f"solvable_{r}": len(v) for r, v in ids.items()})
    if len(ids["test"]) < MIN_TEST_SOLVABLE or not ids["train"] or not ids["val"]:
        result.skipped = (
            f"too few solvable bases in the folds of seed {split.seed} (train {len(ids['train'])}, "
            f"val {len(ids['val'])}, test {len(ids['test'])}; the test fold needs {MIN_TEST_SOLVABLE})"
        )
        return result
    model, x = _fit_frail_pi(
        data, result, roles, ids, featurizer, config, progress, featurizer_options, encoder_config, probes
    )

    row_of = {b: i for i, b in enumerate(jobs.index)}
    solv_ids = list(jobs.index[jobs["solvable"].to_numpy()])
    p_all, pi_hat, a_hat, b_hat = predict_targets(
        model, x[[row_of[b] for b in solv_ids]], data.composition.loc[solv_ids].to_numpy(), data.m_bar
    )
    pred = pd.DataFrame({"pi": pi_hat, "a": a_hat, "b": b_hat}, index=solv_ids)
    solv = jobs.loc[solv_ids]
    test = solv.index.isin(ids["test"])

    p_test = p_all[test]
    result.spearman["frail_pi"] = _frail_pi_spearman(pred, solv, test, p_test, data)
    frame = solv if probes is None else solv.join(probes.add_prefix(PROBE_PREFIX))
    encoder = (baseline_encoder, baseline_encoder_model)
    fold_ids = {r: list(jobs.index[(roles == r).to_numpy()]) for r in ("train", "test")}  # every stratum
    _score_baselines(
        data, result, frame, ids["train"], test, fold_ids["train"], pi_hat[test], probes is not None, baselines, encoder
    )
    _score_control_target(data, result, fold_ids["train"], fold_ids["test"], baselines, encoder)
    _score_crd(result, solv, np.array([split.fold_of[b] for b in solv_ids]), test, pred)
    result.p_test = p_test
    result.seconds = time.perf_counter() - start
    return result
