"""Our DGPs: determinism, the CLI, the committed built-in records, and canonical-vs-truth accuracy."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from causal_suite.errors import SuiteInputError
from causalverify_inspect.scenarios import dgp, load_scenarios
from causalverify_inspect.scenarios.cli import main as causalverify_data
from causalverify_inspect.scenarios.consistency import accuracy_table
from causalverify_inspect.scenarios.records import builtin_records_path


def _first_of_each_family():
    plans = dgp.plan_scenarios()
    return [next(p for p in plans if p.family == f) for f in ("DID", "EVENT_STUDY", "IV", "RDD")]


def test_plan_allocation_and_signs():
    plans = dgp.plan_scenarios()
    cells = Counter((p.family, p.difficulty) for p in plans)
    assert {f: sum(n for (g, _), n in cells.items() if g == f) for f in dgp.COUNTS} == {
        "DID": 30,
        "EVENT_STUDY": 24,
        "IV": 24,
        "RDD": 22,
    }
    assert all(n >= 7 for n in cells.values()) and len({p.scenario_id for p in plans}) == 100
    for family in dgp.COUNTS:
        for tier in ("easy", "medium", "hard"):
            assert {p.sign for p in plans if (p.family, p.difficulty) == (family, tier)} == {1, -1}


def test_same_seed_same_bytes_other_seed_other_data():
    for plan in _first_of_each_family():
        a, b, c = dgp.simulate(plan, 7), dgp.simulate(plan, 7), dgp.simulate(plan, 8)
        assert a.csv == b.csv and a.texts == b.texts and a.true_effect == b.true_effect
        assert c.csv != a.csv
        assert a.csv.endswith("\n") and "\r" not in a.csv


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("cv") / "set"
    assert causalverify_data(["--out", str(out), "--seed", str(dgp.DEFAULT_SEED)]) == 0
    return out


def test_cli_regenerates_the_committed_builtin_records(generated, capsys):
    assert (generated / "scenarios.json").read_bytes() == builtin_records_path().read_bytes()
    records = json.loads((generated / "scenarios.json").read_text())["scenarios"]
    for rec in records:  # every CSV is byte-identical to the one whose sha256 was committed
        assert hashlib.sha256((generated / rec["data_file"]).read_bytes()).hexdigest() == rec["sha256"]
    assert not list(generated.parent.glob("*.partial-*"))


def test_canonical_is_close_to_truth(generated):
    scenarios = load_scenarios(generated)
    rel = [abs(s.canonical.estimate - s.true_effect) / abs(s.true_effect) for s in scenarios]
    assert all((s.canonical.estimate > 0) == (s.true_effect > 0) for s in scenarios)
    assert sum(r <= 0.25 for r in rel) >= 95
    table = accuracy_table(scenarios)
    print("\n" + table)
    assert table.splitlines()[-1].split()[1:] == ["100", "100", str(sum(r <= 0.25 for r in rel))]
    assert {s.direction for s in scenarios} == {"positive", "negative"}


def test_cli_refuses_a_foreign_non_empty_folder(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert causalverify_data(["--out", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_builtin_cache_is_regenerated_and_sha_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSAL_SUITE_CACHE", str(tmp_path / "cache"))
    folder = dgp.ensure_builtin_data()
    assert folder.parent == tmp_path / "cache" / "causalverify" and len(list((folder / "data").iterdir())) == 100
    assert dgp.ensure_builtin_data() == folder  # second call: cached
    doc = json.loads(builtin_records_path().read_text())
    doc["scenarios"][3]["sha256"] = "0" * 64
    tampered = tmp_path / "scenarios.json"
    tampered.write_text(json.dumps(doc))
    monkeypatch.setattr(dgp, "builtin_records_path", lambda: tampered)
    with pytest.raises(SuiteInputError, match=f"Built-in scenario {doc['scenarios'][3]['scenario_id']}: .*sha256"):
        dgp.ensure_builtin_data()
    assert not list((tmp_path / "cache" / "causalverify").glob("*.partial-*"))
