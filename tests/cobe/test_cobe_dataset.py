"""CoBe loader: the built-in set, the tiers, and every kind of bad record (App. B.2, App. E)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import (
    FAILURE_MODES,
    GRAPH_TYPES,
    PIECE_FIELDS,
    cobe_dataset,
    load_records,
    resolve_phrasings,
)
from cobe_inspect.prompts import FINAL_STORY_MARKER

GOOD = {
    "Core Set ID": 7,
    "Variation ID": 2,
    "Domain": "Everyday",
    "Story": "The kettle boiled, so Ida made tea.",
    "Query": ["Rewrite had the kettle broken.", "Rewrite if the kettle had broken.", "Rewrite had it broken."],
    "Illustrative answer (not scored)": "The kettle broke, so Ida drank water.",
    "Evaluation criteria": ["Ida wanted a drink.", "The kettle boiled. Ida made tea."],
}


def write(tmp_path: Path, records: list, name: str = "items.json") -> Path:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    else:
        path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_builtin_set_covers_graphs_domains_and_failure_modes():
    records = load_records()
    assert len(records) == 36
    assert Counter(r.graph_type for r in records) == {g: 6 for g in GRAPH_TYPES}
    assert len({r.domain for r in records}) >= 6
    assert {r.failure_mode for r in records} == set(FAILURE_MODES)
    assert all(set(r.pieces) == set(PIECE_FIELDS) for r in records)
    assert len({r.scenario_id for r in records}) == 36


@pytest.mark.parametrize("tier,n_phrasings", [(1, 3), (2, 4), (3, 1), (4, 1)])
def test_builtin_set_builds_every_tier(tier, n_phrasings):
    samples = list(cobe_dataset(tier=tier))
    assert len(samples) == 36 * n_phrasings
    assert len({s.id for s in samples}) == len(samples)


def test_sample_ids_inputs_and_metadata_tier1():
    samples = list(cobe_dataset(tier=1))
    first = samples[0]
    assert [s.id for s in samples[:3]] == ["501v1-A", "501v1-B", "501v1-C"]
    record = load_records()[0]
    assert first.input == f"{record.story}\n\n{record.queries[0]}"
    assert samples[2].input.endswith(record.queries[2])
    assert first.target == record.illustrative_answer
    meta = first.metadata
    assert meta["domain"] == "Everyday" and meta["graph_type"] == "chain" and meta["failure_mode"] == "iii"
    assert (meta["phrasing"], meta["tier"], meta["core_id"], meta["scenario_id"]) == ("A", 1, 501, "501v1")
    assert meta["preserve"] == record.preserve and meta["change"] == record.change


def test_tier_templates_use_the_record_pieces():
    record = load_records()[0]
    by_id = {s.id: s.input for s in cobe_dataset(tier=2)}
    assert f"had {record.pieces['Intervention']}." in by_id["501v1-D"]
    for letter in "EFG":
        text = by_id[f"501v1-{letter}"]
        assert record.story in text
        assert f"instead of {record.pieces['Original event']}, {record.pieces['Intervened event']}" in text
    h1 = next(iter(cobe_dataset(tier=3))).input
    h2 = next(iter(cobe_dataset(tier=4))).input
    for text in (h1, h2):
        assert record.story in text and f"in which {record.pieces['Intervened event']}" in text
    assert FINAL_STORY_MARKER in h2 and "do(V=v)" in h2 and FINAL_STORY_MARKER not in h1


def test_phrasing_subset_and_bad_parameters():
    assert resolve_phrasings(1, "a, C") == ("A", "C")
    assert resolve_phrasings(2, ["E"]) == ("E",)
    assert [s.id for s in cobe_dataset(tier=1, phrasings="C")][:2] == ["501v1-C", "502v1-C"]
    with pytest.raises(SuiteInputError, match="phrasings of tier 1"):
        resolve_phrasings(1, "D")
    with pytest.raises(SuiteInputError, match="'tier' must be 1, 2, 3 or 4"):
        resolve_phrasings(5, None)


def test_json_and_jsonl_load_the_same(tmp_path):
    other = dict(GOOD, **{"Variation ID": 3})
    a = load_records(write(tmp_path, [GOOD, other], "a.json"))
    b = load_records(write(tmp_path, [GOOD, other], "b.jsonl"))
    assert a == b and [r.scenario_id for r in a] == ["7v2", "7v3"]
    indented = tmp_path / "indented.json"
    indented.write_text("\n\n  " + json.dumps([GOOD, other], indent=2), encoding="utf-8")
    assert load_records(indented) == a
    assert a[0].graph_type is None and a[0].pieces == {}


def test_tier_needing_pieces_names_the_records_that_lack_them(tmp_path):
    pieces = {"Original event": "the kettle boiling", "Intervened event": "the kettle broke"}
    with_pieces = dict(GOOD, **{"Variation ID": 5}, **pieces)
    path = write(tmp_path, [GOOD, with_pieces])
    assert len(list(cobe_dataset(str(path), tier=1))) == 6
    with pytest.raises(SuiteInputError) as err:
        cobe_dataset(str(path), tier=2, phrasings="E")
    assert "7v2" in str(err.value) and "7v5" not in str(err.value) and "'Original event'" in str(err.value)
    with pytest.raises(SuiteInputError, match=r"'Intervention'.*7v2, 7v5"):
        cobe_dataset(str(path), tier=2, phrasings="D")
    assert len(list(cobe_dataset(str(write(tmp_path, [with_pieces], "ok.json")), tier=3))) == 1


BAD_RECORDS = [
    ({k: v for k, v in GOOD.items() if k != "Story"}, "Story", "is missing"),
    (dict(GOOD, Query=[]), "Query", "at least one query"),
    (dict(GOOD, Query=[None, None]), "Query", "at least one query"),
    (dict(GOOD, Query=["a", "b", 3]), "Query", "list of non-empty strings"),
    (dict(GOOD, Query="one"), "Query", "list of non-empty strings"),
    (dict(GOOD, **{"Evaluation criteria": ["just one"]}), "Evaluation criteria", "exactly 2"),
    (dict(GOOD, **{"Evaluation criteria": "a string"}), "Evaluation criteria", "exactly 2"),
    (dict(GOOD, Domain=""), "Domain", "non-empty string"),
    (dict(GOOD, **{"Variation ID": "two"}), "Variation ID", "whole number"),
    (dict(GOOD, **{"Graph type": "spiral"}), "Graph type", "chain"),
    (dict(GOOD, **{"Failure mode": "ix"}), "Failure mode", "App. C"),
    (dict(GOOD, Intervention=42), "Intervention", "non-empty string"),
    (dict(GOOD, **{"Numeric criteria": ["E3"]}), "Numeric criteria", "E1 (preserve) and/or E2"),
    (dict(GOOD, **{"Causal graph": {"edges": ["a => b"]}}), "Causal graph", "cause -> effect"),
    (dict(GOOD, **{"Causal graph": {"edges": ["a -> b"], "intervened": "c"}}), "Causal graph", "observed node"),
]


@pytest.mark.parametrize("record,field,problem", BAD_RECORDS)
def test_bad_record_error_names_file_record_and_field(tmp_path, record, field, problem):
    path = write(tmp_path, [dict(GOOD, **{"Variation ID": 9}), record])
    with pytest.raises(SuiteInputError) as err:
        load_records(path)
    message = str(err.value)
    assert str(path) in message and f"field '{field}'" in message and problem in message
    assert "#2" in message  # the record's position; its id too when readable
    if field != "Variation ID":
        assert "7v2" in message


def test_duplicate_id_and_non_object_records(tmp_path):
    path = write(tmp_path, [GOOD, dict(GOOD)])
    with pytest.raises(SuiteInputError, match=r"record 7v2 \(#2\), field 'Variation ID': duplicate id 7v2"):
        load_records(path)
    with pytest.raises(SuiteInputError, match="record #1: must be a JSON object"):
        load_records(write(tmp_path, ["not a record"], "x.json"))


def test_broken_files(tmp_path):
    array = tmp_path / "broken.json"
    array.write_text('[{"Core Set ID": 1,', encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"broken\.json' is not valid JSON"):
        load_records(array)
    lines = tmp_path / "broken.jsonl"
    lines.write_text(json.dumps(GOOD) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"broken\.jsonl', line 2: not valid JSON"):
        load_records(lines)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match="holds no records"):
        load_records(empty)
    with pytest.raises(SuiteInputError, match="does not exist"):
        load_records(tmp_path / "missing.json")
