"""CoBe's figures in ``causal-suite report``: accuracy by causal-graph type, domain and query phrasing (the paper's
Fig. 3-5, §4), and the failure rate of each judge check (E0 connectors, E1 facts that stay, E2 facts that change;
App. D.2), per run, each rate with its 95 % interval clustered by core example."""

from __future__ import annotations

from collections import defaultdict
from functools import partial
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
    rate_axis,
)
from causal_suite.uncertainty import rate

if TYPE_CHECKING:
    from matplotlib.figure import Figure as PlotFigure

    from causal_suite.logs import LogDigest

ACCURACY, FAILURE = "accuracy (share of samples)", "failure rate (share of samples)"
GROUPS = {"graph_type": "causal graph type", "domain": "story domain", "phrasing": "query phrasing"}
CHECKS = {"E0": "E0 connectors", "E1": "E1 facts that stay", "E2": "E2 facts that change"}


Scored = list[tuple[dict[str, Any], dict[str, Any], str]]


def _cores(scored: Scored) -> list[Any]:
    """The cluster of each scored sample: its core example."""
    return [meta.get("core_id", meta.get("scenario_id", sid)) for _, meta, sid in scored]


def _accuracy_rows(label: str, scored: Scored) -> list[dict[str, Any]]:
    """One row per (breakdown, group) of one log: accuracy with its interval, clustered by core example."""
    cores = _cores(scored)
    rows = []
    for key in GROUPS:
        groups: dict[str, tuple[list[float], list[Any]]] = defaultdict(lambda: ([], []))
        for (value, meta, _), core in zip(scored, cores, strict=True):
            groups[str(meta.get(key))][0].append(float(value["correct"]))
            groups[str(meta.get(key))][1].append(core)
        for group, (values, clusters) in sorted(groups.items()):
            row = {"model": label, "breakdown": key, "group": group}
            rows.append(row | interval_columns(rate(values, clusters), "accuracy"))
    return rows


def cobe_figures(logs: list[LogDigest], options: ReportOptions) -> list[Figure]:
    """Accuracy by graph type / domain / phrasing and check failure rates, per run, clustered by core example."""
    rows, checks = [], []
    for log in logs:
        scored = dict_scores(log)
        rows += _accuracy_rows(options.label(log), scored)
        for check in CHECKS:
            failed = rate([1.0 - float(v[check]) for v, _, _ in scored], _cores(scored))
            checks.append({"model": options.label(log), "check": check} | interval_columns(failed, "failure_rate"))
    table = pd.DataFrame(rows, columns=["model", "breakdown", "group", "accuracy", *INTERVAL])
    figures = [
        Figure(
            f"cobe_accuracy_by_{key}",
            f"CoBe accuracy by {name}",
            table[table["breakdown"] == key].drop(columns="breakdown").reset_index(drop=True),
            draw=partial(_draw_rates, group="group", value="accuracy", x_name=name, y_name=ACCURACY),
        )
        for key, name in GROUPS.items()
    ]
    check_data = pd.DataFrame(checks, columns=["model", "check", "failure_rate", *INTERVAL])
    figures.append(
        Figure(
            "cobe_check_failures",
            "CoBe check failure rates (E0 connectors, E1 stay, E2 change)",
            check_data,
            draw=partial(_draw_rates, group="check", value="failure_rate", x_name="judge check", y_name=FAILURE),
        )
    )
    return figures


def _draw_rates(data: pd.DataFrame, group: str, value: str, x_name: str, y_name: str) -> PlotFigure:
    """One panel of grouped bars: the groups along x (a check by its name), one bar per run."""
    data = data.assign(check=data["check"].map(CHECKS)) if group == "check" else data
    width = max(3.4, 0.35 * data[group].nunique() * data["model"].nunique() + 1.5)
    fig, [ax] = panels(1, width=width)
    bars(ax, data, group, value, series="model")
    rate_axis(ax, y_name)
    ax.set_xlabel(x_name)
    legend_outside(fig, [ax])
    return fig
