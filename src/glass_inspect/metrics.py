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

Every rate carries its uncertainty in the log (``causal_suite.uncertainty``, issue 25): beside ``break_rate`` come
``break_rate_se`` (cluster-robust delta method, the unit of independence being the base problem: a base, its
twins and all their draws are one cluster), ``break_rate_low`` / ``break_rate_high`` (95 % Wilson interval at the
effective sample size), ``break_rate_n`` (pairs with Y(base) = 1) and ``break_rate_clusters`` (their bases); the
same for each family, dose, the identity floor, base accuracy, mean π and the fragile fraction (n: bases).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from causal_suite.fragility import break_event, ccd_pi, is_fragile, solved
from causal_suite.scores import is_unscored
from causal_suite.uncertainty import RateEstimate, rate, ratio
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
    out: list[tuple[dict[str, Any], float]] = []
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


def pair_break_rate(pairs: list[PairOutcome]) -> RateEstimate:
    """P(B=1 | Y(base)=1) over ``pairs`` with its uncertainty clustered by base (a ratio: the pairs of solved bases
    are the denominator)."""
    return ratio([p.broke for p in pairs], [solved(p.y_base) for p in pairs], [p.base_id for p in pairs])


def _perturbing(scores: list[SampleScore]) -> list[PairOutcome]:
    return [p for p in pair_outcomes(scores) if p.operator != IDENTITY]


def pi_by_base(scores: list[SampleScore]) -> dict[str, float]:
    """pi(J) = mean B over the (non-identity) pairs of each solved base J."""
    pairs: dict[str, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        if solved(p.y_base):
            pairs[p.base_id].append(p)
    return {b: ccd_pi(ps[0].y_base, [p.y_twin for p in ps]) for b, ps in pairs.items()}


def _base_rate(by_base: dict[str, float]) -> RateEstimate:
    """The mean of one value per base (each base its own cluster)."""
    return rate(list(by_base.values()), list(by_base))


@metric
def base_accuracy() -> Metric:
    """Mean Y over the base problems."""

    def compute(scores: list[SampleScore]) -> Value:
        return _base_rate(base_outcomes(scores)).metrics("base_accuracy")

    return compute


@metric
def break_rate() -> Metric:
    """P(B=1 | Y(base)=1) over all non-identity pairs."""

    def compute(scores: list[SampleScore]) -> Value:
        return pair_break_rate(_perturbing(scores)).metrics("break_rate")

    return compute


def _break_rates_by(scores: list[SampleScore], key: Callable[[PairOutcome], Any], label: str) -> dict[str, float]:
    """The break rate (with its uncertainty) of each group of perturbing pairs, keyed ``label.format(group)`` in
    group order."""
    by: dict[Any, list[PairOutcome]] = defaultdict(list)
    for p in _perturbing(scores):
        by[key(p)].append(p)
    out: dict[str, float] = {}
    for group, ps in sorted(by.items()):
        out |= pair_break_rate(ps).metrics(label.format(group))
    return out


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
        return _base_rate(pi_by_base(scores)).metrics("mean_pi")

    return compute


@metric
def fragile_fraction() -> Metric:
    """Share of solved bases with pi > 0.05 (§7 step 9; ``causal_suite.fragility.FRAGILE_THRESHOLD``)."""

    def compute(scores: list[SampleScore]) -> Value:
        fragile = {base: float(is_fragile(pi)) for base, pi in pi_by_base(scores).items()}
        return _base_rate(fragile).metrics("fragile_fraction")

    return compute


@metric
def identity_floor() -> Metric:
    """Break rate of identity twins: the re-sampling floor of B (§7 step 8)."""

    def compute(scores: list[SampleScore]) -> Value:
        identity = [p for p in pair_outcomes(scores) if p.operator == IDENTITY]
        return pair_break_rate(identity).metrics("identity_floor")

    return compute


def comparison_units(scores: list[SampleScore]) -> dict[str, dict[Any, tuple[Any, float, float]]]:
    """What ``causal-suite compare`` pairs, per metric: unit -> (cluster, numerator, denominator), the units and
    clusters of the metrics above (a pair per (base, twin, dose), its base the cluster; a base for base accuracy)."""
    out: dict[str, dict[Any, tuple[Any, float, float]]] = defaultdict(dict)
    for p in sorted(pair_outcomes(scores), key=lambda p: (p.operator, p.dose)):
        cell = (p.base_id, float(p.broke), float(solved(p.y_base)))
        if p.operator == IDENTITY:
            names = ["identity_floor"]
        else:
            names = ["break_rate", f"break_rate_{p.operator}", f"break_rate_m{p.dose}"]
        for name in names:
            out[name][(p.base_id, p.twin_id, p.dose)] = cell
    for base, y in base_outcomes(scores).items():
        out["base_accuracy"][base] = (base, y, 1.0)
    order = ["break_rate", *(n for n in out if n.startswith("break_rate_") and not n[11:].startswith("m"))]
    order += [n for n in out if n.startswith("break_rate_m")] + ["identity_floor", "base_accuracy"]
    return {name: out[name] for name in order if name in out}


GLASS_METRICS = [  # the headline first (the viewer's log list shows it): the break rate, then what it is read against
    break_rate(),
    base_accuracy(),
    identity_floor(),
    family_break_rate(),
    dose_break_rate(),
    mean_pi(),
    fragile_fraction(),
]
