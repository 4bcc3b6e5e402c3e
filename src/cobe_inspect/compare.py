"""Our CoBe figures beside the paper's, for the models and breakdowns both have.

Usage::

    python -m cobe_inspect.compare LOG [LOG ...] [--paper-model gpt]

For each CoBe eval log, the log's model is matched to one of the paper's nine models by name
(``openai/gpt-5.4-pro`` -> GPT-5.4-Pro; ``--paper-model`` names it outright, e.g. for a local or scripted run),
and every figure both sides have is printed in percent with the difference in points:

- Tier 1 logs: Table 5 (mean over phrasings A-C ± their std; and our overall accuracy ± its scenario-clustered
  SE), Fig. 8 (per phrasing), Fig. 7 (per graph type), Fig. 9 (per failure mode) and Fig. 6 (failure rates: the
  paper's E1 upstream = our E1, E2 downstream = our E2, E3 connectors = our E0, E4 numeric, E5 latent);
- every tier: Table 7 (pass rate by prompt tier; GPT-5.4-Pro, Gemini-3.1-Pro and Qwen-2.5-7B only).

Every row carries its n (scored samples). A cell under ``--min-n`` samples (default 30) is shown without a
difference (``n<30``), and one not measured like the paper's is marked ``not like``: an overall or Table 7 figure
over other phrasings than the paper's (a tier-2 run of D only against the paper's D-G mean, a Tier-1 run without
all of A-C), or phrasings scored on different scenarios (Table 5's mean of A-C is then left out). The header of
each block says what else makes the numbers not comparable: a self-judged run, a judge other than the paper's,
our built-in scenarios instead of the paper's data, unscored samples. ``--table7`` lines logs of one model at
different tiers up on their common scenarios (``cobe_inspect.table7``). A directory or an unreadable log is one
sentence. The published numbers ship with the package (``data/paper_results.json``).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

from causal_suite.errors import SuiteInputError, reports_input_errors
from causal_suite.logs import LogDigest, read_log_digest
from cobe_inspect.log_view import (
    MIN_N,
    SCORER,
    LogView,
    log_view,
    match_paper_model,
    norm_name,
    present,
    unlike,
)
from cobe_inspect.records.paper import paper_results
from cobe_inspect.table7 import table7

FIG6 = (
    ("upstream", "E1_failure", "E1 upstream (our E1 preserve)"),
    ("downstream", "E2_failure", "E2 downstream (our E2 change)"),
    ("connectors", "E0_failure", "E3 connectors (our E0)"),
    ("numeric", "E4_numeric_failure", "E4 numeric"),
    ("latent", "E5_latent_failure", "E5 latent factors"),
)


@dataclass
class Row:
    """One comparison cell: our value with its n beside the paper's, the difference only when comparable."""

    figure: str
    breakdown: str
    n: str
    ours: str
    paper: str
    diff: str


def _pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


class Table:
    """Collects the rows of one log's comparison, marking cells under ``min_n`` or not like the paper's."""

    def __init__(self, metrics: dict[str, float], min_n: int) -> None:
        self.metrics, self.min_n = metrics, min_n
        self.rows: list[Row] = []

    def add(self, figure: str, breakdown: str, name: str, published: float | None, **given: Any) -> None:
        """A row for metric ``name`` (or ``value`` / ``n`` given), when both sides have it."""
        value: Any = given.get("value", self.metrics.get(name))
        n: Any = given.get("n", self.metrics.get(f"{name}_n"))
        if not present(value) or published is None:
            return
        count = int(n) if present(n) else None
        if given.get("unlike"):
            diff = "not like"
        elif count is not None and count < self.min_n:
            diff = f"n<{self.min_n}"
        else:
            diff = f"{100 * value - published:+.1f}"
        ours = given.get("ours_text") or _pct(value)
        paper_text = given.get("paper_text") or f"{published:.1f}"
        self.rows.append(Row(figure, breakdown, "?" if count is None else str(count), ours, paper_text, diff))


def _tier1_rows(table: Table, view: LogView, key: str, paper: dict[str, Any]) -> None:
    """Table 5 and Figs. 6-9 (Tier 1 only)."""
    metrics, why = view.metrics, unlike(view)
    t5 = paper["table5"].get(key)
    per_phrasing = [metrics.get(f"phrasing={p}", math.nan) for p in "ABC"]
    if t5 and all(present(v) for v in per_phrasing) and why is None:
        mean = sum(per_phrasing) / 3
        std = math.sqrt(sum((v - mean) ** 2 for v in per_phrasing) / 2)
        n = sum(int(metrics.get(f"phrasing={p}_n", 0)) for p in "ABC")
        ours, theirs = f"{100 * mean:.1f} ± {100 * std:.1f}", f"{t5['accuracy']:.1f} ± {t5['std']:.1f}"
        table.add(
            "Table 5",
            "accuracy, mean of A-C ± std",
            "",
            t5["accuracy"],
            value=mean,
            n=n,
            ours_text=ours,
            paper_text=theirs,
        )
    if t5:
        se = metrics.get("accuracy_se")
        text = f"{_pct(metrics.get('accuracy'))} ± {_pct(se)} SE" if present(se) else None
        table.add(
            "Table 5", "accuracy (all samples ± clustered SE)", "accuracy", t5["accuracy"], ours_text=text, unlike=why
        )
    for p in "ABC":
        table.add("Fig. 8", f"phrasing {p}", f"phrasing={p}", paper["fig8_phrasing"][p].get(key))
    for graph, values in paper["fig7_graph"].items():
        table.add("Fig. 7", f"graph {graph}", f"graph_type={graph}", values.get(key))
    for mode, values in paper["fig9_failure_mode"].items():
        table.add("Fig. 9", f"failure mode {mode}", f"failure_mode={mode}", values.get(key))
    for name, metric, label in FIG6:
        table.add("Fig. 6", f"failure {label}", metric, paper["fig6_failure"][name].get(key))


def comparison_rows(view: LogView, key: str, paper: dict[str, Any], min_n: int = MIN_N) -> list[Row]:
    """Every figure both our metrics and the paper's model ``key`` have (percent; difference in points), each with
    its n; a cell under ``min_n`` samples, or not measured like the paper's, is shown without a difference."""
    table = Table(view.metrics, min_n)
    if view.tier == 1:
        _tier1_rows(table, view, key, paper)
    t7 = paper["table7_tier"].get(key, {}).get(str(view.tier))
    table.add("Table 7", f"tier {view.tier} pass rate (paper: 500-example subset)", "accuracy", t7, unlike=unlike(view))
    return table.rows


def _caveats(log: LogDigest, view: LogView, paper: dict[str, Any]) -> list[str]:
    meta = log.eval.metadata or {}
    judge = meta.get("judge") or {}
    notes = []
    if judge.get("self_judged") or view.metrics.get("self_judged", 0) > 0:
        notes.append("SELF-JUDGED: the model under test judged its own rewrites; not comparable")
    elif judge.get("model") and norm_name(paper["judge"]) not in norm_name(str(judge.get("model"))):
        notes.append(f"judged by {judge.get('model')}, not the paper's {paper['judge']}")
    if meta.get("builtin", log.eval.task_args.get("data") is None):
        notes.append(f"data: our 36 built-in scenarios, not the paper's {paper['n_scenarios']:,}")
    prompts = judge.get("prompts") or {}
    if prompts.get("name", "").startswith("cobe-ours"):
        notes.append("judge prompts: our wording, not the paper's")
    assert log.results is not None  # the metrics came from them (_metrics)
    [result] = [s for s in log.results.scores if s.name == SCORER]
    if result.unscored_samples:
        notes.append(f"{result.unscored_samples} unscored sample(s) left out of our figures")
    why = unlike(view)
    if why:
        notes.append(f"not like the paper's: {why} (rows marked 'not like')")
    return notes


def _table_lines(rows: list[Row], min_n: int) -> list[str]:
    header = Row("figure", "breakdown", "n", "ours %", "paper %", "diff (pts)")
    fields = ("figure", "breakdown", "n", "ours", "paper", "diff")
    widths = [max(len(getattr(r, f)) for r in [header, *rows]) for f in fields]
    lines = []
    for r in [header, *rows]:
        cells = [
            getattr(r, f).ljust(w) if i < 2 else getattr(r, f).rjust(w)
            for i, (f, w) in enumerate(zip(fields, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells))
    if any(r.diff == f"n<{min_n}" for r in rows):
        lines.append(f"  n<{min_n}: fewer scored samples than --min-n; shown, not compared")
    return lines


def compare_log(log: LogDigest, paper: dict[str, Any], paper_model: str | None = None, min_n: int = MIN_N) -> str:
    """One block of text: the log's header, its caveats and the comparison table."""
    view = log_view(log)
    key = paper_model or match_paper_model(log.eval.model, paper)
    assert log.results is not None  # the metrics came from them (metrics_of)
    [result] = [s for s in log.results.scores if s.name == SCORER]
    judge = (log.eval.metadata or {}).get("judge") or {}
    prompts = judge.get("prompts") or {}
    lines = [
        f"log: {log.location}",
        f"  model: {log.eval.model}  ->  paper model: "
        + (f"{paper['models'][key]['name']} ({key})" if key else "none matched (name one with --paper-model)"),
        f"  tier {view.tier}, phrasings {', '.join(sorted(view.scenarios)) or 'none'}; scored {result.scored_samples}, "
        f"unscored {result.unscored_samples}; judge {judge.get('model', '?')}; judge prompts "
        f"{prompts.get('name', '?')} sha256:{prompts.get('sha256', '?')[:12]}",
    ]
    lines += [f"  caveat: {note}" for note in _caveats(log, view, paper)]
    if key is None:
        return "\n".join(lines)
    rows = comparison_rows(view, key, paper, min_n)
    lines += _table_lines(rows, min_n) if rows else ["  no figure in common"]
    return "\n".join(lines)


@reports_input_errors("python -m cobe_inspect.compare")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cobe_inspect.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help="CoBe eval logs (.eval or .json)")
    parser.add_argument(
        "--paper-model",
        help="the paper's model to compare with (gpt, gemini, claude, llama3-8b, "
        "mistral-7b, qwen-7b, phi4, gemma-27b, llama3-70b)",
    )
    parser.add_argument(
        "--min-n", type=int, default=MIN_N, help=f"fewest scored samples a compared cell needs (default {MIN_N})"
    )
    parser.add_argument(
        "--table7", action="store_true", help="line the logs (one per tier) up on their common scenarios (Table 7)"
    )
    args = parser.parse_args(argv)
    paper = paper_results()
    if args.paper_model and args.paper_model not in paper["models"]:
        raise SuiteInputError(f"--paper-model must be one of {', '.join(paper['models'])}, got {args.paper_model!r}.")
    if args.min_n < 1:
        raise SuiteInputError(f"--min-n must be a whole number >= 1, got {args.min_n}.")
    logs = [read_log_digest(p, "Eval log") for p in args.logs]
    print("CoBe: our figures beside the paper's (Raghavan et al., arXiv:2610.13057; percent)\n")
    if args.table7:
        print(table7(logs, paper, args.paper_model, args.min_n))
    else:
        print("\n\n".join(compare_log(log, paper, args.paper_model, args.min_n) for log in logs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
