"""The one comparison table of ``frail report`` (seed §"Headline results", Table 2 of the paper): every method ×
target with the raw test-fold ρ_S (mean ± sd over seeds), ρ_S(π) normalised by the reliability ceiling, the paper's
published normalised ρ_S(π) beside ours where the seed gives it, and the orthogonality column |Corr(predicted π, C)|;
and the per-family table (§7 step 13): ρ_S of each method's π̂ against π measured on one operator family's twins.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# Table 2 of the paper (seed §"Headline results"): ceiling-normalised test-fold ρ_S(π), mean ± sd over five seeds,
# (GlassGSM, GlassMATH); ceilings 0.969 / 0.972.
PUBLISHED_NORMALISED_PI: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "frail_pi": ((0.613, 0.023), (0.557, 0.023)),
    "vap3": ((0.444, 0.049), (0.463, 0.010)),
    "bertpe": ((0.420, 0.051), (0.451, 0.015)),
    "surface_gbt": ((0.171, 0.023), (0.401, 0.014)),
    "complexity": ((0.207, 0.060), (0.285, 0.026)),
}
COMPARED_TARGETS = ("pi", "a", "b", "d_avg")

Stat = dict[str, Any]


def mean_sd(values: list[float | None]) -> Stat:
    """``{mean, sd, n}`` over the finite values of the seeds (sd 0 for one seed; mean None for none)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return {"mean": None, "sd": None, "n": 0}
    return {
        "mean": float(np.mean(finite)),
        "sd": float(np.std(finite, ddof=1)) if len(finite) > 1 else 0.0,
        "n": len(finite),
    }


def format_mean_sd(cell: Stat | None) -> str:
    """``mean ± sd`` over seeds; one seed has no spread, so it shows the value alone and says so; n/a without one."""
    if cell is None or cell.get("mean") is None:
        return "n/a"
    if cell.get("n", 2) < 2:
        return f"{cell['mean']:.3f} (one seed)"
    return f"{cell['mean']:.3f} ± {cell['sd']:.3f}"


def _normalised(cell: Stat, ceiling: float | None) -> Stat | None:
    if ceiling is None or not ceiling or cell.get("mean") is None:
        return None
    return {"mean": cell["mean"] / ceiling, "sd": (cell["sd"] or 0.0) / ceiling, "n": cell["n"]}


def comparison_block(
    spearman: dict[str, dict[str, Stat]],
    corr_pred_c: dict[str, Stat],
    ceiling: float | None,
) -> dict[str, Any]:
    """{method: {target: {raw, normalised (π only)}, abs_corr_pred_C, published}} from the aggregated cells."""
    rows: dict[str, Any] = {}
    for method, cells in spearman.items():
        by_target = {
            t: {"raw": cells[t], "normalised": _normalised(cells[t], ceiling) if t == "pi" else None}
            for t in COMPARED_TARGETS
            if t in cells
        }
        corr = corr_pred_c.get(method)
        published = PUBLISHED_NORMALISED_PI.get(method)
        rows[method] = {
            "targets": by_target,
            "abs_corr_pred_C": None if corr is None or corr["mean"] is None else abs(corr["mean"]),
            "published_normalised_pi": None
            if published is None
            else {
                "glassgsm": dict(zip(("mean", "sd"), published[0], strict=True)),
                "glassmath": dict(zip(("mean", "sd"), published[1], strict=True)),
            },
        }
    return {"ceiling": ceiling, "methods": rows}


def aggregate_method_cells(per_seed: list[dict[str, Any]]) -> dict[str, Stat]:
    """Mean ± sd over seeds of per-seed {method: value} dicts (a method missing in a seed counts as absent)."""
    methods = list(dict.fromkeys(m for seed in per_seed for m in seed))
    return {m: mean_sd([seed.get(m) for seed in per_seed]) for m in methods}


def aggregate_family(per_seed: list[dict[str, dict[str, float | None]]]) -> dict[str, dict[str, Stat]]:
    """Mean ± sd over seeds of {method: {family: ρ_S}}."""
    methods = list(dict.fromkeys(m for seed in per_seed for m in seed))
    families = sorted({f for seed in per_seed for cells in seed.values() for f in cells})
    return {m: {f: mean_sd([seed.get(m, {}).get(f) for seed in per_seed]) for f in families} for m in methods}


NO_PREDICTION = {
    ("frail_pi", "d_avg"): "Frail-π models the breaks of solved bases only",
    ("amortized_irt", "b"): "its p(J, m) has one shared dose slope, no per-job b",
    ("amortized_irt", "d_avg"): "its p(J, m) gives π and a only",
    ("bertpe", "d_avg"): "fine-tuned on π, a and b only",
    ("vap3", "d_avg"): "fine-tuned on π, a and b only",
}
"""Cells a method leaves n/a by design, with the reason the table's notes give."""


def missing_cell_notes(block: dict[str, Any]) -> list[str]:
    """One line per n/a cell of the comparison table: the design reason, or that no seed gave a finite ρ_S (no input
    for the target, a constant target, too few test jobs)."""
    notes = []
    for method, row in block["methods"].items():
        for target in COMPARED_TARGETS:
            if (row["targets"].get(target) or {}).get("raw", {}).get("mean") is None:
                why = NO_PREDICTION.get(
                    (method, target),
                    "no seed gave a finite ρ_S (no input for the target, a constant target or too few test jobs)",
                )
                notes.append(f"- n/a, {method} × {target}: {why}.")
    return notes


def comparison_markdown(block: dict[str, Any]) -> list[str]:
    ceiling = block["ceiling"]
    lines = [
        "",
        "## Comparison table (test fold, mean ± sd over seeds)",
        "",
        f"Normalised = raw ρ_S(π) / the ceiling ({'n/a' if ceiling is None else f'{ceiling:.3f}'}); the paper's "
        "numbers (Table 2) are normalised ρ_S(π) on GlassGSM / GlassMATH, not on these pairs.",
        "",
        "| method | ρ_S(π) raw | ρ_S(π) normalised | paper GlassGSM | paper GlassMATH | ρ_S(a) | ρ_S(b) | "
        "ρ_S(D_avg) | \\|Corr(π̂, C)\\| |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for method, row in block["methods"].items():
        t = row["targets"]
        pub = row["published_normalised_pi"] or {}
        corr = row["abs_corr_pred_C"]
        pi = t.get("pi", {})
        cells = [pi.get("raw"), pi.get("normalised"), pub.get("glassgsm"), pub.get("glassmath")]
        cells += [t.get(target, {}).get("raw") for target in ("a", "b", "d_avg")]
        corr_text = "n/a" if corr is None else f"{corr:.3f}"
        lines.append(f"| {method} | " + " | ".join(map(format_mean_sd, cells)) + f" | {corr_text} |")
    notes = missing_cell_notes(block)
    return lines + (["", *notes] if notes else [])


def family_markdown(table: dict[str, dict[str, Stat]]) -> list[str]:
    if not table:
        return []
    families = list(next(iter(table.values())))
    lines = [
        "",
        "## Per family: ρ_S(predicted π, π measured on one family's twins), test fold",
        "",
        "| method | " + " | ".join(families) + " |",
        "|---" * (len(families) + 1) + "|",
    ]
    for method, cells in table.items():
        lines.append(f"| {method} | " + " | ".join(format_mean_sd(cells[f]) for f in families) + " |")
    return lines
