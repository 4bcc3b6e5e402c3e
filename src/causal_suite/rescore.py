"""``causal-suite score LOG``: re-score a log with the scorers it was scored with, no extra arguments.

``inspect score LOG`` records and looks up a scorer by its unqualified name (``glass_match``), which inspect cannot
find for a scorer registered by a package (``glass_inspect/glass_match``) unless told ``--scorer`` and every ``-S``
argument. The log holds both the task's package and each scorer's arguments, so this command resolves them itself
and calls inspect's own ``score``. The equivalent inspect command is printed for reference.
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from inspect_ai import score_async
from inspect_ai.log import EvalLog, EvalResults, EvalSample, write_eval_log_async

from causal_suite.errors import SuiteInputError
from causal_suite.files import write_atomic
from causal_suite.inspect_compat import EvalLogWriter, init_score_run
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


SCORE_WINDOW = 64  # samples re-scored at once at most (a judge scorer's requests run concurrently within it)


class InOrder:
    """Samples scored concurrently but read and written in file order: sample ``i`` is read only once sample
    ``i - window`` is written, and written only after sample ``i - 1``, so at most ``window`` samples are held."""

    def __init__(self, window: int) -> None:
        self.window, self.written = window, 0
        self._events: dict[int, anyio.Event] = {}

    async def _after(self, index: int) -> None:
        """Return once the sample at ``index`` is written (at once for an index below 0)."""
        if index >= self.written:
            await self._events.setdefault(index, anyio.Event()).wait()

    async def may_read(self, index: int) -> None:
        await self._after(index - self.window)

    async def write(self, index: int, sample: EvalSample, add: Callable[[EvalSample], Awaitable[None]]) -> None:
        await self._after(index - 1)
        await add(sample)
        self.written = index + 1
        event = self._events.pop(index, None)
        if event is not None:
            event.set()


class _WholeLogWriter:
    """A ``.json`` target: inspect's JSON writer takes the whole log, so the samples are gathered for it."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.samples: list[EvalSample] = []

    async def start(self) -> None:
        return None

    async def add(self, sample: EvalSample) -> None:
        self.samples.append(sample)

    async def finish(self, log: EvalLog) -> None:
        await write_eval_log_async(log.model_copy(update={"samples": self.samples}), self.location)


async def score_streamed(reader: LogReader, scorers: list, action: str, location: str) -> EvalLog:
    """inspect's ``score_async`` over the samples of ``reader``, each read when its turn comes and written to
    ``location`` as soon as it is scored and the ones before it are written (``InOrder``); the header, with the
    new results and reductions, is written last. Returns that header (no samples)."""
    header, count = reader.header, reader.sample_count()
    writer = EvalLogWriter(header, location) if location.endswith(".eval") else _WholeLogWriter(location)
    order = InOrder(SCORE_WINDOW)

    @asynccontextmanager
    async def sample_at(index: int) -> AsyncIterator[EvalSample]:
        await order.may_read(index)
        sample = reader.full_sample(index)
        yield sample  # score_async re-scores it in place
        await order.write(index, sample, writer.add)

    planned = header.results.total_samples if header.results else None
    header.results = header.results or EvalResults()
    header.results.total_samples = count  # score_async visits this many samples (the old path: len(samples))
    await writer.start()
    scored = await score_async(header, scorers, action=action, copy=False, samples=sample_at)  # type: ignore[arg-type]
    if action == "append" and planned is not None and scored.results is not None:
        scored.results.total_samples = planned  # appended scores leave the eval's own results as they were
    await writer.finish(scored)
    return scored


def rescore(path: Path, append: bool = False, out: Path | None = None) -> EvalLog:
    """Re-score the log at ``path`` (overwriting its scores unless ``append``); written to ``out`` or in place.
    Returns the re-scored log's header (no samples).

    The log is read once (``causal_suite.logs.LogReader``; a bad log fails in one sentence before any scorer is
    built) and streamed: each sample read whole (its transcript is re-scored too), scored by inspect's
    ``score_async`` and written to the new log (``score_streamed``), so memory holds ``SCORE_WINDOW`` samples being
    scored and the writer's buffer (``inspect_compat.WRITE_BATCH``), not the log's transcripts (a ``.json`` target
    is the exception: inspect's JSON writer takes the whole log, so its samples are all held). What still grows
    with the log is inspect's: each sample's summary (kept by its recorder for ``summaries.json``), ``score_async``'s
    task and new scores, about 20 kB a sample (``benchmarks/log_scale``). The new log goes to a temporary file
    beside the target and is renamed into place, so a failed write leaves the old log whole."""
    target = Path(out or path)
    if target.is_dir():
        raise SuiteInputError(f"score: --out '{target}' is a folder: pass the file to write.")
    action = "append" if append else "overwrite"
    with LogReader(path) as reader:
        scorers = log_scorers(reader.header)
        init_score_run()
        scored: list[EvalLog] = []

        def write(tmp: Path) -> None:  # the temp keeps the suffix: the format
            scored.append(anyio.run(score_streamed, reader, scorers, action, str(tmp)))

        write_atomic(target, write)
    return scored[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="an .eval log of one of the suite's tasks")
    parser.add_argument("--append", action="store_true", help="add the new scores beside the old ones")
    parser.add_argument("--out", type=Path, default=None, help="write the re-scored log here (default: in place)")
