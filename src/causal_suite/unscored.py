"""How many samples of a log are unscored, and why: the line every suite eval ends with, and the demo's footnotes.

A sample is unscored when its first scorer recorded no value (``Score.unscored(reason=...)``: a judge reply that
stayed unreadable, an extraction failure; see :mod:`causal_suite.scores`). The reasons are the scorers' own
``reason`` strings. :class:`UnscoredReport` is an inspect hook (registered by the suite's entry point) that prints
``<task>: N of M samples unscored (reason: count, ...)`` on stderr when a suite task ends, so a run whose metrics
are all NaN says so on the terminal and not only in the viewer. An eval run with ``display="none"`` (the Python
API's quiet mode, the tests, the demo, which shows the count in its own table) stays silent.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.util import display_type

from causal_suite.errors import SuiteInputError
from causal_suite.logs import LogReader
from causal_suite.scores import is_unscored

NO_REASON = "no reason recorded"


@dataclass(frozen=True)
class UnscoredCount:
    """Scores of a log (one per sample and epoch, every epoch), how many are unscored, and their reasons with counts:
    with 5 epochs a sample can be unscored in one draw and scored in the others, and that one draw is counted."""

    samples: int  # sample-epochs: the samples times their epochs
    reasons: Counter[str]
    epochs: int = 1

    @property
    def unscored(self) -> int:
        return sum(self.reasons.values())

    def describe(self) -> str:
        """``N of M samples unscored (reason: count, ...)``; with epochs, ``N of M sample-epochs (E epochs) ...``."""
        why = ", ".join(f"{reason}: {n}" for reason, n in self.reasons.most_common())
        what = "samples" if self.epochs == 1 else f"sample-epochs ({self.epochs} epochs)"
        return f"{self.unscored} of {self.samples} {what} unscored" + (f" ({why})" if why else "")


def count_unscored(samples: Iterable[Any]) -> UnscoredCount:
    """Count over samples (inspect's ``EvalSample`` or :class:`causal_suite.logs.LogSample`), every epoch."""
    total, epochs, reasons = 0, 1, Counter[str]()
    for sample in samples:
        total, epochs = total + 1, max(epochs, sample.epoch)
        first = next(iter(sample.scores.values()), None) if sample.scores else None
        if first is None or is_unscored(first.value):
            reason = getattr(first, "reason", None) if first is not None else "no score"
            reasons[str(reason or NO_REASON)] += 1
    return UnscoredCount(total, reasons, epochs)


def log_unscored(log: Any) -> UnscoredCount:
    """The count of an ``EvalLog``: from its samples, or read back from its file when it holds only the header."""
    if log.samples:
        return count_unscored(log.samples)
    with LogReader(log.location) as reader:
        return count_unscored(reader.samples(inputs=False))


def _suite_task(name: str) -> bool:
    from causal_suite.taskdoc import suite_tasks

    return name in suite_tasks()


@hooks(name="causal_suite_unscored", description="Print each suite task's unscored samples and reasons at its end.")
class UnscoredReport(Hooks):
    """Prints the unscored count of each suite task's log on stderr when the task ends."""

    async def on_task_end(self, data: TaskEnd) -> None:
        log = data.log
        if display_type() == "none" or log.status != "success" or not _suite_task(log.eval.task):
            return
        try:
            count = log_unscored(log)
        except SuiteInputError:  # a log that cannot be read back (no file): nothing to say
            return
        print(f"{log.eval.task}: {count.describe()}", file=sys.stderr, flush=True)
