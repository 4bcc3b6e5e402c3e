"""Representative subsets (``-T subset=N``): whole clusters, seeded, stratified; on each task's dataset."""

from __future__ import annotations

from collections import Counter

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.subset import representative, subset_dataset

ITEMS = [(c, i, "odd" if c % 2 else "even") for c in range(10) for i in range(c % 3 + 1)]


def test_whole_clusters_in_dataset_order_and_seeded():
    kept = representative(ITEMS, 4, cluster_of=lambda x: x[0], seed=1)
    clusters = {c for c, _, _ in kept}
    assert len(clusters) == 4
    assert kept == [x for x in ITEMS if x[0] in clusters]  # every member of a kept cluster, in order
    assert representative(ITEMS, 4, cluster_of=lambda x: x[0], seed=1) == kept
    draws = {tuple(representative(ITEMS, 4, cluster_of=lambda x: x[0], seed=s)) for s in range(5)}
    assert len(draws) > 1  # the seed matters
    assert representative(ITEMS, 99, cluster_of=lambda x: x[0]) == ITEMS


def test_strata_each_get_their_share():
    items = [(c, "big" if c < 8 else "small") for c in range(10)]
    for seed in range(5):
        kept = representative(items, 3, cluster_of=lambda x: x[0], stratum_of=lambda x: x[1], seed=seed)
        assert Counter(s for _, s in kept) == {"big": 2, "small": 1}
    assert len(representative(items, 1, cluster_of=lambda x: x[0], stratum_of=lambda x: x[1])) == 1


@pytest.mark.parametrize("n", [0, -2, 1.5, "3", True])
def test_a_bad_count_is_one_sentence(n):
    with pytest.raises(
        SuiteInputError, match=r"^subset=.*: the number of bases to keep must be a whole number >= 1\.$"
    ):
        representative(ITEMS, n, cluster_of=lambda x: x[0], what="bases")


def test_glass_subset_keeps_bases_with_all_their_twins():
    from glass_inspect.task import glassgsm

    full = list(glassgsm().dataset)
    task = glassgsm(subset=2, subset_seed=3)
    bases = {s.metadata["base_id"] for s in task.dataset}
    assert len(bases) == 2
    assert [s.id for s in task.dataset] == [s.id for s in full if s.metadata["base_id"] in bases]
    assert {s.metadata["role"] for s in task.dataset} == {"base", "twin"}
    assert task.metadata["glass"]["subset"] == {"bases": 2, "seed": 3}


def test_exp_b_subset_is_stratified_by_method_family():
    from causalverify_inspect.dataset import exp_b_dataset

    kept = subset_dataset(exp_b_dataset(), 4, None, "family", seed=0, what="scenarios")
    assert len(kept) == 4 and len({s.metadata["family"] for s in kept}) == 4
    assert kept.name == "causalverify_exp_b"


def test_cobe_subset_keeps_core_examples_with_all_their_phrasings():
    from cobe_inspect.task import cobe

    task = cobe(subset=3, self_judge=True)
    cores = Counter(s.metadata["core_id"] for s in task.dataset)
    assert len(cores) == 3 and set(cores.values()) == {3}  # three Tier-1 phrasings of each core
    assert task.metadata["subset"] == {"core_examples": 3, "seed": 0}
