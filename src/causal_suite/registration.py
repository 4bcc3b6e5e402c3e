"""Where a benchmark plugs into the suite: what each benchmark package declares, and how the suite finds it.

Each benchmark package's inspect-ai entry-point module (``<package>._registry``, listed under
``[project.entry-points.inspect_ai]`` in ``pyproject.toml``) sets one module attribute, ``SUITE_BENCHMARK``, to a
:class:`Benchmark`: its tasks (their names and parameters), the kinds of log the suite's report and compare read
(:class:`LogKind`: the task names, the report figures, the comparison units, the epoch reducer) and its demo runs
with their headline metrics (:class:`DemoRun`). :func:`benchmarks` loads this distribution's inspect entry points,
as inspect itself does at startup, and collects those attributes; ``causal-suite report``, ``compare``, ``demo``,
``score``, ``tasks`` and the strict-parameter check (``causal_suite.errors.strict_params``) read nothing else, so the shared
ground names no benchmark and a new one plugs in with its own entry point and attribute alone.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_ai.scorer import SampleScore, ScoreReducer

    from causal_suite.figures import Figure, ReportOptions
    from causal_suite.logs import LogDigest

DISTRIBUTION = "causal-inspect-suite"
ENTRY_POINT_GROUP = "inspect_ai"
ATTRIBUTE = "SUITE_BENCHMARK"

Units = dict[str, dict[Any, tuple[Any, float, float]]]
"""metric -> unit key -> (cluster, numerator, denominator): what a comparison pairs, per metric."""


@dataclass(frozen=True)
class DemoRun:
    """One task of the main job (``causal-suite demo``): registry name, task arguments, and the demo's limits."""

    task: str
    task_args: dict[str, Any] = field(default_factory=dict)
    roles: tuple[str, ...] = ()  # judge roles (grader, extractor) bound to the model under test
    small: dict[str, Any] = field(default_factory=dict)  # task arguments of the demo's slice (whole clusters)
    epochs: int | None = None  # None: the task's own epochs
    max_tokens: int | None = None
    headline: tuple[str, ...] = ()  # metric names shown in the results table
    requires: tuple[str, ...] = ()  # programs the task needs on this machine (else the demo skips it, saying so)


@dataclass(frozen=True)
class LogKind:
    """How ``causal-suite report`` and ``compare`` read the logs of some of a benchmark's tasks.

    ``figures`` turns the successful logs of this kind into the report's figures; ``comparison_units`` gives the
    units each headline metric pairs on (as the benchmark's own metrics define them); ``reducer`` reduces a
    sample's epochs as the task does (None: the mean); ``sample_scores`` False when the figures read the header's
    reductions and the samples' metadata only (the report then holds the samples without their scores)."""

    name: str  # the report section and compare's kind, e.g. "glass"
    tasks: tuple[str, ...]  # unqualified names of the tasks whose logs are of this kind
    figures: Callable[[list[LogDigest], ReportOptions], list[Figure]]
    comparison_units: Callable[[list[SampleScore]], Units]
    reducer: Callable[[], ScoreReducer] | None = None
    sample_scores: bool = True


@dataclass(frozen=True)
class Benchmark:
    """What one benchmark package contributes to the suite's commands (its ``_registry.SUITE_BENCHMARK``)."""

    package: str  # the import package, also the namespace of its registry names
    tasks: tuple[Callable[..., Any], ...]  # every @task function it registers
    scorers: tuple[Callable[..., Any], ...] = ()  # the @scorer functions its logs record (``causal-suite score``)
    logs: tuple[LogKind, ...] = ()
    demo: tuple[DemoRun, ...] = ()

    def parameters(self) -> dict[str, list[str]]:
        """Parameter names of each task (the catch-all ``**kwargs`` of a strict task left out), by task name."""
        out = {}
        for task in self.tasks:
            signature = inspect.signature(task)
            names = [n for n, p in signature.parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD]
            out[task.__name__] = names
        return out


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every :class:`Benchmark` this distribution's inspect entry points declare, in their entry-point order."""
    found = []
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.dist is not None and entry.dist.name == DISTRIBUTION:
            declared = getattr(entry.load(), ATTRIBUTE, None)
            if isinstance(declared, Benchmark):
                found.append(declared)
    return tuple(found)


def log_kind(task: str) -> LogKind | None:
    """The :class:`LogKind` of a log of ``task`` (a registry name, ``package/name``), None if no benchmark reads it."""
    benchmark, name = benchmark_of(task), task.rpartition("/")[2]
    return next((kind for kind in benchmark.logs if name in kind.tasks), None) if benchmark else None


def benchmark_of(task: str) -> Benchmark | None:
    """The :class:`Benchmark` that registers ``task`` (a registry name, ``package/name``), None if none does."""
    package = task.rpartition("/")[0]
    return next((benchmark for benchmark in benchmarks() if benchmark.package == package), None)


def demo_plan() -> tuple[DemoRun, ...]:
    """The demo runs of every benchmark in entry-point order, those that need programs beyond Python (R, say) last."""
    runs = [run for benchmark in benchmarks() for run in benchmark.demo]
    return tuple(sorted(runs, key=lambda run: bool(run.requires)))


def suite_parameters() -> set[str]:
    """Every parameter name any of the suite's tasks takes."""
    return {name for b in benchmarks() for names in b.parameters().values() for name in names}
