"""GlassGSM / GlassMATH's figure in ``causal-suite report``: the break rate P(B=1 | Y(base)=1) against the dose m,
one panel per (suite, operator family), one line per run, with each run's identity-twin floor as a band (the
fragility paper's dose-response figure, §1 and §7 step 8), every rate with its 95 % interval clustered by base."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import pandas as pd
from inspect_ai.scorer import SampleScore

from causal_suite.figures import (
    INTERVAL,
    Figure,
    ReportOptions,
    interval_columns,
    legend_outside,
    panels,
    points,
    rate_axis,
)
from causal_suite.uncertainty import RateEstimate
from glass_inspect.corpus import IDENTITY
from glass_inspect.metrics import pair_break_rate, pair_outcomes

if TYPE_CHECKING:
    from matplotlib.figure import Figure as PlotFigure

    from causal_suite.logs import LogDigest

FLOOR = ["identity_floor", "identity_floor_low", "identity_floor_high", "identity_floor_n"]
DOSE_AXIS = {  # the x axis of each family's panel: the dose manifest m holds about m twins per base (§3.2)
    "entity_rename": "dose m (twins per base): entity-rename pairs",
    "sentence_reorder": "dose m (twins per base): sentence-reorder pairs",
    "irrelevant_context": "dose m (twins per base): distractor pairs",
}


def sample_scores(log: LogDigest) -> list[SampleScore]:
    """The reduced (modal-answer) score of each sample with its metadata, as the glass metrics see them."""
    metadata = {sample.id: sample.metadata for sample in log.samples or []}
    reduction = next(iter(log.reductions or []), None)
    if reduction is None:
        return []
    return [
        SampleScore(score=s, sample_id=s.sample_id, sample_metadata=metadata.get(s.sample_id))
        for s in reduction.samples
    ]


def _rows(log: LogDigest, label: str) -> list[dict[str, object]]:
    """One row per (family, dose) of one log whose cell has a solved base: its break rate and the floor."""
    pairs = pair_outcomes(sample_scores(log))
    floor = pair_break_rate([p for p in pairs if p.operator == IDENTITY])
    cells = defaultdict(list)
    for p in pairs:
        if p.operator != IDENTITY:
            cells[(p.operator, p.dose)].append(p)
    rows = []
    for (family, dose), members in sorted(cells.items()):
        rate_of_cell = pair_break_rate(members)
        if rate_of_cell.n == 0:  # no solved base: the break rate is undefined there
            continue
        row = {"model": label, "suite": log.eval.task.split("/")[-1], "family": family, "dose": dose}
        rows.append(row | interval_columns(rate_of_cell, "break_rate") | dict(zip(FLOOR, _floor(floor), strict=True)))
    return rows


def _floor(estimate: RateEstimate) -> tuple[float, float, float, float]:
    return (estimate.value, estimate.low, estimate.high, estimate.n)


def glass_figures(logs: list[LogDigest], options: ReportOptions) -> list[Figure]:
    """Break rate against dose per family and run, with the identity-twin floor, each clustered by base."""
    rows = [row for log in logs for row in _rows(log, options.label(log))]
    return [
        Figure(
            "glass_break_rate_by_dose",
            "Break rate P(B=1 | Y(base)=1) against dose, identity floor shaded",
            pd.DataFrame(rows, columns=["model", "suite", "family", "dose", "break_rate", *INTERVAL, *FLOOR]),
            draw=draw_break_rates,
            empty_reason="no run solved a base problem with a twin, so the break rate is undefined",
        )
    ]


def draw_break_rates(data: pd.DataFrame) -> PlotFigure:
    """One panel per (suite, family): a line per run with its 95 % intervals and pairs n, ticks at the doses that
    exist, each run's identity floor of that suite as a band (its 95 % interval)."""
    cells = list(data[["suite", "family"]].drop_duplicates().sort_values(["suite", "family"]).itertuples(index=False))
    fig, axes = panels(len(cells), columns=3)
    runs = list(dict.fromkeys(data["model"]))
    colours = {run: f"C{i % 10}" for i, run in enumerate(runs)}
    for ax, (suite, family) in zip(axes, cells, strict=True):
        rows = data[(data["suite"] == suite) & (data["family"] == family)].sort_values("dose")
        for run, part in rows.groupby("model", sort=False):
            points(ax, part, "dose", "break_rate", str(run), colour=colours[str(run)])
            floor = part.iloc[0]
            if not pd.isna(floor["identity_floor"]):
                band = (floor["identity_floor_low"], floor["identity_floor_high"])
                ax.axhspan(*band, color=colours[str(run)], alpha=0.12, label=f"{run}: identity floor (95 % CI)")
        ax.set_xticks(sorted(rows["dose"].unique()))
        ax.set_xlabel(DOSE_AXIS.get(str(family), "dose m (twins per base)"))
        ax.set_title(f"{suite}: {family}")
        rate_axis(ax, "break rate (share of solved pairs)")
    legend_outside(fig, axes)
    return fig
