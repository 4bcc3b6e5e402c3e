"""What ``causal-suite demo`` shows a person while and after it runs: a progress line per finished sample, the
footnotes that explain every ``nan`` in the results table from the log, and the closing "next:" block.

:class:`DemoProgress` is an inspect hook, enabled only while the demo runs (:func:`progress_shown`): on stderr,
``[demo] <task>: k/N samples, t s`` as samples finish (N = samples x epochs of the task's eval spec).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from inspect_ai.hooks import Hooks, SampleEnd, TaskStart, hooks

from causal_suite.unscored import UnscoredCount

NEXT_STEPS = (
    "inspect view --log-dir {log_dir}          # browse every sample, prompt and score",
    "causal-suite report {log_dir} --out report/   # tables and figures with their intervals",
    "causal-suite plan glass_inspect/glassgsm --model <provider/model>   # requests and tokens before a real run",
)


class _Progress:
    """The running task's name, its expected samples, how many finished, and when it started."""

    def __init__(self) -> None:
        self.shown = False
        self.task, self.total, self.done, self.start = "", 0, 0, 0.0


_STATE = _Progress()


@contextmanager
def progress_shown() -> Iterator[None]:
    """Enable :class:`DemoProgress` for the duration of the block."""
    _STATE.shown = True
    try:
        yield
    finally:
        _STATE.shown = False


@hooks(name="causal_suite_demo_progress", description="The demo's progress line per finished sample.")
class DemoProgress(Hooks):
    """Prints the demo's progress on stderr (enabled only inside :func:`progress_shown`)."""

    def enabled(self) -> bool:
        return _STATE.shown

    async def on_task_start(self, data: TaskStart) -> None:
        samples = data.spec.dataset.samples or 0
        _STATE.task, _STATE.total = data.spec.task, samples * (data.spec.config.epochs or 1)
        _STATE.done, _STATE.start = 0, time.perf_counter()

    async def on_sample_end(self, data: SampleEnd) -> None:
        _STATE.done += 1
        elapsed = time.perf_counter() - _STATE.start
        print(f"[demo] {_STATE.task}: {_STATE.done}/{_STATE.total} samples, {elapsed:.0f} s", file=sys.stderr)


def undefined_note(name: str, metrics: dict[str, float], count: UnscoredCount) -> str | None:
    """Why metric ``name`` is ``nan`` in a log (None when it is a number): every sample unscored (with the
    reasons), or no sample it is defined on (its ``_n`` is 0: a conditional rate whose condition never held); any
    other ``nan`` is said to be one without a reason the log records, beside the unscored count."""
    value = metrics.get(name)
    if value is None or not math.isnan(value):
        return None
    if count.samples and count.unscored == count.samples:
        return f"{name} is nan: {count.describe()}, so no sample is left to score"
    if metrics.get(f"{name}_n") == 0:
        return f"{name} is nan: no sample it is defined on (n = 0; a conditional rate whose condition never held)"
    return f"{name} is nan, for no reason the log records ({count.describe()})"


def shown_path(location: str) -> str:
    """A log path relative to the working directory when it lies below it."""
    relative = os.path.relpath(location)
    return location if relative.startswith("..") else relative


def totals_line(wall: float, cpu: float) -> str:
    """The demo's own time: wall and CPU seconds, beside the machine's load (a loaded machine stretches the wall)."""
    load = os.getloadavg()[0]
    return f"demo: {wall:.0f} s wall, {cpu:.0f} s CPU on {os.cpu_count()} cores (load average {load:.1f})"


def record_phase(name: str, wall: float, cpu: float) -> None:
    """Append ``name<TAB>wall<TAB>CPU`` to the file ``$CAUSAL_SUITE_TIMES`` names, when it is set: the demo's rows
    of ``benchmarks/first_run.sh``'s table, beside the setup phases ``scripts/phases.sh`` writes there."""
    times = os.environ.get("CAUSAL_SUITE_TIMES")
    if times:
        with open(times, "a", encoding="utf-8") as out:
            out.write(f"{name}\t{wall:.1f}\t{cpu:.1f}\n")


def next_block(log_dir: str) -> str:
    """The closing lines: what to run next on the demo's logs."""
    return "\n".join(["next:", *(f"  {line.format(log_dir=log_dir)}" for line in NEXT_STEPS)])


def footnotes(notes: list[tuple[int, str]]) -> Iterator[str]:
    """``[k] note`` lines for the table's numbered footnotes."""
    for number, note in notes:
        yield f"[{number}] {note}"


def metrics_of(log: Any) -> dict[str, float]:
    """A log's metrics by their short names (a scorer reporting one ``mean`` named by the scorer)."""
    metrics: dict[str, float] = {}
    for score in log.results.scores if log.results else []:
        for name, m in score.metrics.items():
            metrics.setdefault(score.name if name == "mean" else name.split("/")[-1], m.value)
    return metrics
