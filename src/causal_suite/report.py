"""``causal-suite report LOGS... --out DIR``: tables and figures from eval logs, one model or many side by side.

Reads every ``.eval`` log given (files or folders), groups the successful ones by the kind of log each benchmark
declares (``causal_suite.registration``: each benchmark's figures live in its own package, e.g.
``<package>/figures.py``) and writes under ``DIR``, for every figure: the image in each ``--format`` (PNG at
``--dpi``, 300 by default; PDF, SVG), a CSV of exactly the numbers it plots (value, ``se``, ``low``, ``high``,
``n``, ``clusters``: the 95 % interval clustered by the task's unit of independence, ``causal_suite.uncertainty``),
and ``report.md`` linking them all. One label per run (its model, a short run id where two runs share one, or
``--label``). A figure with nothing to plot is drawn as a panel that says why. The figure functions return their
numbers as DataFrames, so tests check the data, not pixels.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import pandas as pd
from inspect_ai.log import EvalLog

from causal_suite.errors import SuiteInputError
from causal_suite.figures import FONT_SIZE, Figure, ReportOptions, no_data, pyplot, run_labels
from causal_suite.files import output_folder, write_figure_atomic, write_text_atomic
from causal_suite.logs import LOG_SUFFIXES, LogDigest, read_log_digest
from causal_suite.registration import LogKind, log_kind

FORMATS = ("png", "pdf", "svg")
DEFAULT_DPI = 300


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


def markdown_table(data: pd.DataFrame) -> str:
    """``data`` as a markdown table, floats to three decimals."""
    if data.empty:
        return ""
    cells = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in row] for row in data.itertuples(index=False)]
    header = "| " + " | ".join(map(str, data.columns)) + " |"
    return "\n".join([header, "|" + "---|" * len(data.columns), *("| " + " | ".join(r) + " |" for r in cells)])


def needs_sample_scores(header: EvalLog) -> bool:
    """Whether the figures of a log read its samples' scores (its :class:`LogKind` says; glass figures read the
    header's reductions and the samples' metadata only, and at GlassMATH scale the scores are most of the
    report's memory)."""
    kind = log_kind(header.eval.task)
    return kind is None or kind.sample_scores


def read_logs(paths: list[str]) -> tuple[list[LogDigest], list[str]]:
    """Every readable log under ``paths`` and the names of those left out (unreadable: said on stderr); one sentence
    when none could be read."""
    digests, skipped = [], []
    logs = find_logs(paths)
    for path in logs:
        try:
            digests.append(read_log_digest(path, scores=needs_sample_scores))
        except SuiteInputError as exc:  # one bad log among many: say so, report the others
            if len(logs) == 1:
                raise
            print(f"report: skipped: {exc}", file=sys.stderr)
            skipped.append(f"{path.name} (unreadable)")
    if not digests:
        raise SuiteInputError(f"report: none of the {len(logs)} logs given could be read (see above).")
    return digests, skipped


def collect_figures(logs: list[LogDigest], options: ReportOptions) -> tuple[list[Figure], list[str]]:
    """The figures of every kind of log a benchmark declares, from the successful logs of that kind, and the names
    of the logs left out (no benchmark reads them, or the run did not succeed)."""
    by_kind: dict[str, list[LogDigest]] = defaultdict(list)
    kinds: dict[str, LogKind] = {}
    skipped = []
    for log in logs:
        kind = log_kind(log.eval.task)
        if kind is None or log.status != "success":
            skipped.append(Path(log.location).name)
            continue
        kinds[kind.name] = kind
        by_kind[kind.name].append(log)
    figures = [figure for name, kind in kinds.items() for figure in kind.figures(by_kind[name], options)]
    return figures, skipped


def draw(figure: Figure, out: Path, formats: tuple[str, ...], dpi: int) -> list[str]:
    """Write ``figure``'s CSV and its image in each format under ``out`` (a "no data" panel saying why when it has
    no rows); returns the image names."""
    write_text_atomic(out / f"{figure.name}.csv", figure.data.to_csv(index=False))
    if figure.data.empty or figure.draw is None:
        plot = no_data(figure.empty_reason)
    else:
        plot = figure.draw(figure.data)
    plot.suptitle(figure.title, fontsize=FONT_SIZE + 1, y=1.02)
    names = []
    for fmt in formats:
        write_figure_atomic(plot, out / f"{figure.name}.{fmt}", dpi=dpi, bbox_inches="tight")
        names.append(f"{figure.name}.{fmt}")
    pyplot().close(plot)
    return names


def build_report(
    paths: list[str],
    out: Path,
    published: Path | None = None,
    formats: tuple[str, ...] = ("png",),
    dpi: int = DEFAULT_DPI,
    labels: list[str] | None = None,
) -> dict[str, Figure]:
    """Read the logs, write every figure (each format), its CSV and ``report.md`` under ``out``; returns the
    figures by name."""
    if out.exists() and not out.is_dir():  # before reading: the logs may take a while
        raise SuiteInputError(f"report: --out '{out}' is an existing file: pass a folder.")
    logs, skipped = read_logs(paths)
    if labels and len(labels) != len(logs):
        raise SuiteInputError(
            f"report: {len(labels)} --label given for {len(logs)} readable logs: give one per log, in the order "
            f"the logs are given (a folder's logs sorted by name), or none."
        )
    options = ReportOptions(labels=run_labels(logs, labels), published=published)
    figures, left_out = collect_figures(logs, options)
    out = output_folder(out, "report")  # made only once there is something to write into it
    lines = ["# Causal-suite report", ""]
    for figure in figures:
        images = draw(figure, out, formats, dpi)
        lines += [f"## {figure.title}", "", f"![{figure.title}]({images[0]})", ""]
        lines += [f"Also: {', '.join(f'`{name}`' for name in images[1:])}", ""] if images[1:] else []
        lines += [
            markdown_table(figure.data) or f"(no data: {figure.empty_reason})",
            "",
            f"Data: `{figure.name}.csv`",
            "",
        ]
    if skipped + left_out:
        lines += ["Logs left out (unreadable, not a suite benchmark, or not a successful run): "]
        lines[-1] += ", ".join(skipped + left_out)
        lines.append("")
    write_text_atomic(out / "report.md", "\n".join(lines))
    return {f.name: f for f in figures}


def _formats(text: str) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    if not chosen or set(chosen) - set(FORMATS):
        raise argparse.ArgumentTypeError(f"'{text}': give one or more of {', '.join(FORMATS)}, comma-separated")
    return chosen


def _dpi(text: str) -> int:
    if not text.isdigit() or not 50 <= int(text) <= 1200:
        raise argparse.ArgumentTypeError(f"'{text}': give a whole number of dots per inch from 50 to 1200")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", help=".eval logs or folders holding them (searched recursively)")
    parser.add_argument("--out", required=True, type=Path, help="folder for report.md, the figures and CSVs")
    parser.add_argument(
        "--format",
        dest="formats",
        type=_formats,
        default=("png", "pdf"),
        help="image formats, comma-separated, of png, pdf, svg (default png,pdf)",
    )
    parser.add_argument("--dpi", type=_dpi, default=DEFAULT_DPI, help=f"PNG resolution (default {DEFAULT_DPI})")
    parser.add_argument(
        "--label",
        dest="labels",
        action="append",
        default=None,
        help="a run's label in the figures, once per log in the order given (default: its model, with a short "
        "run id where two runs share a model)",
    )
    parser.add_argument(
        "--published",
        type=Path,
        default=None,
        help="a published score table a benchmark draws beside the replay of its responses (Exp B: upstream's "
        "l2b_plus_scores_canonical_judge_v2.csv)",
    )
