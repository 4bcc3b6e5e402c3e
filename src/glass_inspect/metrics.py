"""The break-event metrics of the glass tasks, computed at the end of an eval from the reduced per-sample scores
(Y, the modal answer's exact match) and the sample metadata.

The break event B, the break rate P(B=1 | Y(base)=1), π and the fragility threshold are those of
``causal_suite.fragility`` (the same definitions Frail's estimands use): a pair breaks when Y(base) = 1 and
Y(twin) = 0; pairs of unsolved bases are censored; π(J) is the share of a solved base's twins that break it; a base
is fragile when π > 0.05 (§7 step 9). The identity-twin floor is the break rate of identity twins, i.e. of
re-sampling noise alone (§7 step 8). Unscored samples are left out.

Metrics use the observation unit of the dose files: one (base, twin, dose) row per manifest pair, so a twin shared
by three dose manifests counts three times overall, once in each dose (the pooled five-dose corpus of §3.2). A
sample's ``same_text`` metadata (other pool records with its text) contributes those records' pairs with the
sample's Y.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from causal_suite.fragility import break_event, ccd_pi, is_fragile, solved
from causal_suite.fragility import break_rate as break_rate_of
from causal_suite.scores import is_unscored, named
from glass_inspect.corpus.contract import IDENTITY


@dataclass(frozen=True)
class PairOutcome:
    """One manifest pair with both Y values; ``broke`` is B(J, T)."""

    base_id: str
    twin_id: str
    operator: str
    dose: int
    y_base: float
    y_twin: float

    @property
    def broke(self) -> bool:
        return bool(break_event(self.y_base, self.y_twin))


def _records(scores: list[SampleScore]) -> list[tuple[dict[str, Any], float]]:
    out = []
    for s in scores:
        if is_unscored(s.score.value):
            continue
        meta = s.sample_metadata or {}
        y = float(s.score.as_float())
        out.extend((m, y) for m in [meta, *meta.get("same_text", [])])
    return out


def base_outcomes(scores: list[SampleScore]) -> dict[str, float]:
    """Y of every scored base, by base id."""
    return {m["text_id"]: y for m, y in _records(scores) if m.get("role") == "base"}


def pair_outcomes(scores: list[SampleScore]) -> list[PairOutcome]:
    """Every (base, twin, dose) pair whose base and twin were both scored."""
    records = _records(scores)
    y_base = {m["text_id"]: y for m, y in records if m.get("role") == "base"}
    return [
        PairOutcome(m["base_id"], m["text_id"], m["operator"], int(dose), y_base[m["base_id"]], y)
        for m, y in records
        if m.get("role") == "twin" and m.get("base_id") in y_base
        for dose in m.get("doses", [])
    ]


def _break_rate(pairs: list[PairOutcome]) -> float:
    return break_rate_of([p.y_base for p in pairs], [p.y_twin for p in pairs])


def _perturbing(scores: list[SampleScore]) -> list[PairOutcome]:
    return [p for p in pair_outcomes(scores) if p.operator != IDENTITY]


def pi_by_base(scores: list[SampleScore]) -> dict[str, float]:
    """pi(J) = mean B over the (non-identity) pairs of each solved base J."""
    pairs: dict[str, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        if solved(p.y_base):
            pairs[p.base_id].append(p)
    return {b: ccd_pi(ps[0].y_base, [p.y_twin for p in ps]) for b, ps in pairs.items()}


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


@metric
def base_accuracy() -> Metric:
    """Mean Y over the base problems."""

    def compute(scores: list[SampleScore]) -> Value:
        return named("base_accuracy", _mean(base_outcomes(scores).values()))

    return compute


@metric
def break_rate() -> Metric:
    """P(B=1 | Y(base)=1) over all non-identity pairs."""

    def compute(scores: list[SampleScore]) -> Value:
        return named("break_rate", _break_rate(_perturbing(scores)))

    return compute


def _break_rates_by(scores: list[SampleScore], key: Callable[[PairOutcome], Any], label: str) -> dict[str, float]:
    """The break rate of each group of perturbing pairs, keyed ``label.format(group)`` in group order."""
    by: dict[Any, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        by[key(p)].append(p)
    return {label.format(group): _break_rate(ps) for group, ps in sorted(by.items())}


@metric
def family_break_rate() -> Metric:
    """P(B=1 | Y(base)=1) per operator family (keys: ``break_rate_<family>``)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rates_by(scores, lambda p: p.operator, "break_rate_{}")

    return compute


@metric
def dose_break_rate() -> Metric:
    """P(B=1 | Y(base)=1) per dose manifest (keys: ``break_rate_m1``, ``break_rate_m3``, ...)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _break_rates_by(scores, lambda p: p.dose, "break_rate_m{}")

    return compute


@metric
def mean_pi() -> Metric:
    """Mean pi(J) over the solved bases that have twins."""

    def compute(scores: list[SampleScore]) -> Value:
        return named("mean_pi", _mean(pi_by_base(scores).values()))

    return compute


@metric
def fragile_fraction() -> Metric:
    """Share of solved bases with pi > 0.05 (§7 step 9; ``causal_suite.fragility.FRAGILE_THRESHOLD``)."""

    def compute(scores: list[SampleScore]) -> Value:
        return named("fragile_fraction", _mean([is_fragile(pi) for pi in pi_by_base(scores).values()]))

    return compute


@metric
def identity_floor() -> Metric:
    """Break rate of identity twins: the re-sampling floor of B (§7 step 8)."""

    def compute(scores: list[SampleScore]) -> Value:
        return named("identity_floor", _break_rate([p for p in pair_outcomes(scores) if p.operator == IDENTITY]))

    return compute


GLASS_METRICS = [  # the headline first (the viewer's log list shows it): the break rate, then what it is read against
    break_rate(),
    base_accuracy(),
    identity_floor(),
    family_break_rate(),
    dose_break_rate(),
    mean_pi(),
    fragile_fraction(),
]
