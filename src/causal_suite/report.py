"""``causal-suite report LOGS... --out DIR``: tables and figures from eval logs, one model or many side by side.

Reads every ``.eval`` log given (files or folders), groups them by benchmark and model, and writes to ``DIR``:

- CoBe: accuracy by causal-graph type, domain and query phrasing (the paper's Fig. 3-5 style), and the failure rate
  of each check (E0 connectors, E1 facts that stay, E2 facts that change);
- GlassGSM / GlassMATH: the break rate P(B=1 | Y(base)=1) against dose, one line per operator family, with the
  identity-twin floor as a band (the fragility paper's dose-response figure);
- CausalVerify Exp B: the L1 -> L2a -> L2b -> L2b+ funnel per design family, the tolerance sweep, and, with the
  calibration arm, the reliability diagram; a replay of upstream's cached responses gets the published levels
  beside ours when ``--published`` points at upstream's score CSV.

Every rate is drawn with its 95 % interval clustered by the task's unit of independence (CoBe: core example; glass:
base problem; exp_b: scenario; ``causal_suite.uncertainty``: Wilson's interval at the effective sample size, so it
keeps a width at 0 and 1) and the n it stands on printed beside each bar or point. Each figure is a PNG beside a
CSV of exactly the numbers it plots (value, ``se``, ``low``, ``high``, ``n``, ``clusters``), and ``report.md``
links them all. The figure functions return those numbers as DataFrames, so tests check the data, not pixels.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from inspect_ai.log import EvalLog
from inspect_ai.scorer import SampleScore

from causal_suite.errors import SuiteInputError
from causal_suite.files import output_folder, write_figure_atomic, write_text_atomic
from causal_suite.logs import LOG_SUFFIXES, LogDigest, read_log_digest
from causal_suite.uncertainty import RateEstimate, rate

EXP_B_LEVELS = ("L1", "L2a", "L2b", "L2b_plus")
COBE_GROUPS = ("graph_type", "domain", "phrasing")


@dataclass(frozen=True)
class Figure:
    """One figure of the report: its file stem, title and the numbers it plots."""

    name: str
    title: str
    data: pd.DataFrame


def find_logs(paths: list[str]) -> list[Path]:
    """The ``.eval`` files among ``paths`` (folders searched recursively), sorted, and ``.json`` logs given as
    files; one sentence when none."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.eval") if not p.is_dir())
        elif path.suffix in LOG_SUFFIXES and path.exists():
            found.append(path)
        else:
            raise SuiteInputError(f"report: '{raw}' is neither an .eval log nor a folder holding some.")
    if not found:
        raise SuiteInputError(f"report: no .eval logs under {', '.join(paths)}.")
    return found


def benchmark_of(log: LogDigest | EvalLog) -> str | None:
    """``cobe``, ``glass`` or ``exp_b`` for a log of the suite's tasks, else None (left out of the report)."""
    name = log.eval.task.split("/")[-1]
    return {"cobe": "cobe", "glassgsm": "glass", "glassmath": "glass", "exp_b": "exp_b"}.get(name)


def needs_sample_scores(header: EvalLog) -> bool:
    """Whether the figures of a log read its samples' scores: glass figures read the header's reductions and the
    samples' metadata only, so a glass log's samples are held without their scores (at GlassMATH scale those are
    most of the report's memory)."""
    return benchmark_of(header) != "glass"


def _label(log: LogDigest) -> str:
    replayed = (log.eval.metadata or {}).get("replayed_model")
    return f"{log.eval.model} (replay of {replayed})" if replayed else log.eval.model


INTERVAL = ("se", "low", "high", "n", "clusters")


def _interval(estimate: RateEstimate, name: str) -> dict[str, float]:
    """A figure row's columns of one rate: ``name`` (the value), then its SE, 95 % interval, n and clusters."""
    return {name: estimate.value} | {k: getattr(estimate, k) for k in INTERVAL}


def _dict_scores(log: LogDigest) -> list[tuple[dict, dict, str]]:
    """(score value, sample metadata, sample id) of every sample whose first score is a dict (unscored samples
    left out)."""
    out = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        if score is not None and isinstance(score.value, dict):
            out.append((score.value, sample.metadata or {}, str(sample.id)))
    return out


# --------------------------------------------------------------------------------------------------------- CoBe
def cobe_figures(logs: list[LogDigest]) -> list[Figure]:
    """Accuracy by graph type / domain / phrasing and check failure rates, per model, clustered by core example."""
    rows, checks = [], []
    for log in logs:
        scored = _dict_scores(log)
        cores = [meta.get("core_id", meta.get("scenario_id", sid)) for _, meta, sid in scored]
        for key in COBE_GROUPS:
            groups: dict[str, tuple[list[float], list]] = defaultdict(lambda: ([], []))
            for (value, meta, _), core in zip(scored, cores, strict=False):
                groups[str(meta.get(key))][0].append(float(value["correct"]))
                groups[str(meta.get(key))][1].append(core)
            for group, (values, clusters) in sorted(groups.items()):
                row = {"model": _label(log), "breakdown": key, "group": group}
                rows.append(row | _interval(rate(values, clusters), "accuracy"))
        for check in ("E0", "E1", "E2"):
            failed = rate([1.0 - float(v[check]) for v, _, _ in scored], cores)
            checks.append({"model": _label(log), "check": check} | _interval(failed, "failure_rate"))
    table = pd.DataFrame(rows, columns=["model", "breakdown", "group", "accuracy", *INTERVAL])
    figures = [
        Figure(
            f"cobe_accuracy_by_{key}",
            f"CoBe accuracy by {key.replace('_', ' ')}",
            table[table["breakdown"] == key].drop(columns="breakdown").reset_index(drop=True),
        )
        for key in COBE_GROUPS
    ]
    figures.append(
        Figure(
            "cobe_check_failures",
            "CoBe check failure rates (E0 connectors, E1 stay, E2 change)",
            pd.DataFrame(checks, columns=["model", "check", "failure_rate", *INTERVAL]),
        )
    )
    return figures


# -------------------------------------------------------------------------------------------------------- glass
def _glass_sample_scores(log: LogDigest) -> list[SampleScore]:
    """The reduced (modal-answer) score of each sample with its metadata, as the glass metrics see them."""
    metadata = {sample.id: sample.metadata for sample in log.samples or []}
    reduction = next(iter(log.reductions or []), None)
    if reduction is None:
        return []
    return [
        SampleScore(score=s, sample_id=s.sample_id, sample_metadata=metadata.get(s.sample_id))
        for s in reduction.samples
    ]


def glass_figures(logs: list[LogDigest]) -> list[Figure]:
    """Break rate against dose per family and model, with the identity-twin floor, each clustered by base."""
    from glass_inspect.corpus import IDENTITY
    from glass_inspect.metrics import pair_break_rate, pair_outcomes

    rows = []
    for log in logs:
        pairs = pair_outcomes(_glass_sample_scores(log))
        floor = pair_break_rate([p for p in pairs if p.operator == IDENTITY])
        cells = defaultdict(list)
        for p in pairs:
            if p.operator != IDENTITY:
                cells[(p.operator, p.dose)].append(p)
        for (family, dose), members in sorted(cells.items()):
            rate_of_cell = pair_break_rate(members)
            if rate_of_cell.n == 0:  # no solved base: nothing to draw
                continue
            row = {"model": _label(log), "suite": log.eval.task.split("/")[-1], "family": family, "dose": dose}
            rows.append(
                row
                | _interval(rate_of_cell, "break_rate")
                | {"identity_floor": floor.value, "identity_floor_low": floor.low, "identity_floor_high": floor.high}
                | {"identity_floor_n": floor.n}
            )
    columns = ["model", "suite", "family", "dose", "break_rate", *INTERVAL]
    columns += ["identity_floor", "identity_floor_low", "identity_floor_high", "identity_floor_n"]
    return [
        Figure(
            "glass_break_rate_by_dose",
            "Break rate P(B=1 | Y(base)=1) against dose, identity floor shaded",
            pd.DataFrame(rows, columns=columns),
        )
    ]


# -------------------------------------------------------------------------------------------------------- exp_b
def published_levels(csv: Path, model_slug: str) -> dict[str, dict[str, float]]:
    """Upstream's published L1..L2b+ rates per family for one model slug (L2b+ is their judge-v2 column)."""
    data = pd.read_csv(csv)
    rows = data[data["model_slug"] == model_slug]
    out = {}
    for family, group in rows.groupby("method"):
        out[str(family)] = {
            "L1": group["L1"].mean(),
            "L2a": group["L2a"].mean(),
            "L2b": group["L2b"].mean(),
            "L2b_plus": group["L2b_plus_v2"].mean(),
        }
    return out


def exp_b_figures(logs: list[LogDigest], published: Path | None = None) -> list[Figure]:
    """The L1 -> L2b+ funnel per family, the tolerance sweep, and the reliability diagram where rated."""
    funnel, sweep, reliability = [], [], []
    for log in logs:
        scored = _dict_scores(log)
        by_family: dict[str, list[tuple[dict, str]]] = defaultdict(list)
        for value, meta, sid in scored:
            by_family[str(meta.get("family"))].append((value, sid))
        replayed = (log.eval.metadata or {}).get("replayed_model")
        reference = published_levels(published, replayed) if published and replayed else {}
        for family, values in sorted(by_family.items()):
            for level in EXP_B_LEVELS:
                estimate = rate([v[level] for v, _ in values], [sid for _, sid in values])
                funnel.append(
                    {"model": _label(log), "family": family, "level": level}
                    | _interval(estimate, "rate")
                    | {"published": reference.get(family, {}).get(level, float("nan"))}
                )
        tolerances = sorted({k for v, _, _ in scored for k in v if k.startswith("tol_")}, key=lambda k: int(k[4:]))
        for key in tolerances:
            estimate = rate([v[key] for v, _, _ in scored], [sid for _, _, sid in scored])
            sweep.append({"model": _label(log), "tolerance": int(key[4:]) / 100} | _interval(estimate, "L2b_plus"))
        rated = [
            (v["conf_estimate"], v["L2b_plus"])
            for v, _, _ in scored
            if "conf_estimate" in v and not math.isnan(v["conf_estimate"])
        ]
        bins: dict[int, list[tuple[float, float]]] = defaultdict(list)
        for conf, correct in rated:
            bins[min(int(conf * 10), 9)].append((conf, correct))
        for b, members in sorted(bins.items()):
            reliability.append(
                {
                    "model": _label(log),
                    "bin": b,
                    "confidence": sum(c for c, _ in members) / len(members),
                    "accuracy": sum(a for _, a in members) / len(members),
                    "n": len(members),
                }
            )
    return [
        Figure(
            "exp_b_funnel",
            "Exp B: L1 -> L2a -> L2b -> L2b+ per design family",
            pd.DataFrame(funnel, columns=["model", "family", "level", "rate", *INTERVAL, "published"]),
        ),
        Figure(
            "exp_b_tolerance_sweep",
            "Exp B: L2b+ against the relative tolerance",
            pd.DataFrame(sweep, columns=["model", "tolerance", "L2b_plus", *INTERVAL]),
        ),
        Figure(
            "exp_b_reliability",
            "Exp B calibration arm: accuracy against stated confidence",
            pd.DataFrame(reliability, columns=["model", "bin", "confidence", "accuracy", "n"]),
        ),
    ]


# ------------------------------------------------------------------------------------------------------ drawing
def draw(figure: Figure, out: Path) -> str | None:
    """Write ``figure`` as PNG (and its data as CSV) under ``out``; returns the PNG's name, None if no data."""
    write_text_atomic(out / f"{figure.name}.csv", figure.data.to_csv(index=False))
    if figure.data.empty:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = figure.data
    if figure.name == "glass_break_rate_by_dose":
        return _draw_glass(figure, out, plt)
    fig, ax = plt.subplots(figsize=(7, 4))
    if figure.name.startswith("cobe_"):
        value, group = ("failure_rate", "check") if "check" in data else ("accuracy", "group")
        _bars(ax, data.assign(series=data["model"]), group, value)
    elif figure.name == "exp_b_funnel":
        rows = data.assign(series=data["level"], where=data["family"] + " (" + data["model"] + ")")
        _bars(ax, rows, "where", "rate")
    elif figure.name == "exp_b_tolerance_sweep":
        for model, part in data.groupby("model"):
            _points(ax, part["tolerance"], part, "L2b_plus", model)
        ax.set_xlabel("relative tolerance")
        ax.set_ylabel("L2b+")
    else:  # reliability diagram
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
        for model, part in data.groupby("model"):
            ax.plot(part["confidence"], part["accuracy"], marker="o", label=model)
        ax.set_xlabel("stated confidence")
        ax.set_ylabel("L2b+ rate")
    ax.set_title(figure.title, fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    write_figure_atomic(fig, out / f"{figure.name}.png")
    plt.close(fig)
    return f"{figure.name}.png"


def _errors(part: pd.DataFrame, value: str) -> list:
    """Asymmetric error bars (value - low, high - value) of a figure's rows; 0 where an interval is missing."""
    return [(part[value] - part["low"]).clip(lower=0).fillna(0), (part["high"] - part[value]).clip(lower=0).fillna(0)]


def _bars(ax, data: pd.DataFrame, group: str, value: str) -> None:
    """Grouped bars of ``value`` by ``group``, one bar per ``series``, each with its 95 % interval and n above it."""
    groups, series = list(dict.fromkeys(data[group])), list(dict.fromkeys(data["series"]))
    width = 0.8 / len(series)
    for i, name in enumerate(series):
        part = data[data["series"] == name].set_index(group).reindex(groups)
        x = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        ax.bar(x, part[value].fillna(0), width, yerr=_errors(part, value), capsize=2, label=name)
        for xi, high, n in zip(x, part["high"].fillna(0), part["n"], strict=False):
            if not pd.isna(n):
                ax.annotate(
                    f"n={n:.0f}", (xi, high), xytext=(0, 2), textcoords="offset points", ha="center", fontsize=6
                )
    ax.set_xticks(range(len(groups)), groups, rotation=30, ha="right", fontsize=7)
    ax.set_ylim(0, 1.1)


def _points(ax, x: pd.Series, part: pd.DataFrame, value: str, label: str) -> None:
    """A line of points with their 95 % intervals and the n of each point beside it."""
    ax.errorbar(x, part[value], yerr=_errors(part, value), marker="o", capsize=3, label=label)
    for xi, yi, n in zip(x, part[value], part["n"], strict=False):
        if not pd.isna(yi):
            ax.annotate(f"n={n:.0f}", (xi, yi), xytext=(4, 2), textcoords="offset points", fontsize=6)


def _draw_glass(figure: Figure, out: Path, plt) -> str:
    """The break rate against dose: one panel per suite (GlassGSM, GlassMATH), one line per (model, family) with
    95 % intervals and the pairs n of each point, each model's identity-twin floor of that suite as a band (its
    95 % interval)."""
    data = figure.data
    suites = sorted(data["suite"].unique())
    fig, axes = plt.subplots(1, len(suites), figsize=(6.5 * len(suites), 4), squeeze=False, sharey=True)
    for ax, suite in zip(axes[0], suites, strict=False):
        rows = data[data["suite"] == suite]
        for (model, family), part in rows.groupby(["model", "family"]):
            _points(ax, part["dose"], part, "break_rate", f"{family} ({model})")
        for model, part in rows.groupby("model"):
            floor = part.iloc[0]
            if not math.isnan(floor["identity_floor"]):
                label = f"identity floor ({model}, n={floor['identity_floor_n']:.0f})"
                ax.axhspan(floor["identity_floor_low"], floor["identity_floor_high"], alpha=0.15, label=label)
        ax.set_title(f"{suite}: {figure.title}", fontsize=10)
        ax.set_xlabel("dose m (distractor sentences)")
        ax.set_ylabel("break rate")
        ax.legend(fontsize=7)
    fig.tight_layout()
    write_figure_atomic(fig, out / f"{figure.name}.png")
    plt.close(fig)
    return f"{figure.name}.png"


def markdown_table(data: pd.DataFrame) -> str:
    """``data`` as a markdown table, floats to three decimals."""
    if data.empty:
        return ""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in data.itertuples(index=False)]
    header = "| " + " | ".join(map(str, data.columns)) + " |"
    return "\n".join([header, "|" + "---|" * len(data.columns), *("| " + " | ".join(r) + " |" for r in cells)])


def build_report(paths: list[str], out: Path, published: Path | None = None) -> dict[str, Figure]:
    """Read the logs, write every figure, its CSV and ``report.md`` under ``out``; returns the figures by name."""
    if out.exists() and not out.is_dir():  # before reading: the logs may take a while
        raise SuiteInputError(f"report: --out '{out}' is an existing file: pass a folder.")
    by_benchmark: dict[str, list[LogDigest]] = defaultdict(list)
    skipped = []
    logs = find_logs(paths)
    for path in logs:
        try:
            log = read_log_digest(path, scores=needs_sample_scores)
        except SuiteInputError as exc:  # one bad log among many: say so, report the others
            if len(logs) == 1:
                raise
            print(f"report: skipped: {exc}", file=sys.stderr)
            skipped.append(f"{path.name} (unreadable)")
            continue
        kind = benchmark_of(log)
        (by_benchmark[kind].append(log) if kind and log.status == "success" else skipped.append(path.name))
    if len(skipped) == len(logs) and all(s.endswith("(unreadable)") for s in skipped):
        raise SuiteInputError(f"report: none of the {len(logs)} logs given could be read (see above).")
    out = output_folder(out, "report")  # made only once there is something to write into it
    figures: list[Figure] = []
    if by_benchmark["cobe"]:
        figures += cobe_figures(by_benchmark["cobe"])
    if by_benchmark["glass"]:
        figures += glass_figures(by_benchmark["glass"])
    if by_benchmark["exp_b"]:
        figures += exp_b_figures(by_benchmark["exp_b"], published)
    lines = ["# Causal-suite report", ""]
    for figure in figures:
        png = draw(figure, out)
        lines += [f"## {figure.title}", ""]
        lines += [f"![{figure.title}]({png})", ""] if png else ["(no data)", ""]
        lines += [markdown_table(figure.data), "", f"Data: `{figure.name}.csv`", ""]
    if skipped:
        lines += ["Logs left out (not a suite benchmark, or not a successful run): " + ", ".join(skipped), ""]
    write_text_atomic(out / "report.md", "\n".join(lines))
    return {f.name: f for f in figures}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", help=".eval logs or folders holding them (searched recursively)")
    parser.add_argument("--out", required=True, type=Path, help="folder for report.md, the PNG figures and CSVs")
    parser.add_argument(
        "--published",
        type=Path,
        default=None,
        help="upstream's Exp B score CSV (l2b_plus_scores_canonical_judge_v2.csv): replays get the "
        "published levels beside ours",
    )
