"""``causal-suite check LOGS...``: exit 1 when an eval log did not end in ``success``, one line per log.

``inspect eval`` (inspect-ai 0.3.285) exits 0 whatever its tasks' statuses are: a task that ended in ``error`` (a
model that cannot be reached, a sample that raised with ``fail_on_error``) or was ``cancelled`` is only recorded in
the log's ``status``. Hooks cannot change that exit code (inspect catches what a hook raises), so a script that
must stop on a failed task runs ``inspect eval ... --log-dir DIR && causal-suite check DIR`` (a fresh ``DIR`` per
run, or the log files themselves), or uses what inspect does offer: ``inspect eval-set`` exits 1 unless every task
succeeded, ``--debug-errors`` raises the task's error (exit 1, with a traceback), and ``eval()`` in Python returns
logs whose ``status`` says it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from inspect_ai.log import list_eval_logs

from causal_suite.errors import SuiteInputError
from causal_suite.logs import read_log_header


def log_files(paths: list[Path]) -> list[str]:
    """The eval logs of ``paths``: files as given, directories searched recursively (oldest first)."""
    files: list[str] = []
    for path in paths:
        if path.is_dir():
            found = [info.name.removeprefix("file://") for info in list_eval_logs(str(path))]
            files.extend(reversed(found))  # inspect lists newest first
        elif path.exists():  # a pipe or device is refused by the reader, one line
            files.append(str(path))
        else:
            raise SuiteInputError(f"check: '{path}' does not exist: pass eval log files or the folders holding them.")
    if not files:
        raise SuiteInputError(f"check: no eval logs under {', '.join(map(str, paths))}.")
    return files


def status_line(file: str) -> tuple[bool, str]:
    """(whether the log ended in success, one line: status, task, samples, file, and the error's first line); a
    file that is not a readable log gives ``unreadable: <why>`` and counts as not successful."""
    try:
        log = read_log_header(file, reductions=False)  # the header only: constant memory per log
    except SuiteInputError as exc:
        return False, f"unreadable: {exc}"
    samples = f"{log.results.completed_samples}/{log.results.total_samples} samples" if log.results else "no results"
    line = f"{log.status}: {log.eval.task} ({samples}) {file}"
    if log.error is not None:
        first = (log.error.message or "").strip().splitlines()
        line += f" -- {first[0][:200] if first else type(log.error).__name__}"
    return log.status == "success", line


def check(paths: list[Path]) -> int:
    """Print one line per log; 0 when every log ended in success, else 1."""
    results = [status_line(f) for f in log_files(paths)]
    for _, line in results:
        print(line)
    failed = sum(not ok for ok, _ in results)
    if failed:
        print(f"check: {failed} of {len(results)} logs did not end in success.")
    return 1 if failed else 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="+", type=Path, help="eval log files or folders holding them (recursive)")
