"""Does ``causal-suite compare`` keep its promises? Simulated pairs of models, seeded, ``--replications`` each (issue 25).

For each benchmark's headline (glass break rate, CoBe accuracy, exp_b L2b+) two settings: a planted difference of
``--delta`` (10 pp) between model B and model A, and identical models (the same per-unit probabilities, draws that
agree on a unit half the time). Each replication draws a fresh clustered set, builds both models' sample scores, and
runs compare's own pairing (``units_of`` on the scores, ``compare_units``). Printed per setting: how often the 95 %
interval covers the truth (the planted delta, or 0), how often it rejects 0, and the power compare predicts for the
planted delta from each replication's SE (``uncertainty.power_at``, averaged), beside the mean MDD at 80 % power.

Shapes (all clusters carry correlated outcomes): glass, ``--bases`` base problems with 2-8 twins each, a base solved
with a base-level probability and its twins breaking with a base-level fragility in [0, 0.6]; CoBe, ``--cores``
core examples with 1-5 variations of 3 phrasings, logit-normal core ability; exp_b, ``--scenarios`` scenarios in
four method families, one sample each.

    .venv/bin/python benchmarks/compare_validation.py [--replications 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable

import numpy as np
from inspect_ai.scorer import SampleScore, Score

from causal_suite.compare import compare_units, units_of
from causal_suite.uncertainty import power_at

Pair = tuple[list[SampleScore], list[SampleScore]]


def _shared_draws(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two uniforms per unit that are the same draw half the time (the models agree on some units, not all)."""
    u = rng.uniform(size=n)
    return u, np.where(rng.uniform(size=n) < 0.5, u, rng.uniform(size=n))


def glass_pair(rng: np.random.Generator, delta: float, bases: int) -> Pair:
    twins = rng.integers(2, 9, bases)
    solve, fragility = rng.uniform(0.3, 0.9, bases), rng.uniform(0.0, 0.6, bases)
    solved_a, solved_b = (u < solve for u in _shared_draws(rng, bases))
    base_of = np.repeat(np.arange(bases), twins)
    u_a, u_b = _shared_draws(rng, len(base_of))
    breaks_a, breaks_b = u_a < fragility[base_of], u_b < fragility[base_of] + delta

    def scores(solved: np.ndarray, breaks: np.ndarray) -> list[SampleScore]:
        out = []
        for b in range(bases):
            meta = {"text_id": f"b{b}", "base_id": f"b{b}", "role": "base", "doses": [1], "same_text": []}
            out.append(SampleScore(score=Score(value=float(solved[b])), sample_id=f"b{b}", sample_metadata=meta))
        for t, (b, broke) in enumerate(zip(base_of, breaks, strict=False)):
            meta = {"text_id": f"t{t}", "base_id": f"b{b}", "role": "twin", "operator": "entity_rename"}
            meta |= {"doses": [1], "same_text": []}
            out.append(SampleScore(score=Score(value=float(not broke)), sample_id=f"t{t}", sample_metadata=meta))
        return out

    return scores(solved_a, breaks_a), scores(solved_b, breaks_b)


def cobe_pair(rng: np.random.Generator, delta: float, cores: int) -> Pair:
    variations = rng.integers(1, 6, cores)
    p_core = np.clip(1 / (1 + np.exp(-rng.normal(0.0, 1.0, cores))), 0.0, 1 - delta)
    core_of = np.repeat(np.repeat(np.arange(cores), variations), 3)
    u_a, u_b = _shared_draws(rng, len(core_of))

    def scores(correct: np.ndarray) -> list[SampleScore]:
        out = []
        for i, (core, y) in enumerate(zip(core_of, correct, strict=False)):
            value = {"E0": 1, "E1": int(y), "E2": 1, "correct": int(y)}
            meta = {"core_id": int(core), "domain": "d", "graph_type": "chain", "phrasing": "ABC"[i % 3]}
            out.append(SampleScore(score=Score(value=value), sample_id=f"{core}-{i}", sample_metadata=meta))
        return out

    return scores(u_a < p_core[core_of]), scores(u_b < p_core[core_of] + delta)


def exp_b_pair(rng: np.random.Generator, delta: float, scenarios: int) -> Pair:
    p = rng.uniform(0.1, 0.9 - delta, scenarios)
    families = ("DID", "EVENT_STUDY", "IV", "RDD")
    u_a, u_b = _shared_draws(rng, scenarios)

    def scores(passed: np.ndarray) -> list[SampleScore]:
        out = []
        for s, ok in enumerate(passed):
            value = {"L1": 1, "L2a": 1, "L2b": 1, "L2b_plus": int(ok)}
            meta = {"family": families[s % 4]}
            out.append(SampleScore(score=Score(value=value), sample_id=f"s{s}", sample_metadata=meta))
        return out

    return scores(u_a < p), scores(u_b < p + delta)


def validate(kind: str, metric: str, make: Callable[[np.random.Generator, float], Pair], delta: float, args) -> None:
    for planted in (delta, 0.0):
        rng = np.random.default_rng([args.seed, int(planted * 100), int.from_bytes(kind.encode(), "little")])
        covered = rejected = 0
        predicted, mdd, clusters = [], [], []
        for _ in range(args.replications):
            a, b = make(rng, planted)
            rows, _ = compare_units(units_of(kind, a), units_of(kind, b), "A", "B")
            row = next(r for r in rows if r.metric == metric)
            covered += row.low <= planted <= row.high
            rejected += not row.low <= 0 <= row.high
            predicted.append(power_at(delta, row.se, row.clusters))
            mdd.append(row.mdd_80)
            clusters.append(row.clusters)
        n = args.replications
        setting = f"planted {planted:+.2f}" if planted else "identical   "
        power = (
            f"rejects 0 {100 * rejected / n:5.1f} %  predicted power {100 * np.mean(predicted):5.1f} %"
            if planted
            else f"rejects 0 {100 * rejected / n:5.1f} %  (the test's size; 5 % expected)"
        )
        print(
            f"{kind:6s} {metric:12s} {setting}  covers {100 * covered / n:5.1f} %  {power}  "
            f"MDD(80 %) {np.mean(mdd):.3f}  clusters {np.mean(clusters):.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delta", type=float, default=0.10)
    parser.add_argument("--bases", type=int, default=60)
    parser.add_argument("--cores", type=int, default=20)
    parser.add_argument("--scenarios", type=int, default=150)
    args = parser.parse_args()
    print(
        f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}; seed {args.seed}, "
        f"{args.replications} replications per setting, 95 % intervals"
    )
    validate("glass", "break_rate", lambda r, d: glass_pair(r, d, args.bases), args.delta, args)
    validate("cobe", "accuracy", lambda r, d: cobe_pair(r, d, args.cores), args.delta, args)
    validate("exp_b", "L2b_plus", lambda r, d: exp_b_pair(r, d, args.scenarios), args.delta, args)


if __name__ == "__main__":
    main()
