"""Frail-τ on pair observations: the Synth-CD mechanism check and the U-CCD control (§2 Frail-τ; §7 steps 6, 11).

One seed: base-id-disjoint folds (``splits.py``), a frozen featurizer fitted on the training fold's base and twin
texts, Frail-τ trained on the training fold and early-stopped on validation, job-level contrast τ̂(J) and ex-ante
D̂(J) on the test fold. The mechanism check runs it on the continuous Synth-CD variant, where the truth τ(J) and the
oracle D⊥ are known, and reports for Frail-τ's two heads and for every baseline (fitted to the measured D_avg on
the same folds) the test-fold Spearman and |ρ_C| = |Spearman(prediction, C)|, per observation (Δ̂(J, T) against
Δ(J, T), the contrast head's target) and per job (against τ and against D⊥). The question of §3.5 is the job-level
one: does the contrast head recover the expertise signal D⊥ with |ρ_C| near zero without any residualisation,
while every predictor that reads the base text picks up C? On a real suite (``--pairs``) the same code is the U-CCD
control, scored against the measured D_avg.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError, reports_input_errors
from causal_suite.files import write_text_atomic
from causal_suite.params import cli_integer, cli_integers
from frail.baselines import run_baselines
from frail.estimands import cross_fitted_residual, job_targets, observations_frame, spearman
from frail.featurizers import available_featurizers, make_featurizer
from frail.models.tau import ENCODERS, FrailTau, TauConfig, TauData
from frail.pairs import PairObservation
from frail.splits import Split, dataset_fingerprint, make_split

RESIDUAL_FOLDS = 5


def _tau_data(frame: pd.DataFrame, rows: np.ndarray, job_ids: list[str], features: dict[str, np.ndarray]) -> TauData:
    part = frame.iloc[rows]
    row_of = {b: i for i, b in enumerate(job_ids)}
    c_job = frame.groupby("base_id")["C"].first().reindex(job_ids).to_numpy(dtype=float)
    return TauData(
        x_base=np.stack([features[t] for t in part["base_text"]]),
        x_twin=np.stack([features[t] for t in part["twin_text"]]),
        delta=part["delta"].to_numpy(dtype=float),
        job=part["base_id"].map(row_of).to_numpy(),
        c_job=c_job,
    )


def frozen_featurizer(name: str, seed: int, options: dict[str, Any]) -> Any:
    """The featurizer, refused when it is one Frail-π trains (Frail-τ trains its own encoder on fixed features)."""
    feat = make_featurizer(name, seed=seed, **options)
    if feat.trainable:
        raise SuiteInputError(
            f"Frail-τ trains its own shared encoder over frozen features; {name!r} is "
            "trained by Frail-π's joint loop: use a frozen featurizer (bow_svd, hf_frozen, ...)."
        )
    return feat


def _featurize(feat: Any, frame: pd.DataFrame) -> dict[str, np.ndarray]:
    texts = sorted(set(frame["base_text"]) | set(frame["twin_text"]))
    return dict(zip(texts, feat.transform(texts), strict=False))


def fold_free_features(frame: pd.DataFrame, featurizer: str, options: dict[str, Any]) -> dict[str, np.ndarray] | None:
    """Every text's features when the featurizer's fit learns nothing from the texts (hashing, hf_frozen), so the
    seeds share one pass; None when it is fitted on each training fold."""
    feat = frozen_featurizer(featurizer, 0, options)
    return None if feat.fit_learns else _featurize(feat, frame)


def run_tau_seed(
    frame: pd.DataFrame,
    split: Split,
    featurizer: str = "bow_svd",
    config: TauConfig | None = None,
    features: dict[str, np.ndarray] | None = None,
    **featurizer_options: Any,
) -> tuple[pd.DataFrame, pd.DataFrame, FrailTau]:
    """Train on the training fold, early-stop on validation; test-fold predictions per job (contrast τ̂, ex-ante D̂)
    and per observation (the test rows of ``frame``, an ``observations_frame``, with ``contrast_obs`` = Δ̂(J, T)).

    ``features`` (text -> vector) skips featurizing: for a featurizer whose fit learns nothing, computed once for
    every seed by ``fold_free_features``."""
    start = time.perf_counter()
    config = config or TauConfig()
    roles = frame["base_id"].map(split.role_of).to_numpy()
    if features is None:
        feat = frozen_featurizer(featurizer, split.seed, featurizer_options)
        train_rows = frame[roles == "train"]
        feat.fit(sorted(set(train_rows["base_text"]) | set(train_rows["twin_text"])))
        features = _featurize(feat, frame)
    data = {}
    for role in ("train", "val", "test"):
        rows = np.flatnonzero(roles == role)
        data[role] = _tau_data(frame, rows, sorted(frame["base_id"].iloc[rows].unique()), features)
    model = FrailTau(len(next(iter(features.values()))), replace(config, seed=split.seed))
    model.fit(data["train"], data["val"])
    pred = model.predict(data["test"])
    test_ids = sorted(frame["base_id"][roles == "test"].unique())
    out = pd.DataFrame({"base_id": test_ids, "contrast": pred["contrast"], "ex_ante": pred["ex_ante"]})
    obs = frame.iloc[np.flatnonzero(roles == "test")][["base_id", "family", "C", "delta"]].assign(
        contrast_obs=pred["contrast_obs"]
    )
    model.seconds = time.perf_counter() - start
    return out, obs.reset_index(drop=True), model


def _scores(
    pred: np.ndarray, target: np.ndarray, c: np.ndarray, extra: dict[str, np.ndarray] | None = None
) -> dict[str, float | None]:
    rho_c = spearman(pred, c)
    out = {"spearman": spearman(pred, target), "abs_rho_C": None if rho_c is None else abs(rho_c)}
    out.update({f"spearman_{k}": spearman(pred, v) for k, v in (extra or {}).items()})
    return out


def _mean_over_seeds(per_seed: list[dict[str, Any]], level: str) -> dict[str, dict[str, float | None]]:
    methods = per_seed[0][level]
    out: dict[str, dict[str, float | None]] = {}
    for m, cells in methods.items():
        out[m] = {}
        for k in cells:
            values = [s[level][m][k] for s in per_seed if s[level][m][k] is not None]
            out[m][k] = float(np.mean(values)) if values else None
    return out


def _job_level(
    jobs: pd.DataFrame, split: Split, pred: pd.DataFrame, truth: pd.DataFrame | None
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, float | None]]]:
    """One seed's job-level predictors (Frail-τ's two heads, the baselines regressing D_avg, each but the contrast
    head also residualised on C) and their scores against τ and D⊥ (``truth``) or the measured D_avg."""
    test_ids = list(pred.index)
    job_methods = {
        "frail_tau_contrast": pred["contrast"].to_numpy(),
        "frail_tau_ex_ante": pred["ex_ante"].to_numpy(),
    }
    for name, by_target in run_baselines(
        jobs.loc[split.ids("train")], jobs.loc[test_ids], ["d_avg"], split.seed
    ).items():
        if by_target["d_avg"] is not None:
            job_methods[name] = by_target["d_avg"]
    c = jobs.loc[test_ids, "C"].to_numpy(dtype=float)
    folds = np.arange(len(test_ids)) % RESIDUAL_FOLDS
    for name in [m for m in job_methods if m != "frail_tau_contrast"]:
        job_methods[f"{name}_resid"] = cross_fitted_residual(job_methods[name], c, folds)[0]
    if truth is None:
        d_avg = jobs.loc[test_ids, "d_avg"].to_numpy(dtype=float)
        return job_methods, {m: _scores(p, d_avg, c) for m, p in job_methods.items()}
    tau, perp = (truth.loc[test_ids, k].to_numpy() for k in ("tau", "d_perp_oracle"))
    job_methods["oracle_d_perp"] = perp
    return job_methods, {m: _scores(p, tau, c, {"d_perp": perp}) for m, p in job_methods.items()}


def _observation_level(
    frame: pd.DataFrame, split: Split, obs: pd.DataFrame, test_ids: list[str], job_methods: dict[str, np.ndarray]
) -> dict[str, dict[str, float | None]]:
    """Scores against the observed Δ(J, T) of the test twins: the contrast head, the training fold's per-operator
    mean Δ, and every raw job-level predictor broadcast to its job's twins (rows of ``test_ids``)."""
    position = {b: i for i, b in enumerate(test_ids)}
    at = obs["base_id"].map(position).to_numpy()
    train_rows = frame[frame["base_id"].map(split.role_of) == "train"]
    obs_methods = {
        "frail_tau_contrast": obs["contrast_obs"].to_numpy(),
        "operator_mean": obs["family"].map(train_rows.groupby("family")["delta"].mean()).to_numpy(),
    }
    obs_methods.update(
        {
            m: p[at]
            for m, p in job_methods.items()
            if m not in ("frail_tau_contrast", "oracle_d_perp") and not m.endswith("_resid")
        }
    )
    return {m: _scores(p, obs["delta"].to_numpy(), obs["C"].to_numpy()) for m, p in obs_methods.items()}


def tau_check(
    rows: list[PairObservation],
    seeds: list[int],
    featurizer: str = "bow_svd",
    config: TauConfig | None = None,
    truth: list[dict[str, Any]] | None = None,
    featurizer_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Frail-τ and the baselines on the same base-disjoint folds: test-fold Spearman and |ρ_C|, per seed and averaged.

    ``observation``: Δ̂(J, T) against the observed Δ(J, T) over test twins (the contrast head's own target), with
    |Spearman(Δ̂, C)|; job-level predictors enter broadcast to their twins, and ``operator_mean`` (the training
    fold's mean Δ per operator, read from the labels rather than the text) is the surface-only reference.
    ``job``: with ``truth`` (Synth-CD) each job-level prediction against the true τ(J) (``spearman``) and the oracle
    D⊥ (``spearman_d_perp``); every predictor but the contrast head also appears explicitly residualised on C
    (``<name>_resid``: minus a quadratic in C cross-fitted over ``RESIDUAL_FOLDS`` folds of the test jobs), the
    route the contrast head is meant not to need; and the row ``oracle_d_perp`` (D⊥ itself), whose |ρ_C| is the
    sampling floor of the test fold: C and D⊥ are independent in the population, not in a finite fold. Without
    truth (a real suite, the U-CCD control of §7 step 6) the target is the measured D_avg(J). ``headline`` picks
    Frail-τ's contrast head and the baseline (raw or residualised) with the best Spearman on the target (D⊥ with
    truth, D_avg without).
    """
    frame = observations_frame(rows)  # every stratum: Frail-τ targets U-CCD (§2)
    jobs = job_targets(frame)
    t = None if truth is None else pd.DataFrame(truth).set_index("base_id").reindex(jobs.index)
    fingerprint = dataset_fingerprint((r.base_id, r.twin_id, r.dose) for r in rows)
    shared = fold_free_features(frame, featurizer, featurizer_options or {})
    per_seed = []
    for seed in seeds:
        split = make_split(jobs.index, fingerprint, seed)
        pred, obs, model = run_tau_seed(frame, split, featurizer, config, shared, **(featurizer_options or {}))
        pred = pred.set_index("base_id")
        test_ids = list(pred.index)
        job_methods, job_level = _job_level(jobs, split, pred, t)
        obs_level = _observation_level(frame, split, obs, test_ids, job_methods)
        per_seed.append(
            {
                "seed": seed,
                "n_test_jobs": len(test_ids),
                "n_test_observations": len(obs),
                "seconds": model.seconds,
                "observation": obs_level,
                "job": job_level,
            }
        )
    mean = {level: _mean_over_seeds(per_seed, level) for level in ("observation", "job")}
    return {
        "featurizer": featurizer,
        "featurizer_options": featurizer_options or {},
        "config": asdict(config or TauConfig()),
        "seeds": seeds,
        "target": "tau" if t is not None else "d_avg",
        "per_seed": per_seed,
        "mean": mean,
        "headline": _headline(mean["job"], truth is not None),
    }


NOT_BASELINES = ("frail_tau_contrast", "frail_tau_ex_ante", "frail_tau_ex_ante_resid", "oracle_d_perp")


def _headline(job: dict[str, dict[str, float | None]], has_truth: bool) -> dict[str, Any]:
    key = "spearman_d_perp" if has_truth else "spearman"
    baselines = {m: cells for m, cells in job.items() if m not in NOT_BASELINES and cells[key] is not None}
    # the baselines kept have a value
    best = max(baselines, key=lambda m: baselines[m][key]) if baselines else None  # type: ignore[arg-type, return-value]
    out: dict[str, Any] = {
        "target": "d_perp" if has_truth else "d_avg",
        "frail_tau": {"spearman": job["frail_tau_contrast"][key], "abs_rho_C": job["frail_tau_contrast"]["abs_rho_C"]},
    }
    out["best_baseline"] = (
        None
        if best is None
        else {"name": best, "spearman": baselines[best][key], "abs_rho_C": baselines[best]["abs_rho_C"]}
    )
    if has_truth:
        out["sampling_floor_abs_rho_C"] = job["oracle_d_perp"]["abs_rho_C"]
    return out


def _print(result: dict[str, Any]) -> None:
    for level, methods in result["mean"].items():
        print(level)
        for method, cells in methods.items():
            print(f"  {method:20s} " + "  ".join(f"{k} {'n/a' if v is None else f'{v:.3f}'}" for k, v in cells.items()))
    h = result["headline"]
    rho_c = [f"{s['job']['frail_tau_contrast']['abs_rho_C']:.3f}" for s in result["per_seed"]]
    print(
        f"headline (job level, target {h['target']}): Frail-τ contrast ρ_S {h['frail_tau']['spearman']:.3f} at "
        f"|ρ_C| {h['frail_tau']['abs_rho_C']:.3f} (per seed {', '.join(rho_c)})"
        + (
            ""
            if h["best_baseline"] is None
            else f"; best baseline {h['best_baseline']['name']} ρ_S "
            f"{h['best_baseline']['spearman']:.3f} at |ρ_C| {h['best_baseline']['abs_rho_C']:.3f}"
        )
        + (
            ""
            if "sampling_floor_abs_rho_C" not in h
            else f"; |ρ_C| of the oracle D⊥ on the same folds {h['sampling_floor_abs_rho_C']:.3f}"
        )
    )


def main(argv: list[str] | None = None, prog: str = "python -m frail.tau_eval") -> int:
    """Frail-τ on a freshly generated continuous Synth-CD set (the mechanism check), or with --pairs on a suite's
    pair files (the U-CCD control: the target is the measured D_avg)."""
    import torch

    from frail.options import add_encoder_arguments, featurizer_options
    from frail.pairs import read_pair_files
    from frail.synth import generate_continuous

    parser = argparse.ArgumentParser(prog=prog, description=main.__doc__)
    parser.add_argument("--pairs", nargs="+", help="pair files of a real suite (default: generate continuous Synth-CD)")
    parser.add_argument(
        "--n-jobs",
        type=cli_integer(2),
        default=5000,
        help="Synth-CD jobs (5000: a test fold of 1500, whose "
        "sampling floor for |rho_C| is about 0.03; at 500 it is about 0.07)",
    )
    parser.add_argument("--data-seed", type=cli_integer(0), default=42, help="Synth-CD generator seed")
    parser.add_argument("--seeds", type=cli_integers(0), default="0,1,2", help="split / training seeds")
    parser.add_argument("--featurizer", default="bow_svd", choices=available_featurizers())
    parser.add_argument(
        "--encoder-kind",
        choices=ENCODERS,
        default=TauConfig.encoder,
        help="Frail-τ's shared encoder over the features (linear keeps h − h' a function of the edit)",
    )
    parser.add_argument("--lambda-inv", type=float, default=TauConfig.lambda_inv)
    parser.add_argument("--threads", type=cli_integer(1), default=1)
    parser.add_argument("--out", help="write the full result as JSON here")
    add_encoder_arguments(parser)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    options = featurizer_options(args)
    if args.pairs:
        rows, truth = read_pair_files(args.pairs), None
    else:
        rows, truth = generate_continuous(args.n_jobs, args.data_seed)
    config = TauConfig(encoder=args.encoder_kind, lambda_inv=args.lambda_inv)
    result = tau_check(rows, args.seeds, args.featurizer, config, truth, options)
    result["data"] = (
        {"pairs": args.pairs}
        if args.pairs
        else {"synth": "continuous", "n_jobs": args.n_jobs, "data_seed": args.data_seed}
    )
    _print(result)
    if args.out:
        write_text_atomic(args.out, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(reports_input_errors("python -m frail.tau_eval")(main)())
