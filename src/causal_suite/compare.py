"""``causal-suite compare LOG_A LOG_B [LOG_C ...]``: paired differences between models on the samples they share.

Each later log is compared with the first (the reference): for every headline metric and breakdown of the task
(glass: break rate overall, per family and dose, identity floor, base accuracy; CoBe: accuracy, check failures, by
domain / graph type / phrasing; exp_b: L1..L2b+, P(L2b+ | L2b), per method family) the difference B - A on the units
both logs scored (glass pairs, CoBe samples, exp_b scenarios), with a 95 % interval and p-value paired and clustered
by the task's unit of independence (``causal_suite.uncertainty``), the matched units and clusters, and the minimum
difference the run could detect at 80 % power. Logs that are not comparable (another task, task version, corpus or
manifest sha256, judge or tier) are refused in one sentence; a partial match is warned about.

Writes ``compare.md`` (a markdown table), ``compare.csv`` and ``compare.png`` (a forest plot) under ``--out``.
"""

from __future__ import annotations

import argparse
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelConfig
from inspect_ai.scorer import SampleScore, Score

from causal_suite.errors import SuiteInputError
from causal_suite.files import output_folder, write_figure_atomic, write_text_atomic
from causal_suite.logs import LogSample, read_log_digest
from causal_suite.scores import is_unscored
from causal_suite.uncertainty import paired_difference, ratio

logger = logging.getLogger(__name__)

Units = dict[str, dict[Any, tuple[Any, float, float]]]
"""metric -> unit key -> (cluster, numerator, denominator): what a comparison pairs, per metric."""


def read_log(path: str | Path) -> tuple[EvalLog, list[LogSample]]:
    """A log's header and its samples (every epoch) without transcripts, inputs and targets: the one place compare
    reads logs, through the suite's streaming reader (``causal_suite.logs``)."""
    digest = read_log_digest(path)
    return digest.header, digest.samples


def benchmark_of(header: EvalLog) -> str | None:
    """``cobe``, ``glass`` or ``exp_b`` for a log of the suite's comparable tasks, else None."""
    name = header.eval.task.split("/")[-1]
    return {"cobe": "cobe", "glassgsm": "glass", "glassmath": "glass", "exp_b": "exp_b"}.get(name)


def fingerprint(header: EvalLog) -> dict[str, Any]:
    """What two logs must share to be compared: task, version, corpus / manifests (sha256; CoBe: its data file,
    exp_b: its scenarios' digest, else its dataset), judge (CoBe's grader and judge prompts, exp_b's extractor), tier and tolerance."""
    meta = header.eval.metadata or {}
    glass = meta.get("glass") or {}
    judge = meta.get("judge") or {}  # CoBe's grader; exp_b's judge is its extractor role
    extractor_role = (header.eval.model_roles or {}).get("extractor")
    extractor = extractor_role.model if isinstance(extractor_role, ModelConfig) else None
    corpus: Any = None
    if glass:
        corpus = [glass.get("pool", {}).get("sha256"), *(m.get("sha256") for m in glass.get("manifests", []))]
    elif "data" in meta:
        corpus = meta["data"]
    elif "scenarios_sha256" in meta:
        corpus = meta["scenarios_sha256"]
    else:
        corpus = header.eval.dataset.location or header.eval.dataset.name
    return {
        "task": header.eval.task,
        "version": header.eval.task_version,
        "corpus/manifest sha256": corpus,
        "judge": [judge.get("model"), (judge.get("prompts") or {}).get("sha256")] if judge else extractor,
        "tier": meta.get("tier"),
        "tolerance": meta.get("tolerance"),
    }


def check_comparable(paths: list[str], headers: list[EvalLog]) -> str:
    """The benchmark of the logs; one sentence naming the first difference when they are not comparable."""
    kinds = [benchmark_of(h) for h in headers]
    for path, kind, header in zip(paths, kinds, headers, strict=False):
        if kind is None:
            raise SuiteInputError(f"compare: {path} is a log of {header.eval.task}, which compare does not know.")
    reference = fingerprint(headers[0])
    for path, header in zip(paths[1:], headers[1:], strict=False):
        for field, value in fingerprint(header).items():
            if value != reference[field]:
                raise SuiteInputError(
                    f"compare: {path} and {paths[0]} are not comparable: their {field} differs "
                    f"({value!r} vs {reference[field]!r})."
                )
    return str(kinds[0])


def reduced_scores(kind: str, samples: list[LogSample]) -> list[SampleScore]:
    """One score per sample, its epochs reduced as the task reduces them (glass: the modal answer; else the mean);
    a sample with an unscored epoch, or none scored, is left out."""
    from inspect_ai.scorer import mean_score

    if kind == "glass":
        from glass_inspect.scorers import modal_answer

        reducer = modal_answer()
    else:
        reducer = mean_score()
    epochs: dict[Any, list[Score]] = defaultdict(list)
    metadata: dict[Any, dict] = {}
    for sample in samples:
        score = next(iter((sample.scores or {}).values()), None)
        epochs[sample.id].append(score)  # type: ignore[arg-type]
        metadata[sample.id] = sample.metadata or {}
    out = []
    for sid, scores in epochs.items():
        if any(s is None or is_unscored(s.value) for s in scores):
            continue
        score = scores[0] if len(scores) == 1 else reducer(scores)
        out.append(SampleScore(score=score, sample_id=sid, sample_metadata=metadata[sid]))
    return out


def units_of(kind: str, scores: list[SampleScore]) -> Units:
    """The comparison units of each metric, as the benchmark's own metrics define them."""
    builder: Callable[[list[SampleScore]], Units]
    if kind == "glass":
        from glass_inspect.metrics import comparison_units as builder
    elif kind == "cobe":
        from cobe_inspect.scorers import comparison_units as builder
    else:
        from causalverify_inspect.scorers import comparison_units as builder
    return builder(scores)


@dataclass(frozen=True)
class Row:
    """One metric of one comparison: the two values on the matched units and their paired difference B - A;
    ``matched`` counts the units both logs scored that count for either (a glass pair counts where a model solved
    its base), ``clusters`` their clusters."""

    metric: str
    model_a: str
    model_b: str
    value_a: float
    value_b: float
    difference: float
    se: float
    low: float
    high: float
    p_value: float
    mdd_80: float
    matched: int
    clusters: int


def _label(header: EvalLog) -> str:
    replayed = (header.eval.metadata or {}).get("replayed_model")
    return f"{header.eval.model} (replay of {replayed})" if replayed else header.eval.model


def compare_units(a: Units, b: Units, label_a: str, label_b: str) -> tuple[list[Row], tuple[int, int, int]]:
    """Rows of B - A per metric on the units both scored, and (matched, only in A, only in B) over all units."""
    rows = []
    every_a = {(m, k) for m, units in a.items() for k in units}
    every_b = {(m, k) for m, units in b.items() for k in units}
    for metric, units_a in a.items():
        units_b = b.get(metric, {})
        shared = [k for k in units_a if k in units_b]
        if not shared:
            continue
        clusters = [units_a[k][0] for k in shared]
        num_a, den_a = [units_a[k][1] for k in shared], [units_a[k][2] for k in shared]
        num_b, den_b = [units_b[k][1] for k in shared], [units_b[k][2] for k in shared]
        diff = paired_difference((num_b, den_b), (num_a, den_a), clusters)
        rows.append(
            Row(
                metric,
                label_a,
                label_b,
                ratio(num_a, den_a, clusters).value,
                ratio(num_b, den_b, clusters).value,
                diff.value,
                diff.se,
                diff.low,
                diff.high,
                diff.p_value,
                diff.mdd,
                sum(1 for d_a, d_b in zip(den_a, den_b, strict=False) if d_a or d_b),
                diff.clusters,
            )
        )
    return rows, (len(every_a & every_b), len(every_a - every_b), len(every_b - every_a))


def compare_logs(paths: list[str]) -> pd.DataFrame:
    """Compare every later log with the first; returns one row per (log, metric) (the columns of ``Row``)."""
    if len(paths) < 2:
        raise SuiteInputError("compare: give at least two logs (the first is the reference).")
    read = [read_log(p) for p in paths]
    kind = check_comparable(paths, [h for h, _ in read])
    units = [units_of(kind, reduced_scores(kind, samples)) for _, samples in read]
    rows: list[Row] = []
    for path, (header, _), other in zip(paths[1:], read[1:], units[1:], strict=False):
        found, (matched, only_a, only_b) = compare_units(units[0], other, _label(read[0][0]), _label(header))
        if not found:
            raise SuiteInputError(f"compare: {path} and {paths[0]} share no scored sample.")
        if only_a or only_b:
            logger.warning(
                f"compare: {path} and {paths[0]} match on {matched} of their units ({only_a} only in the "
                f"first, {only_b} only in {path}); the differences are over the matched units only."
            )
        rows += found
    return pd.DataFrame([asdict(r) for r in rows], columns=list(Row.__dataclass_fields__))


def markdown(table: pd.DataFrame) -> str:
    """The comparison as a markdown table: difference with its 95 % interval, p, matched units, clusters, MDD."""
    lines = [
        "| metric | A | B | value A | value B | B - A [95 % CI] | p | matched | clusters | MDD (80 %) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        lines.append(
            f"| {r.metric} | {r.model_a} | {r.model_b} | {r.value_a:.3f} | {r.value_b:.3f} | {r.difference:+.3f} "
            f"[{r.low:+.3f}, {r.high:+.3f}] | {r.p_value:.3g} | {r.matched} | {r.clusters} | {r.mdd_80:.3f} |"
        )
    return "\n".join(lines) + "\n"


def forest_plot(table: pd.DataFrame, png: Path) -> None:
    """One row per (model B, metric): the difference B - A and its 95 % interval, n matched beside each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r.metric} ({r.model_b})" if table["model_b"].nunique() > 1 else r.metric for r in table.itertuples()]
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(table) + 1.2))
    y = list(range(len(table)))[::-1]
    low = (table["difference"] - table["low"]).fillna(0)
    high = (table["high"] - table["difference"]).fillna(0)
    ax.errorbar(table["difference"], y, xerr=[low, high], fmt="o", capsize=3)
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    for yi, r in zip(y, table.itertuples(), strict=False):
        ax.annotate(f"n={r.matched}, G={r.clusters}", (1.01, yi), xycoords=("axes fraction", "data"), fontsize=7)
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xlabel(f"difference B - A (A = {table['model_a'].iloc[0]}), 95 % paired clustered interval")
    fig.tight_layout()
    write_figure_atomic(fig, png)
    plt.close(fig)


def write_comparison(table: pd.DataFrame, out: Path) -> list[Path]:
    """``compare.md``, ``compare.csv`` and ``compare.png`` under ``out`` (each written whole)."""
    out = output_folder(out, "compare")
    md = write_text_atomic(out / "compare.md", markdown(table))
    csv = write_text_atomic(out / "compare.csv", table.to_csv(index=False))
    png = out / "compare.png"
    forest_plot(table, png)
    return [md, csv, png]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", help="two or more .eval logs of one task; the first is the reference")
    parser.add_argument("--out", required=True, type=Path, help="folder for compare.md, compare.csv, compare.png")


def run(logs: list[str], out: Path) -> int:
    """The command: compare, write the three files, print the table (markdown) and where the files are."""
    table = compare_logs(logs)
    written = write_comparison(table, out)
    print(markdown(table), end="")
    print(f"compare: {len(table)} rows written to {', '.join(str(p) for p in written)}")
    return 0
