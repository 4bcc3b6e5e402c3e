"""A seeded representative subset of a task's samples that keeps whole clusters (issue 25).

``--limit N`` cuts samples in file order (on glass: one base and its first twins). ``representative`` instead draws
``n`` clusters (a glass base with all its twins, an exp_b scenario, a CoBe core example with all its variations and
phrasings) with a fixed seed, stratified when a stratum is given (exp_b's method family): each stratum gets its
share of the ``n`` clusters by largest remainder (at least one while ``n`` allows), so a small run covers every
family. The chosen clusters' samples keep their dataset order.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from inspect_ai.dataset import Dataset, MemoryDataset

from causal_suite.errors import SuiteInputError

T = TypeVar("T")


def _shares(sizes: dict[Hashable, int], n: int) -> dict[Hashable, int]:
    """How many of ``n`` clusters each stratum gets: proportional to its size by largest remainder, every stratum
    at least one while ``n`` allows, never more than it holds."""
    total = sum(sizes.values())
    quota = {s: n * size / total for s, size in sizes.items()}
    shares = {s: min(size, max(int(quota[s]), 1 if n >= len(sizes) else 0)) for s, size in sizes.items()}
    by_remainder = sorted(sizes, key=lambda s: (quota[s] - int(quota[s]), sizes[s]), reverse=True)
    while sum(shares.values()) < n:
        for s in by_remainder:
            if sum(shares.values()) < n and shares[s] < sizes[s]:
                shares[s] += 1
    while sum(shares.values()) > n:  # the at-least-one floor overshot: take back from the largest shares
        largest = max(shares, key=lambda s: shares[s])
        shares[largest] -= 1
    return shares


def representative(
    items: Sequence[T],
    n: int,
    cluster_of: Callable[[T], Hashable],
    stratum_of: Callable[[T], Hashable] | None = None,
    seed: int = 0,
    what: str = "clusters",
) -> list[T]:
    """The items of ``n`` clusters drawn with ``seed`` (stratified by ``stratum_of`` when given), in their order.

    Raises:
        SuiteInputError: ``n`` is not a whole number >= 1 (one sentence naming ``what`` the clusters are).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SuiteInputError(f"subset={n!r}: the number of {what} to keep must be a whole number >= 1.")
    clusters: dict[Hashable, Hashable] = {}
    for item in items:
        clusters.setdefault(cluster_of(item), stratum_of(item) if stratum_of else None)
    if n >= len(clusters):
        return list(items)
    by_stratum: dict[Hashable, list[Hashable]] = defaultdict(list)
    for cluster, stratum in clusters.items():
        by_stratum[stratum].append(cluster)
    rng = random.Random(seed)
    shares = _shares({s: len(c) for s, c in by_stratum.items()}, n)
    keep = {c for s, members in by_stratum.items() for c in rng.sample(members, shares[s])}
    return [item for item in items if cluster_of(item) in keep]


def subset_dataset(
    dataset: Dataset,
    n: int | None,
    cluster: str | None,
    stratum: str | None = None,
    seed: int = 0,
    what: str = "clusters",
) -> Dataset:
    """``dataset`` cut to the samples of ``n`` clusters (sample-metadata key ``cluster``, or the sample id when None;
    strata by the key ``stratum``), drawn with ``seed``; the dataset itself when ``n`` is None. Name and location
    are kept."""
    if n is None:
        return dataset
    samples = representative(
        list(dataset),
        n,
        cluster_of=lambda s: (s.metadata or {})[cluster] if cluster else s.id,
        stratum_of=(lambda s: (s.metadata or {}).get(stratum)) if stratum else None,
        seed=seed,
        what=what,
    )
    return MemoryDataset(samples, name=dataset.name, location=dataset.location)
