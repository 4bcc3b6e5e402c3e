"""cobe-data convert: the published layouts (site extract, keyed JSON, JSONL records, CSV) to App. B.2 records,
with partial views merged, exact copies dropped and conflicts named; the loader on what it writes."""

from __future__ import annotations

import csv
import json

import pytest
from test_cobe_dataset import GOOD

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import cobe_dataset, load_records
from cobe_inspect.records.convert import Warnings, convert, main, parse_query_slots, write_records

SITE_ITEM = {
    "example_id": "9v2",
    "original": "The kettle boiled, so Ida made tea.",
    "query": "Rewrite the original text, based on what would have happened instead had the kettle broken.",
    "gold_answer": "The kettle broke, so Ida drank water.",
    "should_not_change": ["Ida wanted a drink."],
    "should_change": ["The kettle boiled.", "Ida made tea."],
    "failure_pattern": "iii",
    "model": "Some-Model",
    "model_output": "The kettle broke, so Ida made tea.",
    "verdict": "wrong",
    "failing_check": "change (E2)",
    "query_idx": 0,
}


def jsonl(tmp_path, name, items):
    path = tmp_path / name
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def test_site_item_becomes_a_b2_record_with_its_published_response(tmp_path):
    [record] = convert([jsonl(tmp_path, "site.jsonl", [SITE_ITEM])])
    assert (record["Core Set ID"], record["Variation ID"]) == (9, 2)
    assert record["Query"] == [SITE_ITEM["query"]]  # query_idx 0: position 0
    assert record["Query placement"] == [{"slot": "A", "by": "query_idx 0 (0-based)"}]
    assert record["Evaluation criteria"] == ["Ida wanted a drink.", "The kettle boiled. Ida made tea."]
    assert record["Failure mode"] == "iii" and "Domain" not in record
    assert record["Published responses"] == [
        {
            "model": "Some-Model",
            "query": "A",
            "response": SITE_ITEM["model_output"],
            "verdict": "wrong",
            "failing_check": "change (E2)",
        }
    ]


def test_a_lone_query_is_placed_by_its_index_a_matching_view_or_the_user_never_by_its_wording(tmp_path):
    b_worded = "Based on the preceding text, rewrite the scenario to reflect what happens if the kettle had broken."
    [record] = convert([jsonl(tmp_path, "b.jsonl", [dict(SITE_ITEM, query=b_worded, query_idx=5)])])
    assert record["Query"] == [None] * 5 + [b_worded]  # the index, not the B-like wording
    no_index = {k: v for k, v in SITE_ITEM.items() if k != "query_idx"}
    with pytest.raises(SuiteInputError) as err:
        convert([jsonl(tmp_path, "x.jsonl", [no_index])])
    assert str(err.value).endswith(
        "x.jsonl', line 1: scenario 9v2 has a lone query and no query index ('query_idx'), so its phrasing slot is "
        "unknown; map it with --query-slot 9v2=A (a slot A, B, C, Q4, ...) or --query-slot '*=A' if you know its "
        "phrasing."
    )
    [mapped] = convert([jsonl(tmp_path, "m.jsonl", [no_index])], query_slots={"9v2": "C"})
    assert mapped["Query"] == [None, None, SITE_ITEM["query"]]
    assert mapped["Query placement"] == [{"slot": "C", "by": "--query-slot 9v2=C"}]
    # the same text in another view of the scenario places it, before a blanket '*'
    listed = dict(no_index, query=["Rewrite x.", SITE_ITEM["query"]], model_output=None)
    [matched] = convert([jsonl(tmp_path, "v.jsonl", [no_index, listed])], query_slots={"*": "A"})
    assert matched["Query"] == ["Rewrite x.", SITE_ITEM["query"]]
    assert matched["Published responses"][0]["query"] == "B"
    for bad_index in (-1, True, 1.5, "2"):
        with pytest.raises(SuiteInputError, match=r"field 'query_idx': must be a whole number >= 0, got"):
            convert([jsonl(tmp_path, "i.jsonl", [dict(SITE_ITEM, query_idx=bad_index)])])
    for pair in ("9v2", "9v2=D", "nine=A"):
        with pytest.raises(SuiteInputError, match=r"^--query-slot must be ID=SLOT"):
            parse_query_slots([pair])
    assert parse_query_slots(["9v2=b", "*=Q4"]) == {"9v2": "B", "*": "Q4"}
    # the Python API checks its map as the command line does: an unknown slot is refused, never read as A
    for mapping in ({"9v2": "D"}, {"*": "Q2"}, {"nine": "A"}):
        with pytest.raises(SuiteInputError, match=r"^--query-slot must be ID=SLOT"):
            convert([jsonl(tmp_path, "m.jsonl", [no_index])], query_slots=mapping)


def test_ids_are_validated_as_written(tmp_path):
    for core in (True, 317.9, "317a", None):
        with pytest.raises(SuiteInputError) as err:
            convert([jsonl(tmp_path, "ids.jsonl", [dict(GOOD, **{"Core Set ID": core})])])
        assert "'Core Set ID' and 'Variation ID' must be written as whole numbers (no coercion)" in str(err.value)
        assert f"Core Set ID {json.dumps(core)}," in str(err.value)
    with pytest.raises(SuiteInputError, match=r"field 'example_id': not a scenario id"):
        convert([jsonl(tmp_path, "e.jsonl", [dict(SITE_ITEM, example_id=9)])])


def test_a_huge_text_field_is_refused_with_its_size(tmp_path):
    huge = "It rained. " * 1_000_000  # about 11 MB
    with pytest.raises(SuiteInputError) as err:
        convert([jsonl(tmp_path, "big.jsonl", [dict(SITE_ITEM, original=huge)])])
    assert "'converted output', record 9v2 (big.jsonl line 1), field 'Story': is 10,999,999 characters long" in str(
        err.value
    )
    assert str(err.value).endswith("a CoBe text field holds at most 20,000.")


def test_contradictory_published_verdicts_name_both_sources(tmp_path):
    flipped = dict(SITE_ITEM, verdict="correct")
    with pytest.raises(SuiteInputError) as err:
        convert([jsonl(tmp_path, "v.jsonl", [SITE_ITEM, flipped])])
    assert str(err.value) == (
        "CoBe convert: scenario 9v2: v.jsonl line 1 and v.jsonl line 2 give contradictory 'Published responses' for "
        'the same response (verdict "wrong" vs "correct"); keep the one that is right.'
    )
    legacy = dict(SITE_ITEM, legacy_verdicts={"gpt": "wrong"})
    with pytest.raises(SuiteInputError, match=r"contradictory 'Published verdicts' for the same run \(verdicts"):
        convert([jsonl(tmp_path, "l.jsonl", [legacy, dict(legacy, legacy_verdicts={"gpt": "correct"})])])


def test_views_of_a_response_given_as_several_versions_merge_and_conflict_as_one_text(tmp_path):
    versions = dict(SITE_ITEM, model_output=["The kettle broke, so Ida made tea.", "Ida made tea anyway."])
    warn = Warnings()
    [record] = convert([jsonl(tmp_path, "l.jsonl", [versions, versions])], warn=warn)
    assert record["Published responses"][0]["response"] == versions["model_output"]
    assert warn.lines == ["warning: dropped l.jsonl line 2: an exact duplicate of scenario 9v2 (l.jsonl line 1)."]
    with pytest.raises(SuiteInputError, match=r"give contradictory 'Published responses' for the same response"):
        convert([jsonl(tmp_path, "c.jsonl", [versions, dict(versions, verdict="correct")])])


def test_a_collected_field_that_is_no_list_is_one_sentence(tmp_path):
    for views in ([dict(GOOD, Sources="site page")], [dict(GOOD, Sources=["a"]), dict(GOOD, Sources="b")]):
        with pytest.raises(SuiteInputError) as err:
            convert([jsonl(tmp_path, "s.jsonl", views)])
        line = len(views)
        assert str(err.value) == (
            f"CoBe convert: s.jsonl line {line}, field 'Sources': must be a list (one entry per source, response or "
            f'run), got "{views[-1]["Sources"]}".'
        )


def test_a_view_adding_another_output_is_a_merge_naming_what_it_added(tmp_path):
    other = dict(SITE_ITEM, model="Other-Model", model_output="The kettle broke, so Ida drank water.")
    warn = Warnings()
    [record] = convert([jsonl(tmp_path, "o.jsonl", [SITE_ITEM, other])], warn=warn)
    assert [r["model"] for r in record["Published responses"]] == ["Some-Model", "Other-Model"]
    assert warn.lines == [
        "note: merged o.jsonl line 2 into scenario 9v2 (o.jsonl line 1), adding Published responses (+1)."
    ]


def test_two_partial_views_merge_and_an_exact_copy_is_dropped_with_a_warning(tmp_path):
    schema_view = {
        k: v
        for k, v in SITE_ITEM.items()
        if k not in ("model", "model_output", "verdict", "failing_check", "failure_pattern")
    }
    schema_view |= {
        "domain": "Everyday",
        "query": [SITE_ITEM["query"], "Based on the preceding text, x.", "Rewrite the above passage, y."],
    }
    warn = Warnings()
    [record] = convert([jsonl(tmp_path, "s.jsonl", [SITE_ITEM, schema_view, SITE_ITEM])], warn=warn)
    assert record["Domain"] == "Everyday" and record["Failure mode"] == "iii" and len(record["Query"]) == 3
    assert len(record["Published responses"]) == 1
    assert warn.lines[0] == (
        "note: merged s.jsonl line 2 into scenario 9v2 (s.jsonl line 1), adding Query B, C; Domain."
    )
    assert warn.lines[1] == "warning: dropped s.jsonl line 3: an exact duplicate of scenario 9v2 (s.jsonl line 1)."


def test_views_that_disagree_fail_naming_the_scenario_field_and_both_sources(tmp_path):
    other = dict(SITE_ITEM, gold_answer="The kettle broke; Ida had juice.")
    with pytest.raises(SuiteInputError) as err:
        convert([jsonl(tmp_path, "s.jsonl", [SITE_ITEM, other])])
    message = str(err.value)
    assert message.startswith(
        "CoBe convert: scenario 9v2: s.jsonl line 1 and s.jsonl line 2 disagree on 'Illustrative answer (not scored)'"
    )
    query_clash = dict(SITE_ITEM, query=[SITE_ITEM["query"][:-1] + " today."])
    with pytest.raises(SuiteInputError, match=r"disagree on 'Query' A"):
        convert([jsonl(tmp_path, "q.jsonl", [SITE_ITEM, query_clash])])


def test_keyed_json_and_records_with_more_than_three_queries(tmp_path):
    five = GOOD["Query"] + ["Rewrite had it cracked.", "Rewrite had it leaked."]
    body = {k: v for k, v in GOOD.items() if k not in ("Core Set ID", "Variation ID")} | {"Query": five}
    keyed = tmp_path / "keyed.json"
    keyed.write_text(json.dumps({"7v2": body, "7v3": dict(body, Domain="Healthcare")}, indent=2), encoding="utf-8")
    records = convert([keyed])
    assert [(r["Core Set ID"], r["Variation ID"]) for r in records] == [(7, 2), (7, 3)]
    assert records[0]["Query"] == five
    # the loader reads a keyed file itself, and Tier 1 runs every query: A, B, C, Q4, Q5
    loaded = load_records(keyed)
    assert [slot for slot, _ in loaded[0].query_slots] == ["A", "B", "C", "Q4", "Q5"]
    assert [s.id for s in cobe_dataset(str(keyed))][:5] == ["7v2-A", "7v2-B", "7v2-C", "7v2-Q4", "7v2-Q5"]
    assert [s.id for s in cobe_dataset(str(keyed), phrasings="Q5")] == ["7v2-Q5", "7v3-Q5"]
    keyed.write_text(json.dumps({"7v2": dict(body, **{"Variation ID": 4})}), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"record 7v2, field 'Variation ID': 4 disagrees with the key '7v2'"):
        load_records(keyed)


def test_csv_layout_with_numbered_and_json_list_columns(tmp_path):
    path = tmp_path / "kaggle.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "Core Set ID",
                "Variation ID",
                "Domain",
                "Story",
                "Query 1",
                "Query 2",
                "Query 3",
                "Query 4",
                "Illustrative answer (not scored)",
                "Evaluation criteria",
                "Graph type",
            ]
        )
        answer, criteria = GOOD["Illustrative answer (not scored)"], json.dumps(GOOD["Evaluation criteria"])
        writer.writerow(
            [7, 2, "Everyday", GOOD["Story"], *GOOD["Query"], "Rewrite had it cracked.", answer, criteria, "Fork-like"]
        )
        writer.writerow(
            [
                7,
                3,
                "Everyday",
                GOOD["Story"],
                GOOD["Query"][0],
                "",
                "",
                "",
                GOOD["Illustrative answer (not scored)"],
                json.dumps(GOOD["Evaluation criteria"]),
                "",
            ]
        )
    first, second = convert([path])
    assert first["Query"] == GOOD["Query"] + ["Rewrite had it cracked."] and first["Graph type"] == "Fork-like"
    assert second["Query"] == [GOOD["Query"][0]] and "Graph type" not in second
    out = tmp_path / "out.jsonl"
    write_records([first, second], out)
    assert [r.graph_type for r in load_records(out)] == ["fork", None]


def test_output_is_validated_before_it_is_written(tmp_path):
    bad = dict(GOOD, **{"Evaluation criteria": ["only one"]})
    with pytest.raises(SuiteInputError, match=r"field 'Evaluation criteria': must be a list of exactly 2"):
        convert([jsonl(tmp_path, "bad.jsonl", [bad])])
    with pytest.raises(SuiteInputError, match=r"field 'gold_answer': is missing"):
        convert([jsonl(tmp_path, "s.jsonl", [{k: v for k, v in SITE_ITEM.items() if k != "gold_answer"}])])


def test_the_loader_points_a_site_extract_to_the_converter(tmp_path):
    with pytest.raises(SuiteInputError, match=r"is an item of the CoBe site extract.*cobe-data convert"):
        load_records(jsonl(tmp_path, "site.jsonl", [SITE_ITEM]))


def test_command_line(tmp_path, capsys):
    src = jsonl(tmp_path, "s.jsonl", [SITE_ITEM, SITE_ITEM])
    out = tmp_path / "records.json"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "wrote 1 records (1 queries) to" in captured.out and "dropped s.jsonl line 2" in captured.err
    assert load_records(out)[0].scenario_id == "9v2"
    clash = jsonl(tmp_path, "c.jsonl", [SITE_ITEM, dict(SITE_ITEM, original="Another story.")])
    assert main(["convert", str(clash), "-o", str(tmp_path / "never.jsonl")]) == 2
    assert "cobe-data: error:" in (err := capsys.readouterr().err) and "disagree on 'Story'" in err
    assert not (tmp_path / "never.jsonl").exists()


@pytest.mark.shared_data
def test_the_published_site_examples(shared_dir, tmp_path):
    warn = Warnings()
    site = shared_dir / "data" / "cobe" / "cobe_site_examples.jsonl"
    with pytest.raises(SuiteInputError, match=r"line 1: scenario 403v1 has a lone query and no query index"):
        convert([site])
    records = convert([site], warn=warn, query_slots={"*": "A"})
    assert len(records) == 11 and warn.lines == [
        "note: merged cobe_site_examples.jsonl line 9 into scenario 317v3 (cobe_site_examples.jsonl line 4), "
        "adding Query B, C; Domain; Sources (+2)."
    ]
    by_id = {f"{r['Core Set ID']}v{r['Variation ID']}": r for r in records}
    merged = by_id["317v3"]
    assert len(merged["Query"]) == 3 and merged["Domain"] == "Everyday" and merged["Failure mode"] == "iv"
    assert len(merged["Sources"]) == 3 and merged["Published responses"][0]["verdict"] == "wrong"
    # placed by their query_idx (0-based), not by their wording: 119v6's B-like indicative query is no B
    assert [len(by_id[i]["Query"]) for i in ("102v17", "119v6", "143v10")] == [3, 6, 8]
    assert merged["Query placement"] == [{"slot": "A", "by": "the same query at A in another view"}]
    assert by_id["102v17"]["Domain (legacy run)"] == "Health and Medicine" and "Domain" not in by_id["102v17"]
    assert by_id["119v6"]["Evaluation criteria"][1] == "Final five patients recovered. Rate stayed at 92%."
