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
from dataclasses import dataclass, field
from typing import Any

from causal_suite.check import add_arguments as add_check_arguments
from causal_suite.check import check as check_logs
from causal_suite.compare import add_arguments as add_compare_arguments
from causal_suite.compare import run as run_compare
from causal_suite.errors import reports_input_errors
from causal_suite.report import add_arguments as add_report_arguments
from causal_suite.report import build_report
from causal_suite.rescore import add_arguments as add_rescore_arguments
from causal_suite.rescore import inspect_command
from causal_suite.rescore import rescore as rescore_log
from causal_suite.scores import is_unscored

DEFAULT_MODEL = "offline/gemma-3-270m"


@dataclass(frozen=True)
class DemoRun:
    """One task of the main job: registry name, task arguments, and the demo's size limits."""

    task: str
    task_args: dict[str, Any] = field(default_factory=dict)
    roles: tuple[str, ...] = ()  # judge roles (grader, extractor) bound to the model under test
    small: dict[str, Any] = field(default_factory=dict)  # task arguments of the demo's slice (whole clusters)
    epochs: int | None = None  # None: the task's own epochs
    max_tokens: int | None = None
    headline: tuple[str, ...] = ()  # metric names shown in the results table
    requires: tuple[str, ...] = ()  # programs the task needs on this machine (else the demo skips it, saying so)


# Judge roles answer with one letter or one number: the demo caps their replies at JUDGE_MAX_TOKENS, greedy.
JUDGE_MAX_TOKENS = 8

PLAN: tuple[DemoRun, ...] = (
    # the demo's one model also judges: CoBe refuses that unless told (self_judge), and marks the log self-judged
    DemoRun(
        "cobe_inspect/cobe",
        {"self_judge": True},
        roles=("grader",),
        small={"subset": 1},  # one core example with its three phrasings
        max_tokens=128,
        headline=("accuracy", "E0_failure", "E1_failure", "E2_failure", "self_judged"),
    ),
    DemoRun(
        "glass_inspect/glassgsm",
        small={"subset": 3, "doses": "1"},  # three bases with all their dose-1 twins
        epochs=2,
        max_tokens=128,
        headline=("break_rate", "base_accuracy", "identity_floor"),
    ),
    DemoRun(
        "glass_inspect/glassmath",
        small={"subset": 3, "doses": "1"},
        epochs=2,
        max_tokens=128,
        headline=("break_rate", "base_accuracy", "identity_floor"),
    ),
    DemoRun(
        "causalverify_inspect/exp_b",
        {"sandbox": "confined"},
        roles=("extractor",),
        small={"subset": 4},  # one scenario of each method family
        max_tokens=256,
        headline=("L2b_plus", "L2b", "L2a", "L1", "conditional_pass"),
        requires=("Rscript", "bwrap", "prlimit"),
    ),
)


def _headline(log: Any, names: tuple[str, ...]) -> str:
    """The named metrics as ``name=value`` pairs (a scorer reporting one ``mean`` is named by the scorer), each
    with its 95 % interval and n where the log has them beside it."""
    metrics: dict[str, float] = {}
    for score in log.results.scores if log.results else []:
        for name, m in score.metrics.items():
            metrics.setdefault(score.name if name == "mean" else name.split("/")[-1], m.value)

    def shown(name: str) -> str:
        text = f"{name}={metrics[name]:.3f}"
        if f"{name}_low" in metrics and f"{name}_n" in metrics:
            text += f" [{metrics[f'{name}_low']:.2f}, {metrics[f'{name}_high']:.2f}] n={metrics[f'{name}_n']:.0f}"
        return text

    return ", ".join(shown(n) for n in names if n in metrics) or "-"


def _unscored(log: Any) -> int:
    """Samples (first epoch) whose first score has no value: judge or extraction failures, recorded with a reason."""
    count = 0
    for sample in log.samples or []:
        if sample.epoch == 1 and sample.scores:
            count += is_unscored(next(iter(sample.scores.values())).value)
    return count


def run_demo(model: str, log_dir: str, full: bool, only: list[str] | None) -> int:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig, get_model

    judge_config = GenerateConfig(temperature=0.0, max_tokens=None if full else JUDGE_MAX_TOKENS)

    rows: list[tuple[str, str, str, str, str]] = []
    failed = 0
    for run in PLAN:
        if only and not any(o in run.task for o in only):
            continue
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
        print(f"[demo] {run.task} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            [log] = inspect_eval(run.task, **kwargs)
        except Exception as exc:  # report every task, then fail
            failed += 1
            rows.append((run.task, "error", "-", f"{type(exc).__name__}: {exc}"[:80], "-"))
            continue
        wall = time.perf_counter() - start
        n = len({s.id for s in log.samples or []})
        if log.status != "success":
            failed += 1
        status = (
            log.status if log.status == "success" else f"{log.status}: {log.error.message[:60] if log.error else ''}"
        )
        size = f"{n} samples ({_unscored(log)} unscored) / {wall:.0f} s"
        rows.append((run.task, status, size, _headline(log, run.headline), log.location))
    _print_table(("task", "status", "size", "headline metrics", "log"), rows)
    return 1 if failed else 0


def _print_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())


BENCHMARK_PACKAGES = ("cobe_inspect", "glass_inspect", "causalverify_inspect")


def registered_tasks() -> list[tuple[str, list[str]]]:
    """(registry name, parameters) of every task the suite's inspect entry points register."""
    import importlib

    from causal_suite.inspect_compat import registry_find, registry_info

    for package in BENCHMARK_PACKAGES:
        importlib.import_module(f"{package}._registry")
    tasks = registry_find(lambda info: info.type == "task" and info.name.split("/")[0] in BENCHMARK_PACKAGES)
    rows = []
    for t in tasks:
        info = registry_info(t)
        rows.append((info.name, [p for p in info.metadata.get("params", []) if p != "unknown_params"]))
    return sorted(rows)


def list_tasks() -> int:
    for name, params in registered_tasks():
        print(f"{name}  ({', '.join(params)})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="causal-suite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run every benchmark on its built-in data and print a results table")
    demo.add_argument("--model", default=DEFAULT_MODEL, help=f"inspect model string (default {DEFAULT_MODEL})")
    demo.add_argument("--log-dir", default="logs/demo", help="where the inspect logs go (default logs/demo)")
    demo.add_argument("--full", action="store_true", help="no demo limits: all samples, the tasks' own epochs")
    demo.add_argument("--only", nargs="*", help="run only tasks whose name contains one of these strings")
    sub.add_parser("tasks", help="list the inspect tasks the suite registers, with their parameters")
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
    }
    if args.command in reading_logs:  # bad input: one sentence and exit 2
        return reports_input_errors(f"causal-suite {args.command}")(reading_logs[args.command])()
    if args.command == "tasks":
        return list_tasks()
    return run_demo(args.model, args.log_dir, args.full, args.only)


def run_score(args: argparse.Namespace) -> int:
    scored = rescore_log(args.log, args.append, args.out)
    print(
        f"score: {args.out or args.log} re-scored ({len(scored.samples or [])} samples); the inspect "
        f"equivalent: {inspect_command(scored, args.log)}"
    )
    return 0


def run_report(args: argparse.Namespace) -> int:
    figures = build_report(args.logs, args.out, args.published)
    print(f"report: {len(figures)} figures written to {args.out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
