"""The parts every benchmark's report figures share: the :class:`Figure` a benchmark returns, the options the report
passes, the rows of a rate with its clustered interval, and the drawing conventions of a figure fit for a paper.

A benchmark's figure function (declared in its :class:`causal_suite.registration.LogKind`) turns logs into
:class:`Figure` objects: the numbers it plots as a DataFrame (value, ``se``, ``low``, ``high``, ``n``,
``clusters``: ``causal_suite.uncertainty``'s interval clustered by the benchmark's unit of independence) and a
``draw`` function that makes the matplotlib figure from them. The conventions here: every axis names its quantity
and unit, rates on a fixed 0-1 axis (never autoscaled around a constant), the 95 % interval as error bars and the n
beside each bar or point, legends outside the data, one label per run, ticks only at the values that exist, and a
panel that says why when there is nothing to draw.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from causal_suite.uncertainty import RateEstimate

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as PlotFigure

    from causal_suite.logs import LogDigest

INTERVAL = ("se", "low", "high", "n", "clusters")
RATE_LIMITS = (-0.03, 1.12)  # a rate's axis: 0 to 1, with room for a point at 0 and the n above a bar at 1
PANEL_WIDTH, PANEL_HEIGHT = 3.4, 2.8  # inches: two panels fit a paper's text width
FONT_SIZE = 8


@dataclass(frozen=True)
class Figure:
    """One figure of the report: its file stem, title, the numbers it plots, the function that draws them, and the
    sentence a "no data" panel shows when ``data`` is empty."""

    name: str
    title: str
    data: pd.DataFrame
    draw: Callable[[pd.DataFrame], PlotFigure] | None = None
    empty_reason: str = "no scored sample in the logs given"


@dataclass(frozen=True)
class ReportOptions:
    """What ``causal-suite report`` passes to every figure function: one label per log (by its location) and the
    published reference scores a benchmark may put beside a replay's (``--published``)."""

    labels: Mapping[str, str] = field(default_factory=dict)
    published: Path | None = None

    def label(self, log: LogDigest) -> str:
        return self.labels.get(log.location) or model_label(log)


def model_label(log: LogDigest) -> str:
    """The model of a log, with the model a replay replays."""
    replayed = (log.eval.metadata or {}).get("replayed_model")
    return f"{log.eval.model} (replay of {replayed})" if replayed else str(log.eval.model)


def run_labels(logs: Iterable[LogDigest], given: list[str] | None = None) -> dict[str, str]:
    """One label per log: ``given`` in order, else its model, with a short run id where two runs share a model."""
    logs = list(logs)
    if given:
        return {log.location: label for log, label in zip(logs, given, strict=True)}
    counts = Counter(model_label(log) for log in logs)
    return {
        log.location: model_label(log) + (f" #{log.eval.run_id[:6]}" if counts[model_label(log)] > 1 else "")
        for log in logs
    }


def interval_columns(estimate: RateEstimate, name: str) -> dict[str, float]:
    """A figure row's columns of one rate: ``name`` (the value), then its SE, 95 % interval, n and clusters."""
    return {name: estimate.value} | {k: getattr(estimate, k) for k in INTERVAL}


def dict_scores(log: LogDigest) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
    """(score value, sample metadata, sample id) of every sample whose first score is a dict (a sample unscored
    with a NaN value left out; a dict marking itself ``unscored`` is kept, for the keys it knows: the benchmark's
    figures say which rates it counts in)."""
    out = []
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()), None)
        if score is not None and isinstance(score.value, dict):
            out.append((score.value, sample.metadata or {}, str(sample.id)))
    return out


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only backend, with the report's font size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": FONT_SIZE, "axes.titlesize": FONT_SIZE + 1, "legend.fontsize": FONT_SIZE - 1})
    return plt


def panels(count: int, columns: int | None = None, width: float = PANEL_WIDTH) -> tuple[PlotFigure, list[Axes]]:
    """A figure of ``count`` panels in rows of ``columns`` (default: all in one row), flattened in reading order."""
    plt = pyplot()
    columns = max(1, min(count, columns or count))
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, PANEL_HEIGHT * rows), squeeze=False)
    flat = list(axes.flat)
    for extra in flat[count:]:
        extra.set_visible(False)
    return fig, flat[:count]


def no_data(reason: str) -> PlotFigure:
    """A single panel saying there is nothing to draw, and why."""
    fig, [ax] = panels(1, width=PANEL_WIDTH * 1.6)
    ax.text(0.5, 0.5, f"no data:\n{reason}", ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
    return fig


def rate_axis(ax: Axes, quantity: str) -> None:
    """A rate's y axis: 0 to 1, labelled with the quantity and its unit."""
    ax.set_ylim(*RATE_LIMITS)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylabel(quantity)


def legend_outside(fig: PlotFigure, axes: list[Axes]) -> None:
    """One legend for the whole figure, right of the panels (each label once), so it never covers data."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    fig.tight_layout()


def error_bars(part: pd.DataFrame, value: str) -> list[pd.Series]:
    """Asymmetric error bars (value - low, high - value) of a figure's rows; 0 where an interval is missing."""
    return [(part[value] - part["low"]).clip(lower=0).fillna(0), (part["high"] - part[value]).clip(lower=0).fillna(0)]


def bars(ax: Axes, data: pd.DataFrame, group: str, value: str, series: str) -> dict[tuple[Any, Any], float]:
    """Grouped bars of ``value`` by ``group`` (its values as categories, in order of appearance), one bar per
    ``series`` value, each with its 95 % interval and its n above; an absent (or undefined) cell is left blank.
    Returns the x of each bar by (series, group), for marks drawn on them."""
    groups, names = list(dict.fromkeys(data[group])), list(dict.fromkeys(data[series]))
    width = 0.8 / len(names)
    positions: dict[tuple[Any, Any], float] = {}
    for i, name in enumerate(names):
        part = data[data[series] == name].set_index(group).reindex(groups)
        x = [g + (i - (len(names) - 1) / 2) * width for g in range(len(groups))]
        positions |= {(name, g): xi for g, xi in zip(groups, x, strict=True)}
        ax.bar(x, part[value], width, yerr=error_bars(part, value), capsize=2, label=str(name))
        for xi, top, n in zip(x, part["high"].fillna(part[value]), part["n"], strict=True):
            if not pd.isna(n) and not pd.isna(top):
                ax.annotate(f"n={n:.0f}", (xi, top), xytext=(0, 1), textcoords="offset points", ha="center", fontsize=5)
    labels = [str(g) for g in groups]
    tilted = len(groups) > 4 or sum(map(len, labels)) > 30  # long category names: tilted so they never overlap
    ax.set_xticks(range(len(groups)), labels, rotation=30 if tilted else 0, ha="right" if tilted else "center")
    ax.tick_params(axis="x", labelsize=FONT_SIZE - 1)
    return positions


def points(ax: Axes, part: pd.DataFrame, x: str, value: str, label: str, colour: str | None = None) -> None:
    """A line of ``value`` against ``x`` with 95 % error bars and each point's n beside it."""
    bars_ = error_bars(part, value)
    ax.errorbar(part[x], part[value], yerr=bars_, marker="o", markersize=3, capsize=2, label=label, color=colour)
    for xi, yi, n in zip(part[x], part[value], part["n"], strict=True):
        if not pd.isna(yi):
            ax.annotate(f"n={n:.0f}", (xi, yi), xytext=(3, 2), textcoords="offset points", fontsize=5)
