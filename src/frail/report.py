"""``frail report`` (§7 steps 5-10, §10-11): several seeds of the Frail-π protocol, written as report.md,
summary.json, plots (predicted vs measured π, dose-response curves, orthogonality) and, with ``dump_predictions``,
per-seed test-fold predictions including p(J, m) at every design dose.

summary.json holds, per seed and as mean ± sd over seeds, the test-fold Spearman of π, a, b (and the worst case)
for Frail-π and every baseline, the CRD Spearman, the orthogonality block, the curation block (Recall@k of the truly
fragile jobs against random and oracle, ``curation.py``) and the reliability block (the π ceiling with raw and
normalised ρ_S, and the identity-twin floor when the pairs hold identity twins, ``reliability.py``). A corpus with
too few solvable bases yields a report that says so, with nulls rather than NaNs.

Protocols (§2 "Two protocols, never merged"): ``text`` trains Frail-π on the problem statement only; ``text_probe``
adds the base probes of a probe file (``probes.py``: statistics of repeated solver draws of the base prompt, a
model-access claim) to Frail-π's input and adds the ``probe_only`` baseline; ``both`` writes each protocol's full
report into ``OUT/text/`` and ``OUT/text_probe/`` and an ``OUT/report.md`` that shows their Spearman tables one
after the other, never pooled or averaged. The probe file must come from the pairs' solver and cover every base;
it is checked before anything is written.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError
from causal_suite.files import write_figure_atomic, write_text_atomic
from causal_suite.fragility import FRAGILE_THRESHOLD
from frail.comparison import (
    aggregate_family,
    aggregate_method_cells,
    comparison_block,
    comparison_markdown,
    family_markdown,
    format_mean_sd,
    mean_sd,
)
from frail.curation import curation_block
from frail.estimands import design_dose_centre, dose_composition, job_targets, observations_frame, spearman
from frail.evaluation import CONTROL_TARGET, TARGETS, Dataset, SeedResult, run_seed
from frail.learned_baselines import DEFAULT_BASELINES, LEARNED_BASELINES
from frail.models.pi import PiConfig
from frail.pairs import read_pair_files
from frail.probes import ProbeSet
from frail.reliability import ceiling_block
from frail.report_config import ReportConfig
from frail.splits import dataset_fingerprint, make_split

MIN_SOLVABLE = 15
PROTOCOL_NOTES = {
    "text": "problem statement only",
    "text_probe": "problem statement + base probes (repeated solver draws of the base prompt; needs model access)",
}


def load_dataset(pair_files: Sequence[str | Path]) -> Dataset:
    rows = read_pair_files(pair_files)
    obs = observations_frame(rows)
    doses = sorted(int(d) for d in obs["dose"].unique())
    m_bar = design_dose_centre(obs["dose"].to_numpy())
    return Dataset(
        obs=obs,
        jobs=job_targets(obs, m_bar),
        doses=doses,
        m_bar=m_bar,
        composition=dose_composition(obs, doses),
        fingerprint=dataset_fingerprint((r.base_id, r.twin_id, r.dose) for r in rows),
        rows=rows,
    )


def _progress(seed: int, stream=None):
    """Per-epoch progress on ``stream`` (default: the current ``sys.stderr``, looked up per call)."""

    def show(epoch: int, max_epochs: int, train: float, val: float) -> None:
        out = stream or sys.stderr
        line = f"[frail] seed {seed}: epoch {epoch}/{max_epochs}  train BCE {train:.4f}  val BCE {val:.4f}"
        if out.isatty():
            out.write("\r" + line)
        elif epoch == 1 or epoch % 10 == 0:
            out.write(line + "\n")
        out.flush()

    return show


def _aggregate(results: list[SeedResult]) -> dict[str, Any]:
    done = [r for r in results if r.skipped is None]
    methods = list(done[0].spearman) if done else []
    by_method = {m: {t: mean_sd([r.spearman[m].get(t) for r in done]) for t in done[0].spearman[m]} for m in methods}
    ortho = {
        block: {k: mean_sd([r.orthogonality[block][k] for r in done]) for k in done[0].orthogonality[block]}
        for block in (done[0].orthogonality if done else {})
    }
    return {
        "spearman": by_method,
        "crd": {"spearman_frail_pi": mean_sd([r.crd.get("spearman_frail_pi") for r in done])},
        "orthogonality": ortho,
        "corr_pred_C": aggregate_method_cells([r.corr_pred_c for r in done]),
        "family": aggregate_family([r.family_spearman for r in done]),
    }


def _curation(result: SeedResult) -> dict[str, Any]:
    """One seed's curation block, or the reason it is undefined (e.g. no fragile job in the test fold)."""
    try:
        return curation_block(result.predictions)
    except SuiteInputError as exc:
        return {"error": str(exc)}


def _aggregate_curation(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean ± sd over seeds of each ranking's Recall@k (predictors, random, oracle)."""
    ok = [b for b in blocks if "error" not in b]
    if not ok:
        return {"error": blocks[0]["error"] if blocks else "no seed was evaluated."}
    rankings = {name: [b["model"][name] for b in ok] for name in ok[0]["model"]}
    rankings.update(random=[b["random"] for b in ok], oracle=[b["oracle"] for b in ok])
    return {
        "n_seeds": len(ok),
        "n_fragile_mean": float(np.mean([b["n_fragile"] for b in ok])),
        "n_jobs_mean": float(np.mean([b["n_jobs"] for b in ok])),
        "recall": {name: {k: mean_sd([s[k] for s in seeds]) for k in seeds[0]} for name, seeds in rankings.items()},
    }


def _reliability(data: Dataset, spearman: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ceiling on π with each method's mean test-fold ρ_S(π) raw and normalised, and the identity-twin floor."""
    try:
        return ceiling_block(
            data.obs,
            {m: cells["pi"]["mean"] for m, cells in spearman.items() if "pi" in cells},
            rows=data.rows,
            n_repeats=30,
            seed=0,
        )
    except SuiteInputError as exc:
        return {"error": str(exc)}


def _probe_line(record: dict[str, Any]) -> str:
    cov = record["coverage"]
    return (
        f"- probe file: {record['path']} (sha256 `{record['sha256'][:16]}`, solver `{record['solver']}`, "
        f"{record['n_samples'] or 'unknown'} draws per base, features {', '.join(record['features'])}; "
        f"covers {cov['covered']} of {cov['pair_bases']} pair bases)"
    )


def _spearman_table(summary: dict[str, Any]) -> list[str]:
    if summary["status"] != "ok":
        return ["**No evaluation:** " + summary["message"]]
    cols = [*TARGETS, CONTROL_TARGET, "worst_case"]
    lines = ["| method | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for method, cells in summary["aggregate"]["spearman"].items():
        lines.append(
            f"| {method} | " + " | ".join(format_mean_sd(cells[c]) if c in cells else "—" for c in cols) + " |"
        )
    return lines + [
        "",
        "n/a: the method has no input for this target or the target is constant (e.g. b with one dose). "
        "d_avg (the U-CCD control) is regressed by the baselines on every job of the folds, solved or not; "
        "Frail-π predicts breaks of solved bases only (—).",
    ]


def _markdown(summary: dict[str, Any]) -> str:
    protocol = summary["protocol"]
    lines = [
        "# Frail report",
        "",
        f"- pairs: {', '.join(summary['pairs'])}",
        f"- featurizer: `{summary['featurizer']}`",
        f"- protocol: `{protocol}` ({PROTOCOL_NOTES[protocol]})",
        *([_probe_line(summary["probes"])] if "probes" in summary else []),
        f"- seeds: {summary['seeds']}; doses {summary['doses']} (m̄ = {summary['m_bar']})",
        f"- jobs {summary['n_jobs']}, solvable {summary['n_solvable']}, observations {summary['n_observations']}",
        f"- dataset fingerprint `{summary['fingerprint'][:16]}`",
        "",
    ]
    if summary["status"] != "ok":
        return "\n".join(lines + _spearman_table(summary) + [""])
    agg = summary["aggregate"]
    lines += [
        "## Test-fold Spearman (mean ± sd over seeds)",
        "",
        *_spearman_table(summary),
        "",
        "## CRD (π residualised on C, cross-fitted on the evaluation folds)",
        "",
        f"- Spearman(D⊥ predicted, D⊥ measured): {format_mean_sd(agg['crd']['spearman_frail_pi'])}",
        "",
        "## Orthogonality (Pearson, test fold)",
        "",
        "| quantity | Corr(target, C) | Corr(pred, C) | Corr(pred, C²) |",
        "|---|---|---|---|",
    ]
    for block, cells in agg["orthogonality"].items():
        values = (cells[k] for k in ("corr_target_C", "corr_pred_C", "corr_pred_C2"))
        lines.append(f"| {block} | " + " | ".join(map(format_mean_sd, values)) + " |")
    lines += _reliability_markdown(summary["reliability"])
    lines += comparison_markdown(summary["comparison"]) + family_markdown(agg["family"])
    lines += _curation_markdown(summary["curation"])
    lines += [
        "",
        "## Per seed",
        "",
        "| seed | epochs | seconds | s / encoder epoch | Frail-π ρ(π) | note |",
        "|---|---|---|---|---|---|",
    ]
    for r in summary["per_seed"]:
        rho = r.get("spearman", {}).get("frail_pi", {}).get("pi")
        per_epoch = r.get("epoch_seconds")
        lines.append(
            f"| {r['seed']} | {r.get('epochs', 0)} | {r.get('seconds', 0):.1f} | "
            f"{'—' if per_epoch is None else f'{per_epoch:.1f}'} | "
            f"{'n/a' if rho is None else f'{rho:.3f}'} | {r.get('skipped') or ''} |"
        )
    lines += ["", "Plots: `pi_scatter.png`, `dose_response.png`, `orthogonality.png`.", ""]
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _reliability_markdown(block: dict[str, Any]) -> list[str]:
    lines = ["", "## Reliability (§11)", ""]
    if "error" in block:
        return lines + [f"No ceiling: {block['error']}"]
    c = block["ceiling"]
    lines += [
        f"- ceiling on ρ_S(π): {c['ceiling']:.3f} ± {c['sd']:.3f} (parametric bootstrap, {c['n_repeats']} "
        f"repeats, cross-validated empirical-Bayes prior; all {c['n_jobs']} solvable jobs, {c['mean_twins']:.1f} "
        "twins each on average)",
        "",
        "| method | raw ρ_S(π), test-fold mean | normalised (raw / ceiling) |",
        "|---|---|---|",
    ]
    for method, cell in block["spearman_pi"].items():
        lines.append(f"| {method} | {_num(cell['raw'])} | {_num(cell['normalised'])} |")
    floor = block.get("identity_floor")
    lines += [
        "",
        (
            f"- identity-twin floor: {floor['floor']:.3f} (95 % CI {floor['ci95'][0]:.3f}–{floor['ci95'][1]:.3f}; "
            f"{floor['breaks']} breaks in {floor['identity_twins']} identity twins of {floor['bases']} solved bases)"
        )
        if floor
        else "- identity-twin floor: the pairs hold no identity twins.",
    ]
    return lines


def _curation_markdown(block: dict[str, Any]) -> list[str]:
    lines = [
        "",
        f"## Curation: Recall@k of fragile jobs (π > {FRAGILE_THRESHOLD:g}), test fold, mean ± sd over seeds",
        "",
    ]
    if "error" in block:
        return lines + [f"No curation table: {block['error']}"]
    budgets = list(next(iter(block["recall"].values())))
    lines += [
        f"{block['n_fragile_mean']:.1f} fragile of {block['n_jobs_mean']:.1f} test jobs on average.",
        "",
        "| ranking | " + " | ".join(budgets) + " |",
        "|---" * (len(budgets) + 1) + "|",
    ]
    for name, cells in block["recall"].items():
        lines.append(f"| {name} | " + " | ".join(format_mean_sd(cells[k]) for k in budgets) + " |")
    return lines


def _plots(out: Path, result: SeedResult, data: Dataset) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pred = result.predictions
    assert pred is not None and result.p_test is not None  # a seed that was not skipped
    fig, ax = plt.subplots(figsize=(4.5, 4))
    ax.scatter(pred["pi"], pred["pi_hat"], s=8, alpha=0.6)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="y = x")
    rho = spearman(pred["pi_hat"].to_numpy(), pred["pi"].to_numpy())
    ax.set(
        xlabel="measured π (test fold)",
        ylabel="Frail-π predicted π",
        title=f"seed {result.seed}: ρ_S = {'n/a' if rho is None else f'{rho:.3f}'} (n = {len(pred)})",
    )
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    write_figure_atomic(fig, out / "pi_scatter.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 4))
    picks = pred.sort_values("pi").iloc[np.linspace(0, len(pred) - 1, min(4, len(pred))).astype(int)]
    rates = data.obs.groupby(["base_id", "dose"])["B"].mean()
    for (_, row), color in zip(picks.iterrows(), ["C0", "C1", "C2", "C3"], strict=False):
        i = list(pred["base_id"]).index(row["base_id"])
        ax.plot(data.doses, result.p_test[i], color=color, label=str(row["base_id"])[:24])
        measured = rates.loc[row["base_id"]]
        ax.scatter(measured.index, measured.to_numpy(), color=color, marker="x")
    ax.set(xlabel="dose m", ylabel="break probability", title="predicted p(J, m) (lines), measured (x)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    write_figure_atomic(fig, out / "dose_response.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(4.5, 4))
    ax.scatter(pred["C"], pred["pi_hat"], s=8, alpha=0.5, label="predicted π")
    ax.scatter(pred["C"], pred["crd_hat"], s=8, alpha=0.5, label="predicted D⊥")
    ax.set(xlabel="declared complexity C", ylabel="prediction", title="orthogonality to C")
    ax.legend(fontsize=7)
    fig.tight_layout()
    write_figure_atomic(fig, out / "orthogonality.png")
    plt.close(fig)
    return ["pi_scatter.png", "dose_response.png", "orthogonality.png"]


def _dump_predictions(out: Path, result: SeedResult, doses: list[int]) -> None:
    """The seed's test-fold predictions with p(J, m) per design dose (columns ``p_m{m}``), written atomically."""
    assert result.predictions is not None and result.p_test is not None  # a seed that was not skipped
    frame = result.predictions.copy()
    for j, m in enumerate(doses):
        frame[f"p_m{m}"] = result.p_test[:, j]
    write_text_atomic(out / f"predictions_seed{result.seed}.csv", frame.to_csv(index=False))


def probe_inputs(probes: ProbeSet, data: Dataset) -> pd.DataFrame:
    """The probe features of every job of ``data`` (rows in job order), after checking that the probe file comes
    from the pairs' solver and covers every base."""
    solvers = sorted({r.solver for r in data.rows or [] if r.solver})
    if solvers and probes.solver != solvers[0]:
        raise SuiteInputError(
            f"probe file '{probes.path}' holds draws of solver '{probes.solver}' but the pairs were scored by "
            f"'{solvers[0]}': the probes and the pairs must come from one solver."
        )
    return probes.frame(data.jobs.index)


def _summary_head(
    data: Dataset, config: ReportConfig, probes: ProbeSet | None, probe_frame: pd.DataFrame | None
) -> dict[str, Any]:
    """The summary's description of the run (inputs, options, dataset sizes), before any seed."""
    summary: dict[str, Any] = {
        "pairs": list(config.pair_files),
        "featurizer": config.featurizer,
        "featurizer_options": dict(config.featurizer_options),
        "protocol": "text" if probe_frame is None else "text_probe",
        "seeds": list(config.seeds),
        "baselines": list(_baseline_names(config)),
        "baseline_encoder": config.baseline_encoder,
        "baseline_encoder_model": config.baseline_encoder_model,
        "doses": data.doses,
        "m_bar": data.m_bar,
        "n_jobs": len(data.jobs),
        "n_solvable": int(data.jobs["solvable"].sum()),
        "n_observations": len(data.obs),
        "fingerprint": data.fingerprint,
        "status": "ok",
        "per_seed": [],
    }
    if probes is not None:
        summary["probes"] = probes.record(data.jobs.index)
    return summary


def _run_one_seed(
    data: Dataset, config: ReportConfig, out: Path, seed: int, probe_frame: pd.DataFrame | None
) -> tuple[SeedResult, dict[str, Any]]:
    """One seed on its split: the result and its per-seed summary record (predictions and model written if asked)."""
    split = make_split(data.jobs.index, data.fingerprint, seed)
    result = run_seed(
        data,
        split,
        config.featurizer,
        config.pi or PiConfig(),
        _progress(seed) if config.show_progress else None,
        dict(config.featurizer_options),
        config.encoder,
        probe_frame,
        baselines=_baseline_names(config),
        baseline_encoder=config.baseline_encoder,
        baseline_encoder_model=config.baseline_encoder_model,
    )
    if config.show_progress and sys.stderr.isatty():
        sys.stderr.write("\n")
    record = {"seed": seed, "n": result.n, "skipped": result.skipped}
    if result.skipped is None:
        record.update(
            spearman=result.spearman,
            crd=result.crd,
            orthogonality=result.orthogonality,
            corr_pred_C=result.corr_pred_c,
            family_spearman=result.family_spearman,
            curation=_curation(result),
            epochs=result.epochs,
            epoch_seconds=result.epoch_seconds,
            seconds=result.seconds,
        )
        if config.dump_predictions:
            _dump_predictions(out, result, data.doses)
        if config.save_models:
            assert result.model is not None  # a seed that was not skipped
            result.model.save(
                out / "models" / f"frail_pi_seed{seed}.pt", split, result.featurizer, result.probe_standardiser
            )
    return result, record


def _summarise_seeds(summary: dict[str, Any], results: list[SeedResult], data: Dataset, out: Path) -> None:
    """The over-seed blocks of the summary (aggregate, curation, reliability, comparison, plots), or the reason
    there are none."""
    done = [r for r in results if r.skipped is None]
    if not done:
        summary["status"] = "insufficient_data"
        summary["message"] = "; ".join(str(r.skipped) for r in results) + "."
        return
    summary["aggregate"] = _aggregate(results)
    summary["curation"] = _aggregate_curation([r["curation"] for r in summary["per_seed"] if "curation" in r])
    summary["reliability"] = _reliability(data, summary["aggregate"]["spearman"])
    ceiling = summary["reliability"].get("ceiling", {}).get("ceiling")
    agg = summary["aggregate"]
    summary["comparison"] = comparison_block(agg["spearman"], agg["corr_pred_C"], ceiling)
    summary["plots"] = _plots(out, done[0], data)


def _run_protocol(
    data: Dataset,
    config: ReportConfig,
    out: Path,
    probes: ProbeSet | None,
    probe_frame: pd.DataFrame | None,
) -> dict[str, Any]:
    """One protocol's complete report in ``out``: the text protocol when ``probe_frame`` is None, else text_probe."""
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    summary = _summary_head(data, config, probes, probe_frame)
    n_solvable = summary["n_solvable"]
    if n_solvable < MIN_SOLVABLE:
        summary["status"] = "insufficient_data"
        summary["message"] = (
            f"only {n_solvable} of {len(data.jobs)} bases are solved by the scoring model (Y(J) = 1); CCD is defined "
            f"on that stratum and the evaluation needs at least {MIN_SOLVABLE}: score more bases or a stronger solver."
        )
    else:
        results = []
        for seed in config.seeds:
            result, record = _run_one_seed(data, config, out, seed, probe_frame)
            results.append(result)
            summary["per_seed"].append(record)
        _summarise_seeds(summary, results, data, out)
    summary["wall_seconds"] = time.perf_counter() - start
    summary["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=1))
    write_text_atomic(out / "report.md", _markdown(summary))
    return summary


def _both_markdown(summary: dict[str, Any], parts: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# Frail report: the text and text_probe protocols",
        "",
        f"- pairs: {', '.join(summary['pairs'])}",
        f"- featurizer: `{summary['featurizer']}`; seeds {summary['seeds']}",
        _probe_line(summary["probes"]),
        "",
        "The two protocols are separate claims and are reported separately, never pooled or averaged: "
        "`text` reads the problem statement only; `text_probe` also reads statistics of repeated solver draws "
        "of the base prompt, which needs access to the solver. Full reports: `text/report.md`, "
        "`text_probe/report.md`.",
        "",
    ]
    for protocol, part in parts.items():
        lines += [
            f"## Protocol `{protocol}`: {PROTOCOL_NOTES[protocol]}",
            "",
            "Test-fold Spearman (mean ± sd over seeds):",
            "",
            *_spearman_table(part),
            "",
        ]
    return "\n".join(lines)


def _baseline_names(config: ReportConfig) -> tuple[str, ...]:
    return DEFAULT_BASELINES if config.baselines is None else config.baselines


def _check_baseline_encoder(config: ReportConfig) -> None:
    """Load the named encoder of the encoder baselines once, before anything is read or written, so that a bad name
    fails as one sentence (``frail.encoders.load_encoder``) rather than after the first seed."""
    if config.baseline_encoder_model is None or not set(_baseline_names(config)) & set(LEARNED_BASELINES):
        return
    from frail.encoders import load_encoder

    load_encoder(config.baseline_encoder_model)


def run_report(config: ReportConfig) -> dict[str, Any]:
    """Run every seed of ``config.protocol``, write report.md / summary.json / plots (and predictions) into
    ``config.out_dir``; return the summary. The config checked its protocol and probe file when it was built; the
    probe file's solver and coverage are checked here, before anything is written."""
    _check_baseline_encoder(config)
    data = load_dataset(list(config.pair_files))
    probe_frame = None
    if config.probes is not None:
        probe_frame = probe_inputs(config.probes, data)
    out = config.out_dir
    if config.protocol != "both":
        return _run_protocol(data, config, out, config.probes, probe_frame)
    start = time.perf_counter()
    parts = {
        "text": _run_protocol(data, config, out / "text", None, None),
        "text_probe": _run_protocol(data, config, out / "text_probe", config.probes, probe_frame),
    }
    failed = [f"{name}: {part['message']}" for name, part in parts.items() if part["status"] != "ok"]
    summary: dict[str, Any] = {
        "protocol": "both",
        "pairs": list(config.pair_files),
        "featurizer": config.featurizer,
        "seeds": list(config.seeds),
        "probes": parts["text_probe"]["probes"],
        "status": "ok" if not failed else "insufficient_data",
        "protocols": {
            name: {
                "summary": f"{name}/summary.json",
                "report": f"{name}/report.md",
                "status": part["status"],
                "spearman": part.get("aggregate", {}).get("spearman"),
            }
            for name, part in parts.items()
        },
    }
    if failed:
        summary["message"] = "; ".join(failed)
    summary["wall_seconds"] = time.perf_counter() - start
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=1))
    write_text_atomic(out / "report.md", _both_markdown(summary, parts))
    return summary
