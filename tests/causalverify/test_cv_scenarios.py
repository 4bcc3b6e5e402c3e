"""Scenario loader: our folder layout, upstream's layout, the built-in set, and bad input."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios import CanonicalEstimate, Scenario, load_scenarios

UPSTREAM = "data/causalverify"


def _rdd_csv(path: Path, n: int = 200) -> None:
    rng = np.random.default_rng(0)
    x = np.round(rng.uniform(40, 100, n), 1)
    y = 60 + 0.1 * (x - 70) + 4.0 * (x >= 70) + rng.normal(0, 1, n)
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(dict(running_var=x, treated=(x >= 70).astype(int), y=np.round(y, 4))).to_csv(path, index=False)


def _record(**over) -> dict:
    rec = dict(
        scenario_id="rdd_easy_01",
        family="RDD",
        difficulty="easy",
        title="Admission and scores",
        research_question="Does admission change scores?",
        data_description="Columns: `running_var` (score), `treated` (1 when `running_var` is at or above 70), `y`.",
        data_file="data/rdd_easy_01.csv",
        true_effect=4.0,
        direction="positive",
        canonical={"estimate": 4.1, "se": 0.2, "n": 120, "spec": "local linear"},
        ground_truth={"conclusion_direction": "positive"},
        design={"cutoff": 70, "treated_side": "above"},
    )
    rec.update(over)
    return rec


def _ours(tmp_path: Path, records: list) -> Path:
    _rdd_csv(tmp_path / "data" / "rdd_easy_01.csv")
    (tmp_path / "scenarios.json").write_text(json.dumps({"seed": 1, "scenarios": records}))
    return tmp_path


def test_loads_our_folder_layout(tmp_path):
    (s,) = load_scenarios(_ours(tmp_path, [_record()]))
    assert isinstance(s, Scenario) and s.scenario_id == "rdd_easy_01" and s.family == "RDD"
    assert s.data_path == tmp_path / "data" / "rdd_easy_01.csv" and s.data_file == "data/rdd_easy_01.csv"
    assert s.canonical == CanonicalEstimate(4.1, 0.2, 120, "local linear")
    assert s.design["cutoff"] == 70 and len(s.load_data()) == 200
    assert load_scenarios(tmp_path / "scenarios.json")[0] == s  # the records file itself is accepted


@pytest.mark.parametrize(
    "over,match",
    [
        ({"family": "PSM"}, r"record rdd_easy_01: field 'family' is 'PSM'"),
        ({"true_effect": "big"}, r"record rdd_easy_01: field 'true_effect' should be"),
        ({"direction": "up"}, r"field 'direction' is 'up'"),
        ({"canonical": {"estimate": 1.0, "se": 0.1, "n": 5}}, r"canonical: field 'spec' is missing"),
    ],
)
def test_bad_record_names_file_record_and_field(tmp_path, over, match):
    root = _ours(tmp_path, [_record(**over)])
    with pytest.raises(SuiteInputError, match=match) as err:
        load_scenarios(root)
    assert "scenarios.json" in str(err.value)


def test_missing_field_and_duplicate_ids(tmp_path):
    rec = _record()
    del rec["title"]
    with pytest.raises(SuiteInputError, match="record rdd_easy_01: field 'title' is missing"):
        load_scenarios(_ours(tmp_path, [rec]))
    with pytest.raises(SuiteInputError, match="occurs twice"):
        load_scenarios(_ours(tmp_path, [_record(), _record()]))


@pytest.mark.parametrize(
    "content,match",
    [
        ("", "is empty"),
        ("running_var,treated,y\n", "no rows"),
        ("running_var,y\n1.0,2.0\n", r"lacks the RDD column\(s\) \['treated'\]"),
        ("running_var,treated,y\n1.0,1,high\n", r"non-numeric column\(s\) \['y'\]"),
    ],
)
def test_bad_csv_names_scenario_and_problem(tmp_path, content, match):
    (s,) = load_scenarios(_ours(tmp_path, [_record()]))
    s.data_path.write_text(content)
    with pytest.raises(SuiteInputError, match=f"Scenario rdd_easy_01: .*{match}"):
        s.load_data()


def test_edited_csv_fails_the_recorded_sha256(tmp_path):
    root = _ours(tmp_path, [_record()])
    digest = hashlib.sha256((root / "data/rdd_easy_01.csv").read_bytes()).hexdigest()
    (root / "scenarios.json").write_text(json.dumps({"scenarios": [_record(sha256=digest)]}))
    assert load_scenarios(root)[0].sha256 == digest
    with (root / "data/rdd_easy_01.csv").open("a") as fh:
        fh.write("50.0,0,1.0\n")
    with pytest.raises(SuiteInputError, match="Scenario rdd_easy_01: .* does not match the sha256"):
        load_scenarios(root)
    (root / "data/rdd_easy_01.csv").unlink()
    with pytest.raises(SuiteInputError, match="Scenario rdd_easy_01's data file .* does not exist"):
        load_scenarios(root)


def test_unknown_source_layout(tmp_path):
    with pytest.raises(SuiteInputError, match="holds neither"):
        load_scenarios(tmp_path)
    with pytest.raises(SuiteInputError, match="does not exist"):
        load_scenarios(tmp_path / "nowhere")


def _upstream_copy(shared_dir: Path, tmp_path: Path, ids=("s01", "s25"), with_audit=True) -> Path:
    src = shared_dir / UPSTREAM
    for sid in ids:
        for rel in (f"experiments/exp_b/scenarios/{sid}.json", f"experiments/exp_b/data/{sid}_data.csv"):
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_bytes((src / rel).read_bytes())
    if with_audit:
        (tmp_path / "audit").mkdir()
        (tmp_path / "audit/dgp_verification.json").write_bytes((src / "audit/dgp_verification.json").read_bytes())
    return tmp_path


@pytest.mark.shared_data
def test_upstream_layout_with_and_without_stored_canonicals(shared_dir, tmp_path):
    stored = load_scenarios(_upstream_copy(shared_dir, tmp_path / "a"))
    computed = load_scenarios(_upstream_copy(shared_dir, tmp_path / "b", with_audit=False))
    assert [s.scenario_id for s in stored] == ["s01", "s25"]
    assert stored[0].canonical.estimate == -0.238664 and stored[0].data_file == "experiments/exp_b/data/s01_data.csv"
    assert "upstream" in stored[0].canonical.spec and "TWFE" in computed[0].canonical.spec
    for a, b in zip(stored, computed, strict=False):
        assert round(b.canonical.estimate, 6) == a.canonical.estimate
    assert stored[0].design["first_post_period"] == 5  # upstream's s01-s10 post starts at period 5
    assert stored[1].design == {
        "columns": ["running_var", "treated", "y", "near_cutoff"],
        "cutoff": 0.5,
        "treated_side": "above",
        "bandwidth": 0.3,
    }


@pytest.mark.shared_data
def test_full_upstream_set(shared_dir):
    scenarios = load_scenarios(shared_dir / UPSTREAM)
    ids = [s.scenario_id for s in scenarios]
    assert ids[:2] == ["s01", "s02"] and ids[-1] == "s100" and len(set(ids)) == 100
    counts = {f: sum(s.family == f for s in scenarios) for f in ("DID", "EVENT_STUDY", "IV", "RDD")}
    assert counts == {"DID": 30, "EVENT_STUDY": 24, "IV": 24, "RDD": 22}
    s86 = scenarios[ids.index("s86")]
    assert (s86.true_effect, s86.direction, s86.canonical.estimate) == (0.2, "positive", 0.204599)


def test_builtin_set_loads_from_package_records(builtin):
    scenarios = load_scenarios(None)
    assert len(scenarios) == 100 and all(s.canonical is not None and s.data_path.exists() for s in scenarios)
    assert scenarios[0].scenario_id == "did_easy_01" and scenarios[0].data_file == "data/did_easy_01.csv"


@pytest.fixture
def builtin(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSAL_SUITE_CACHE", str(tmp_path / "cache"))


def test_the_scenarios_digest_follows_ids_references_and_data_bytes(tmp_path):
    """exp_b logs record ``scenarios_sha256`` so ``causal-suite compare`` refuses logs of other scenarios."""
    import shutil

    from causalverify_inspect.dataset import exp_b_dataset, scenarios_digest

    full = list(exp_b_dataset())
    assert scenarios_digest(full) == scenarios_digest(list(reversed(full)))  # order-free
    assert scenarios_digest(full[:4]) != scenarios_digest(full[:5])
    moved = full[0].model_copy(deep=True)
    moved.metadata["canonical"] = moved.metadata["canonical"] + 0.01
    assert scenarios_digest([moved, *full[1:4]]) != scenarios_digest(full[:4])
    edited = full[0].model_copy(deep=True)
    copy = tmp_path / "data.csv"
    shutil.copy(edited.metadata["data_path"], copy)
    assert scenarios_digest([edited.model_copy(update={"metadata": edited.metadata | {"data_path": str(copy)}})]) == (
        scenarios_digest(full[:1])
    )
    copy.write_text(copy.read_text() + "\n")
    edited.metadata["data_path"] = str(copy)
    assert scenarios_digest([edited]) != scenarios_digest(full[:1])
