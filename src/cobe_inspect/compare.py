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

The header of each block says what makes the numbers not comparable: a self-judged run, a judge other than the
paper's, our built-in scenarios instead of the paper's data, unscored samples. The published numbers ship with
the package (``data/paper_results.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from inspect_ai.log import EvalLog

from causal_suite.errors import SuiteInputError, reports_input_errors
from causal_suite.logs import read_log_header

SCORER = "cobe_judge"
FIG6 = (
    ("upstream", "E1_failure", "E1 upstream (our E1 preserve)"),
    ("downstream", "E2_failure", "E2 downstream (our E2 change)"),
    ("connectors", "E0_failure", "E3 connectors (our E0)"),
    ("numeric", "E4_numeric_failure", "E4 numeric"),
    ("latent", "E5_latent_failure", "E5 latent factors"),
)


def paper_results() -> dict[str, Any]:
    """The published numbers shipped with the package."""
    text = resources.files("cobe_inspect").joinpath("data/paper_results.json").read_text(encoding="utf-8")
    return json.loads(text)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def match_paper_model(model: str, paper: dict[str, Any]) -> str | None:
    """The paper's key (``gpt``, ``llama3-8b``, ...) for an inspect model name, or None."""
    name = _norm(model)
    hits = [key for key, info in paper["models"].items() if any(m in name for m in info["match"])]
    return hits[0] if len(hits) == 1 else None


@dataclass
class Row:
    figure: str
    breakdown: str
    ours: str
    paper: str
    diff: str


def _pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _diff(ours: float, paper: float) -> str:
    return f"{100 * ours - paper:+.1f}"


def _metrics(log: EvalLog) -> dict[str, float]:
    for score in log.results.scores if log.results else []:
        if score.name == SCORER:
            return {name: m.value for name, m in score.metrics.items()}
    raise SuiteInputError(f"Eval log '{log.location}' has no '{SCORER}' results; is it a finished CoBe log?")


def _present(value: Any) -> bool:
    return isinstance(value, int | float) and not math.isnan(value)


def comparison_rows(metrics: dict[str, float], tier: int, key: str, paper: dict[str, Any]) -> list[Row]:
    """Every figure both our metrics and the paper's model ``key`` have (percent; difference in points)."""
    rows: list[Row] = []

    def add(
        figure: str,
        breakdown: str,
        ours: Any,
        published: float | None,
        ours_text: str | None = None,
        paper_text: str | None = None,
    ) -> None:
        if _present(ours) and published is not None:
            rows.append(
                Row(
                    figure, breakdown, ours_text or _pct(ours), paper_text or f"{published:.1f}", _diff(ours, published)
                )
            )

    if tier == 1:
        t5 = paper["table5"].get(key)
        per_phrasing: list[Any] = [metrics.get(f"phrasing={p}") for p in "ABC"]  # numbers once _present
        if t5 and all(_present(v) for v in per_phrasing):
            mean = sum(per_phrasing) / 3
            std = math.sqrt(sum((v - mean) ** 2 for v in per_phrasing) / 2)
            add(
                "Table 5",
                "accuracy, mean of A-C ± std",
                mean,
                t5["accuracy"],
                f"{100 * mean:.1f} ± {100 * std:.1f}",
                f"{t5['accuracy']:.1f} ± {t5['std']:.1f}",
            )
        if t5:
            se = metrics.get("accuracy_se")
            text = f"{_pct(metrics.get('accuracy'))} ± {_pct(se)} SE" if _present(se) else None
            add("Table 5", "accuracy (all samples ± clustered SE)", metrics.get("accuracy"), t5["accuracy"], text)
        for p in "ABC":
            add("Fig. 8", f"phrasing {p}", metrics.get(f"phrasing={p}"), paper["fig8_phrasing"][p].get(key))
        for graph, values in paper["fig7_graph"].items():
            add("Fig. 7", f"graph {graph}", metrics.get(f"graph_type={graph}"), values.get(key))
        for mode, values in paper["fig9_failure_mode"].items():
            add("Fig. 9", f"failure mode {mode}", metrics.get(f"failure_mode={mode}"), values.get(key))
        for name, metric, label in FIG6:
            add("Fig. 6", f"failure {label}", metrics.get(metric), paper["fig6_failure"][name].get(key))
    t7 = paper["table7_tier"].get(key, {}).get(str(tier))
    add("Table 7", f"tier {tier} pass rate (paper: 500-example subset)", metrics.get("accuracy"), t7)
    return rows


def _caveats(log: EvalLog, metrics: dict[str, float], paper: dict[str, Any]) -> list[str]:
    meta = log.eval.metadata or {}
    judge = meta.get("judge") or {}
    notes = []
    if judge.get("self_judged") or metrics.get("self_judged", 0) > 0:
        notes.append("SELF-JUDGED: the model under test judged its own rewrites; not comparable")
    elif judge.get("model") and _norm(paper["judge"]) not in _norm(str(judge.get("model"))):
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
    return notes


def compare_log(log: EvalLog, paper: dict[str, Any], paper_model: str | None = None) -> str:
    """One block of text: the log's header, its caveats and the comparison table."""
    metrics = _metrics(log)
    key = paper_model or match_paper_model(log.eval.model, paper)
    tier = int(log.eval.task_args.get("tier", (log.eval.metadata or {}).get("tier", 1)))
    assert log.results is not None  # the metrics came from them (_metrics)
    [result] = [s for s in log.results.scores if s.name == SCORER]
    judge = (log.eval.metadata or {}).get("judge") or {}
    prompts = judge.get("prompts") or {}
    lines = [
        f"log: {log.location}",
        f"  model: {log.eval.model}  ->  paper model: "
        + (f"{paper['models'][key]['name']} ({key})" if key else "none matched (name one with --paper-model)"),
        f"  tier {tier}; scored {result.scored_samples}, unscored {result.unscored_samples}; judge "
        f"{judge.get('model', '?')}; judge prompts {prompts.get('name', '?')} sha256:{prompts.get('sha256', '?')[:12]}",
    ]
    lines += [f"  caveat: {note}" for note in _caveats(log, metrics, paper)]
    if key is None:
        return "\n".join(lines)
    rows = comparison_rows(metrics, tier, key, paper)
    if not rows:
        lines.append("  no figure in common")
        return "\n".join(lines)
    header = Row("figure", "breakdown", "ours %", "paper %", "diff (pts)")
    widths = [max(len(getattr(r, f)) for r in [header, *rows]) for f in ("figure", "breakdown", "ours", "paper")]
    for r in [header, *rows]:
        cells = (
            r.figure.ljust(widths[0]),
            r.breakdown.ljust(widths[1]),
            r.ours.rjust(widths[2]),
            r.paper.rjust(widths[3]),
            r.diff.rjust(10),
        )
        lines.append("  " + "  ".join(cells))
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
    args = parser.parse_args(argv)
    paper = paper_results()
    if args.paper_model and args.paper_model not in paper["models"]:
        raise SuiteInputError(f"--paper-model must be one of {', '.join(paper['models'])}, got {args.paper_model!r}.")
    blocks = [compare_log(read_log_header(p, "Eval log"), paper, args.paper_model) for p in args.logs]
    print("CoBe: our figures beside the paper's (Raghavan et al., arXiv:2610.13057; percent)\n")
    print("\n\n".join(blocks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
