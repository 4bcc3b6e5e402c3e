"""CausalVerify Exp B's figures in ``causal-suite report``: the L1 -> L2a -> L2b -> L2b+ funnel per design family
(§4), the L2b+ rate against the relative tolerance (§3.3), and, with the calibration arm, the reliability diagram
(§5), per run, each rate with its 95 % interval clustered by scenario. A replay of upstream's cached responses gets
the published levels beside ours when ``--published`` points at upstream's score CSV."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from causal_suite.figures import (
    INTERVAL,
    Figure,
    ReportOptions,
    bars,
    dict_scores,
    interval_columns,
    legend_outside,
    panels,
    points,
    rate_axis,
)
from causal_suite.uncertainty import rate
from causalverify_inspect.metrics import counts_in

if TYPE_CHECKING:
    from matplotlib.figure import Figure as PlotFigure

    from causal_suite.logs import LogDigest

LEVELS = {"L1": "L1", "L2a": "L2a", "L2b": "L2b", "L2b_plus": "L2b+"}
Scored = list[tuple[dict[str, Any], dict[str, Any], str]]


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


def _funnel(log: LogDigest, label: str, scored: Scored, published: Path | None) -> list[dict[str, Any]]:
    by_family: dict[str, list[tuple[dict[str, Any], str]]] = defaultdict(list)
    for value, meta, sid in scored:
        by_family[str(meta.get("family"))].append((value, sid))
    replayed = (log.eval.metadata or {}).get("replayed_model")
    reference = published_levels(published, replayed) if published and replayed else {}
    rows = []
    for family, values in sorted(by_family.items()):
        for level in LEVELS:
            kept = [(v, sid) for v, sid in values if counts_in(v, level)]  # L2b+: the scored runs only
            estimate = rate([v[level] for v, _ in kept], [sid for _, sid in kept])
            rows.append(
                {"model": label, "family": family, "level": level}
                | interval_columns(estimate, "rate")
                | {"published": reference.get(family, {}).get(level, float("nan"))}
            )
    return rows


def _sweep(label: str, scored: Scored) -> list[dict[str, Any]]:
    tolerances = sorted({k for v, _, _ in scored for k in v if k.startswith("tol_")}, key=lambda k: int(k[4:]))
    rows = []
    for key in tolerances:
        kept = [(v, sid) for v, _, sid in scored if counts_in(v, key)]  # a run whose estimate is unknown is out
        estimate = rate([v[key] for v, _ in kept], [sid for _, sid in kept])
        rows.append({"model": label, "tolerance": int(key[4:]) / 100} | interval_columns(estimate, "L2b_plus"))
    return rows


def _reliability(label: str, scored: Scored) -> list[dict[str, Any]]:
    """One row per decile bin of stated confidence: its mean confidence and the L2b+ rate with its interval."""
    bins: dict[int, list[tuple[float, float, str]]] = defaultdict(list)
    for v, _, sid in scored:
        if "conf_estimate" in v and not math.isnan(v["conf_estimate"]):
            bins[min(int(v["conf_estimate"] * 10), 9)].append((v["conf_estimate"], v["L2b_plus"], sid))
    return [
        {"model": label, "bin": b, "confidence": sum(c for c, _, _ in members) / len(members)}
        | interval_columns(rate([a for _, a, _ in members], [sid for _, _, sid in members]), "accuracy")
        for b, members in sorted(bins.items())
    ]


def exp_b_figures(logs: list[LogDigest], options: ReportOptions) -> list[Figure]:
    """The L1 -> L2b+ funnel per family, the tolerance sweep, and the reliability diagram where rated."""
    funnel, sweep, reliability = [], [], []
    for log in logs:
        scored, label = dict_scores(log), options.label(log)
        funnel += _funnel(log, label, scored, options.published)
        sweep += _sweep(label, scored)
        reliability += _reliability(label, scored)
    return [
        Figure(
            "exp_b_funnel",
            "Exp B: L1 -> L2a -> L2b -> L2b+ per design family",
            pd.DataFrame(funnel, columns=["model", "family", "level", "rate", *INTERVAL, "published"]),
            draw=draw_funnel,
        ),
        Figure(
            "exp_b_tolerance_sweep",
            "Exp B: L2b+ against the relative tolerance",
            pd.DataFrame(sweep, columns=["model", "tolerance", "L2b_plus", *INTERVAL]),
            draw=draw_sweep,
        ),
        Figure(
            "exp_b_reliability",
            "Exp B calibration arm: accuracy against stated confidence",
            pd.DataFrame(reliability, columns=["model", "bin", "confidence", "accuracy", *INTERVAL]),
            draw=draw_reliability,
            empty_reason="no run had the calibration arm (-T calibration=true) with a stated confidence",
        ),
    ]


def draw_funnel(data: pd.DataFrame) -> PlotFigure:
    """One panel per design family: the four levels along x, a bar per run, upstream's published level as a
    marker where given."""
    families = sorted(data["family"].unique())
    fig, axes = panels(len(families), columns=2, width=4.2)
    for ax, family in zip(axes, families, strict=True):
        part = data[data["family"] == family].assign(level=lambda d: d["level"].map(LEVELS))
        positions = bars(ax, part, "level", "rate", series="model")
        published = part.dropna(subset=["published"])
        if not published.empty:  # each replay's published level on its own bar
            x = [positions[(run, level)] for run, level in zip(published["model"], published["level"], strict=True)]
            label = "published level (upstream, same model)"
            ax.scatter(
                x, published["published"], s=16, marker="D", c="crimson", edgecolors="white", zorder=3, label=label
            )
        ax.set_title(f"design family: {family}")
        ax.set_xlabel("verification level")
        rate_axis(ax, "pass rate (share of scenarios)")
    legend_outside(fig, axes)
    return fig


def draw_sweep(data: pd.DataFrame) -> PlotFigure:
    """L2b+ against the relative tolerance, a line per run, ticks at the tolerances scored."""
    fig, [ax] = panels(1, width=4.2)
    for run, part in data.groupby("model", sort=False):
        points(ax, part.assign(tolerance=part["tolerance"] * 100), "tolerance", "L2b_plus", str(run))
    ax.set_xticks(sorted(data["tolerance"].unique() * 100))
    ax.set_xlabel("relative tolerance on the estimate (%)")
    rate_axis(ax, "L2b+ rate (share of scenarios)")
    legend_outside(fig, [ax])
    return fig


def draw_reliability(data: pd.DataFrame) -> PlotFigure:
    """Observed L2b+ rate (95 % interval, n) against mean stated confidence per decile bin, a line per run, the
    diagonal dashed."""
    fig, [ax] = panels(1, width=4.2)
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    for run, part in data.groupby("model", sort=False):
        points(ax, part, "confidence", "accuracy", str(run))
    ax.set_xlim(0, 1)
    ax.set_xlabel("stated confidence in the estimate (probability, decile-bin mean)")
    rate_axis(ax, "observed L2b+ rate (share of scenarios)")
    legend_outside(fig, [ax])
    return fig
