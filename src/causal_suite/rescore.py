"""``causal-suite score LOG``: re-score a log with the scorers it was scored with, no extra arguments.

``inspect score LOG`` records and looks up a scorer by its unqualified name (``glass_match``), which inspect cannot
find for a scorer registered by a package (``glass_inspect/glass_match``) unless told ``--scorer`` and every ``-S``
argument. The log holds both the task's package and each scorer's arguments, so this command resolves them itself
and calls inspect's own ``score``. The equivalent inspect command is printed for reference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from inspect_ai import score
from inspect_ai.log import EvalLog, write_eval_log

from causal_suite.errors import SuiteInputError
from causal_suite.files import write_atomic
from causal_suite.logs import LogReader
from causal_suite.registration import benchmark_of


def log_scorers(log: EvalLog) -> list:
    """The scorers recorded in ``log``, created from the scorers its task's benchmark declares
    (``causal_suite.registration``) with their recorded arguments."""
    benchmark = benchmark_of(log.eval.task)
    if benchmark is None:
        raise SuiteInputError(f"score: the log's task '{log.eval.task}' is not one of the suite's.")
    factories = {factory.__name__: factory for factory in benchmark.scorers}
    scorers = []
    for recorded in log.eval.scorers or []:
        factory = factories.get(recorded.name.split("/")[-1])
        if factory is None:
            raise SuiteInputError(f"score: {benchmark.package} registers no scorer named '{recorded.name}'.")
        scorers.append(factory(**(recorded.options or {})))
    if not scorers:
        raise SuiteInputError("score: the log records no scorer.")
    return scorers


def inspect_command(log: EvalLog, path: Path) -> str:
    """The ``inspect score`` command line that does the same."""
    package = log.eval.task.split("/")[0]
    parts = [f"inspect score {path}"]
    for recorded in log.eval.scorers or []:
        parts.append(f"--scorer {package}/{recorded.name}")
        parts += [f"-S {k}={v}" for k, v in (recorded.options or {}).items() if v is not None]
    return " ".join(parts)


def rescore(path: Path, append: bool = False, out: Path | None = None) -> EvalLog:
    """Re-score the log at ``path`` (overwriting its scores unless ``append``); written to ``out`` or in place.

    The log is read once (``causal_suite.logs.LogReader``; a bad log fails in one sentence before any scorer is
    built) and held whole: inspect's ``score`` and ``write_eval_log`` take one ``EvalLog`` with every transcript.
    The new log goes to a temporary file beside the target and is renamed into place, so a failed write leaves
    the old log whole."""
    target = Path(out or path)
    if target.is_dir():
        raise SuiteInputError(f"score: --out '{target}' is a folder: pass the file to write.")
    with LogReader(path) as reader:
        log = reader.header
        scorers = log_scorers(log)
        log.samples = list(reader.full_samples())
    scored = score(log, scorers, action="append" if append else "overwrite", display="none")
    write_atomic(target, lambda tmp: write_eval_log(scored, str(tmp)))  # the temp keeps the suffix: the format
    return scored


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="an .eval log of one of the suite's tasks")
    parser.add_argument("--append", action="store_true", help="add the new scores beside the old ones")
    parser.add_argument("--out", type=Path, default=None, help="write the re-scored log here (default: in place)")
