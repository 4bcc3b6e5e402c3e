"""``causal-suite``: the suite's main job (every benchmark on its built-in data) and a results table.

``causal-suite demo`` runs each benchmark task on its built-in data with the offline default model (or ``--model``),
writes inspect logs to ``--log-dir`` and prints one line per task. The demo keeps each task small (a seeded
representative ``subset`` of whole clusters, fewer epochs where the paper's 5 would take long on a CPU); ``--full``
lifts those limits.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from typing import Any

from causal_suite.check import add_arguments as add_check_arguments
from causal_suite.check import check as check_logs
from causal_suite.compare import add_arguments as add_compare_arguments
from causal_suite.compare import run as run_compare
from causal_suite.demo_view import (
    footnotes,
    metrics_of,
    next_block,
    progress_shown,
    record_phase,
    shown_path,
    totals_line,
    undefined_note,
)
from causal_suite.errors import reports_input_errors
from causal_suite.plan import add_arguments as add_plan_arguments
from causal_suite.plan import run as run_plan
from causal_suite.registration import demo_plan
from causal_suite.report import add_arguments as add_report_arguments
from causal_suite.report import build_report
from causal_suite.rescore import add_arguments as add_rescore_arguments
from causal_suite.rescore import inspect_command
from causal_suite.rescore import rescore as rescore_log
from causal_suite.taskdoc import list_tasks
from causal_suite.unscored import UnscoredCount, log_unscored

DEFAULT_MODEL = "offline/gemma-3-270m"


# Judge roles answer with one letter or one number: the demo caps their replies at JUDGE_MAX_TOKENS, greedy.
JUDGE_MAX_TOKENS = 8


def _headline(log: Any, names: tuple[str, ...], notes: list[tuple[int, str]], count: UnscoredCount) -> str:
    """The named metrics as ``name=value`` pairs, each with its 95 % interval and n where the log has them beside
    it; a ``nan`` gets a footnote number, its reason (from ``count``, the log's unscored samples) appended to
    ``notes`` (:func:`demo_view.undefined_note`)."""
    metrics = metrics_of(log)

    def shown(name: str) -> str:
        note = undefined_note(name, metrics, count)
        if note is not None:
            notes.append((len(notes) + 1, note))
            return f"{name}=nan[{len(notes)}]"
        text = f"{name}={metrics[name]:.3f}"
        if f"{name}_low" in metrics and f"{name}_n" in metrics:
            text += f" [{metrics[f'{name}_low']:.2f}, {metrics[f'{name}_high']:.2f}] n={metrics[f'{name}_n']:.0f}"
        return text

    return ", ".join(shown(n) for n in names if n in metrics) or "-"


def run_demo(model: str, log_dir: str, full: bool, only: list[str] | None) -> int:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    judge_config = GenerateConfig(temperature=0.0, max_tokens=None if full else JUDGE_MAX_TOKENS)

    rows: list[tuple[str, str, str, str, str]] = []
    notes: list[tuple[int, str]] = []
    failed = 0
    runs = [run for run in demo_plan() if not only or any(o in run.task for o in only)]
    demo_start, demo_cpu = time.perf_counter(), time.process_time()
    for number, run in enumerate(runs, start=1):
        missing = [program for program in run.requires if shutil.which(program) is None]
        if missing:  # checked before any judge model is built for a task that will not run
            rows.append(
                (run.task, "skipped", "-", f"needs {', '.join(missing)} (Debian: r-base-core, bubblewrap)", "-")
            )
            continue
        task_args = run.task_args if full else run.task_args | run.small
        kwargs: dict[str, Any] = dict(task_args=task_args, model=model, log_dir=log_dir, display="none")
        if run.roles:
            kwargs["model_roles"] = {role: get_model(model, config=judge_config) for role in run.roles}
        if not full:
            kwargs.update({k: v for k, v in (("epochs", run.epochs), ("max_tokens", run.max_tokens)) if v is not None})
        print(f"[demo] task {number}/{len(runs)}: {run.task}", file=sys.stderr, flush=True)
        start, cpu_start = time.perf_counter(), time.process_time()
        try:
            with progress_shown():
                [log] = inspect_eval(run.task, **kwargs)
        except Exception as exc:  # report every task, then fail
            failed += 1
            rows.append((run.task, "error", "-", f"{type(exc).__name__}: {exc}"[:80], "-"))
            continue
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        record_phase(f"demo: {run.task}", wall, cpu)
        n = len({s.id for s in log.samples or []})
        if log.status != "success":
            failed += 1
        status = (
            log.status if log.status == "success" else f"{log.status}: {log.error.message[:60] if log.error else ''}"
        )
        count = log_unscored(log)
        epochs = f" x {count.epochs} epochs" if count.epochs > 1 else ""
        size = f"{n} samples{epochs} ({count.unscored} unscored) / {wall:.0f} s wall, {cpu:.0f} s CPU"
        rows.append((run.task, status, size, _headline(log, run.headline, notes, count), shown_path(log.location)))
    _print_table(("task", "status", "size", "headline metrics", "log"), rows)
    spent = totals_line(time.perf_counter() - demo_start, time.process_time() - demo_cpu)
    print("\n".join(["", spent, *footnotes(notes), "", next_block(log_dir)]))
    return 1 if failed else 0


def _print_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="causal-suite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run every benchmark on its built-in data and print a results table")
    demo.add_argument("--model", default=DEFAULT_MODEL, help=f"inspect model string (default {DEFAULT_MODEL})")
    demo.add_argument("--log-dir", default="logs/demo", help="where the inspect logs go (default logs/demo)")
    demo.add_argument("--full", action="store_true", help="no demo limits: all samples, the tasks' own epochs")
    demo.add_argument("--only", nargs="*", help="run only tasks whose name contains one of these strings")
    sub.add_parser("tasks", help="the inspect tasks the suite registers: each parameter's type, default and help")
    planner = sub.add_parser("plan", help="samples, model requests, tokens and cost of a run, before running it")
    add_plan_arguments(planner)
    report = sub.add_parser("report", help="tables and figures (PNG + CSV + report.md) from eval logs")
    add_report_arguments(report)
    rescore = sub.add_parser("score", help="re-score a log with its own scorers and their recorded arguments")
    add_rescore_arguments(rescore)
    checker = sub.add_parser(
        "check", help="exit 1 when a log did not end in success (inspect eval exits 0 whatever the status)"
    )
    add_check_arguments(checker)
    comparer = sub.add_parser(
        "compare", help="paired differences between models on the samples they share (markdown, CSV, forest plot)"
    )
    add_compare_arguments(comparer)
    args = parser.parse_args(argv)
    reading_logs = {
        "check": lambda: check_logs(args.logs),
        "score": lambda: run_score(args),
        "compare": lambda: run_compare(args.logs, args.out),
        "report": lambda: run_report(args),
        "plan": lambda: run_plan(args),
        "tasks": list_tasks,
    }
    if args.command in reading_logs:  # bad input: one sentence and exit 2
        return reports_input_errors(f"causal-suite {args.command}")(reading_logs[args.command])()
    return run_demo(args.model, args.log_dir, args.full, args.only)


def run_score(args: argparse.Namespace) -> int:
    scored = rescore_log(args.log, args.append, args.out)
    samples = scored.results.total_samples if scored.results else 0
    equivalent = inspect_command(scored, args.log)
    print(f"score: {args.out or args.log} re-scored ({samples} samples); the inspect equivalent: {equivalent}")
    return 0


def run_report(args: argparse.Namespace) -> int:
    figures = build_report(args.logs, args.out, args.published, args.formats, args.dpi, args.labels)
    empty = sum(figure.data.empty for figure in figures.values())
    print(
        f"report: {len(figures)} figures ({empty} of them 'no data' panels) written as {', '.join(args.formats)} "
        f"to {args.out}, listed in {args.out / 'report.md'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
