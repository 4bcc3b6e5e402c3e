"""Frail-τ on pair observations and the Synth-CD mechanism check (§2 Frail-τ; §7 steps 6 and 11).

One seed: base-id-disjoint folds (``splits.py``), a frozen featurizer fitted on the training fold's base and twin
texts, Frail-τ trained on the training fold and early-stopped on validation, job-level contrast τ̂(J) and ex-ante
D̂(J) on the test fold. The mechanism check runs it on the continuous Synth-CD variant, where the truth τ(J) and the
oracle D⊥ are known, and reports for Frail-τ's two heads and for every baseline (fitted to the measured D_avg on
the same folds) the test-fold Spearman and |ρ_C| = |Spearman(prediction, C)|, per observation (Δ̂(J, T) against
Δ(J, T), the contrast head's target) and per job (against τ and against D⊥): the contrast head should reach the
best Spearman with the lowest |ρ_C| without any residualisation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .baselines import run_baselines
from .estimands import job_targets, observations_frame, spearman
from causal_suite.files import write_text_atomic
from .featurizers import available_featurizers, make_featurizer
from .models.tau import FrailTau, TauConfig, TauData
from .pairs import PairObservation
from .splits import Split, dataset_fingerprint, make_split


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


def run_tau_seed(frame: pd.DataFrame, split: Split, featurizer: str = "tfidf_svd", config: TauConfig | None = None,
                 **featurizer_options: Any) -> tuple[pd.DataFrame, pd.DataFrame, FrailTau]:
    """Train on the training fold, early-stop on validation; test-fold predictions per job (contrast τ̂, ex-ante D̂)
    and per observation (the test rows of ``frame``, an ``observations_frame``, with ``contrast_obs`` = Δ̂(J, T))."""
    start = time.perf_counter()
    config = config or TauConfig()
    roles = frame["base_id"].map(split.role_of).to_numpy()
    feat = make_featurizer(featurizer, seed=split.seed, **featurizer_options)
    train_rows = frame[roles == "train"]
    feat.fit(sorted(set(train_rows["base_text"]) | set(train_rows["twin_text"])))
    texts = sorted(set(frame["base_text"]) | set(frame["twin_text"]))
    features = dict(zip(texts, feat.transform(texts)))
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
        contrast_obs=pred["contrast_obs"])
    model.seconds = time.perf_counter() - start
    return out, obs.reset_index(drop=True), model


def _scores(pred: np.ndarray, target: np.ndarray, c: np.ndarray, extra: dict[str, np.ndarray] | None = None) -> dict[str, float | None]:
    rho_c = spearman(pred, c)
    out = {"spearman": spearman(pred, target), "abs_rho_C": None if rho_c is None else abs(rho_c)}
    out.update({f"spearman_{k}": spearman(pred, v) for k, v in (extra or {}).items()})
    return out


def _mean_over_seeds(per_seed: list[dict[str, Any]], level: str) -> dict[str, dict[str, float | None]]:
    methods = per_seed[0][level]
    out = {}
    for m, cells in methods.items():
        out[m] = {}
        for k in cells:
            values = [s[level][m][k] for s in per_seed if s[level][m][k] is not None]
            out[m][k] = float(np.mean(values)) if values else None
    return out


def synth_mechanism_check(rows: list[PairObservation], truth: list[dict[str, Any]], seeds: list[int],
                          featurizer: str = "tfidf_svd", config: TauConfig | None = None) -> dict[str, Any]:
    """Test-fold Spearman and |ρ_C| per seed and averaged, at two levels.

    ``observation``: Δ̂(J, T) against the observed Δ(J, T) over test twins (the contrast head's own target), with
    |Spearman(Δ̂, C)|; job-level predictors enter broadcast to their twins, and ``operator_mean`` (the training
    fold's mean Δ per operator, read from the labels rather than the text) is the surface-only reference.
    ``job``: each job-level prediction against the true τ(J) (``spearman``) and the oracle D⊥ (``spearman_d_perp``).
    """
    frame = observations_frame(rows)  # every stratum: Frail-τ targets U-CCD (§2)
    jobs = job_targets(frame)
    t = pd.DataFrame(truth).set_index("base_id").reindex(jobs.index)
    fingerprint = dataset_fingerprint((r.base_id, r.twin_id, r.dose) for r in rows)
    per_seed = []
    for seed in seeds:
        split = make_split(jobs.index, fingerprint, seed)
        pred, obs, model = run_tau_seed(frame, split, featurizer, config)
        pred = pred.set_index("base_id")
        test_ids = list(pred.index)
        job_methods = {"frail_tau_contrast": pred["contrast"].to_numpy(), "frail_tau_ex_ante": pred["ex_ante"].to_numpy()}
        for name, by_target in run_baselines(jobs.loc[split.ids("train")], jobs.loc[test_ids], ["d_avg"], seed).items():
            if by_target["d_avg"] is not None:
                job_methods[name] = by_target["d_avg"]
        tau, perp, c = (t.loc[test_ids, k].to_numpy() for k in ("tau", "d_perp_oracle", "C"))
        job_level = {m: _scores(p, tau, c, {"d_perp": perp}) for m, p in job_methods.items()}

        position = {b: i for i, b in enumerate(test_ids)}
        at = obs["base_id"].map(position).to_numpy()
        train_rows = frame[frame["base_id"].map(split.role_of) == "train"]
        obs_methods = {"frail_tau_contrast": obs["contrast_obs"].to_numpy(),
                       "operator_mean": obs["family"].map(train_rows.groupby("family")["delta"].mean()).to_numpy()}
        obs_methods.update({m: p[at] for m, p in job_methods.items() if m != "frail_tau_contrast"})
        obs_level = {m: _scores(p, obs["delta"].to_numpy(), obs["C"].to_numpy()) for m, p in obs_methods.items()}
        per_seed.append({"seed": seed, "n_test_jobs": len(test_ids), "n_test_observations": len(obs),
                         "seconds": model.seconds, "observation": obs_level, "job": job_level})
    return {"featurizer": featurizer, "seeds": seeds, "per_seed": per_seed,
            "mean": {level: _mean_over_seeds(per_seed, level) for level in ("observation", "job")}}


def main(argv: list[str] | None = None, prog: str = "python -m frail.tau_eval") -> int:
    """The Frail-τ mechanism check on a freshly generated continuous Synth-CD set (``frail tau``)."""
    import torch

    from .synth import generate_continuous

    parser = argparse.ArgumentParser(prog=prog, description=main.__doc__)
    parser.add_argument("--n-jobs", type=int, default=500)
    parser.add_argument("--data-seed", type=int, default=42)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--featurizer", default="tfidf_svd", choices=available_featurizers())
    parser.add_argument("--lambda-inv", type=float, default=TauConfig.lambda_inv)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", help="write the full result as JSON here")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows, truth = generate_continuous(args.n_jobs, args.data_seed)
    result = synth_mechanism_check(rows, truth, [int(s) for s in args.seeds.split(",")], args.featurizer,
                                   TauConfig(lambda_inv=args.lambda_inv))
    for level, methods in result["mean"].items():
        print(level)
        for method, cells in methods.items():
            print(f"  {method:20s} " + "  ".join(f"{k} {'n/a' if v is None else f'{v:.3f}'}" for k, v in cells.items()))
    if args.out:
        write_text_atomic(args.out, json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
