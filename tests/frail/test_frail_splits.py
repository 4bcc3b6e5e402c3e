"""Base-id-disjoint folds, deterministic in (fingerprint, seed), and the overlap refusal (§11)."""

import pytest

from causal_suite.errors import SuiteInputError
from frail.splits import dataset_fingerprint, make_split, refuse_overlap, write_sidecar

IDS = [f"job-{i}" for i in range(53)]
KEYS = [(b, f"{b}-t{k}", d) for b in IDS for k in range(2) for d in (1, 9)]


def test_fingerprint_ignores_order_and_sees_the_design():
    assert dataset_fingerprint(KEYS) == dataset_fingerprint(list(reversed(KEYS)))
    assert dataset_fingerprint(KEYS) != dataset_fingerprint(KEYS[:-1])


def test_roles_are_disjoint_and_cover_every_base():
    split = make_split(IDS, dataset_fingerprint(KEYS), seed=0)
    train, val, test = (set(split.ids(r)) for r in ("train", "val", "test"))
    assert not (train & val) and not (train & test) and not (val & test)
    assert train | val | test == set(IDS)
    assert {len(val), len(test)} <= {10, 11} and len(train) == 53 - len(val) - len(test)


def test_split_is_stable_and_seeded():
    fp = dataset_fingerprint(KEYS)
    assert make_split(IDS, fp, 3).fold_of == make_split(list(reversed(IDS)), fp, 3).fold_of
    assert make_split(IDS, fp, 3).ids("test") != make_split(IDS, fp, 4).ids("test")
    assert make_split(IDS, fp, 3).ids("test") != make_split(IDS, "other-fingerprint", 3).ids("test")


def test_too_few_bases_are_refused():
    with pytest.raises(SuiteInputError, match="at least 5"):
        make_split(IDS[:3], "fp", 0)


def test_overlap_refusal(tmp_path):
    fp = dataset_fingerprint(KEYS)
    model = tmp_path / "model.pt"
    model.write_bytes(b"weights")
    split = make_split(IDS, fp, 0)
    sidecar = write_sidecar(model, split)
    assert sidecar.name == "model.pt.split.json"
    refuse_overlap(model, split.ids("test"))  # its own test fold: fine
    with pytest.raises(SuiteInputError, match="refusing to score"):
        refuse_overlap(model, make_split(IDS, fp, 1).ids("test"))


def test_model_without_sidecar_is_refused(tmp_path):
    model = tmp_path / "m.pt"
    model.write_bytes(b"x")
    with pytest.raises(SuiteInputError, match="no split sidecar"):
        refuse_overlap(model, IDS)
