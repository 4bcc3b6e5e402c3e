"""Authoring checks over the built-in scenarios, and each check catching the defect it is for (records.checks)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from cobe_inspect.dataset import BUILTIN_DATA, load_records
from cobe_inspect.records.checks import check_record, check_records, content_words, restated_change, sentences
from cobe_inspect.records.convert import main as cobe_data
from cobe_inspect.records.graphs import classify, graph_problem, parse_edge
from cobe_inspect.records.schema import parse_record

RAW = json.loads(BUILTIN_DATA.read_text(encoding="utf-8"))


def raw(scenario: str) -> dict:
    core, variation = map(int, scenario.split("v"))
    return copy.deepcopy(next(r for r in RAW if (r["Core Set ID"], r["Variation ID"]) == (core, variation)))


def findings(record: dict) -> list[str]:
    return [str(f) for f in check_record(parse_record(record, "test", "x"))]


def edges(*texts: str) -> list[tuple[str, str]]:
    return [parse_edge(t) for t in texts]


def test_builtin_set_passes_every_authoring_check():
    assert [str(f) for f in check_records(load_records())] == []


def test_every_builtin_record_records_its_graph_and_its_label_follows_from_it():
    records = load_records()
    assert all(r.graph is not None and r.graph.intervened for r in records)
    implied = Counter(classify(r.graph.edges, r.graph.latent) for r in records)
    assert implied == {g: 6 for g in ("chain", "collider", "fork", "diamond", "correlated", "hybrid")}
    assert all(classify(r.graph.edges, r.graph.latent) == r.graph_type for r in records)


def test_builtin_tags_name_numeric_and_latent_checks():
    records = load_records()
    numeric = {r.scenario_id for r in records if r.numeric_checks}
    latent = {r.scenario_id for r in records if r.latent_checks}
    assert len(numeric) >= 6 and {r.graph_type for r in records if r.scenario_id in latent} == {"correlated"}


@pytest.mark.parametrize(
    ("graph", "latent", "expected"),
    [
        (("a -> b", "b -> c"), (), "chain"),
        (("s -> a", "s -> b", "a -> c"), (), "fork"),
        (("a -> t", "b -> t", "t -> c"), (), "collider"),
        (("r -> s", "s -> a", "s -> b", "a -> t", "b -> t", "t -> x"), (), "diamond"),
        (("s -> a", "a -> t", "s -> t"), (), "hybrid"),  # a triangle: one branch has no intermediate
        (("u -> a", "u -> b"), ("u",), "correlated"),
        (("u -> a", "u -> b"), (), "fork"),  # the same edges with an observed common cause
        (("h -> w", "o -> w", "h -> l", "o -> l"), (), "hybrid"),
        (("t -> p", "t -> j", "s -> p"), (), "hybrid"),  # a fork and a collider together
    ],
)
def test_graph_types_follow_figure_4(graph, latent, expected):
    assert classify(edges(*graph), latent) == expected


def test_graph_problems():
    assert graph_problem(edges("a -> b", "c -> d")).startswith("is not connected")
    assert graph_problem(edges("a -> b", "b -> a")) == "has a directed cycle"
    assert graph_problem([]) == "has no edges"
    assert parse_edge("a => b") is None and parse_edge("a -> a") is None


def test_a_fork_labelled_diamond_is_caught():
    # the old 534v1: the faster conveyor left boxes unsealed and had them labelled, but the two never met again
    record = raw("534v1")
    record["Causal graph"]["edges"] = ["speed -> unsealed", "speed -> labelling", "unsealed -> unsealed_total"]
    [finding] = findings(record)
    assert "[graph] labelled diamond but its edges" in finding and "form a fork" in finding


def test_a_doubled_full_stop_is_caught_and_an_ellipsis_is_not():
    record = raw("521v1")
    record["Query"] = [q.replace("7 in the evening.", "7 p.m..") for q in record["Query"]]
    record["Intervention"] = record["Intervention"].replace("7 in the evening", "7 p.m.")
    found = findings(record)
    assert sum("has a doubled full stop" in f for f in found) == 3
    assert any("Intervention is a clause inside a template; drop its final full stop" in f for f in found)
    ok = raw("521v1")
    ok["Story"] = ok["Story"] + " And then... nothing."
    assert findings(ok) == []


@pytest.mark.parametrize(
    ("scenario", "downstream"),
    [
        ("545v1", "80 shoppers buying gift wrap"),
        ("541v1", "the corner shop selling a record 900 ice creams"),
        ("546v1", "Priya training at the on-site gym four times a week"),
        ("543v1", "the barometer reading falling sharply"),
    ],
)
def test_an_original_event_that_is_a_downstream_fact_is_caught(scenario, downstream):
    record = raw(scenario)
    record["Original event"] = downstream  # as the set had it: Tier 2 E-G then handed over the answer to E2
    [finding] = findings(record)
    assert "[pieces] Original event" in finding and "restates the must-change fact" in finding


def test_the_intervened_variables_own_value_may_be_restated_only_when_named():
    record = raw("504v1")
    assert restated_change(parse_record(record, "t", "x")) == []
    del record["Original fact"]
    [finding] = findings(record)
    assert "'The city closed the bridge.'" in finding
    record["Original fact"] = "The city shut the bridge."
    assert any("is not a sentence of the change criterion" in f for f in findings(record))


def test_other_mechanical_defects():
    record = raw("503v1")
    record["Evaluation criteria"][0] += " Most of the bacteria died."
    assert any("is both preserved and changed" in f for f in findings(record))
    record = raw("504v1")
    record["Numeric criteria"] = ["E2"]
    assert any("tagged numeric but its criterion names no number" in f for f in findings(record))
    record = raw("504v1")
    record["Intervention"] = "the city left the bridge open"
    assert sum("not the Intervention" in f for f in findings(record)) == 3
    record = raw("504v1")
    record["Story"] = record["Story"].replace("During the", "During  the").rstrip(".")
    found = findings(record)
    assert any("has doubled blanks" in f for f in found) and any("does not end with" in f for f in found)


def test_text_helpers():
    assert sentences("It was 7 a.m. The sun rose. 5 boxes fell.") == ["It was 7 a.m.", "The sun rose.", "5 boxes fell."]
    assert content_words("80 shoppers bought gift wrap") == content_words("80 shoppers buying gift wraps")


def test_cobe_data_check_command(tmp_path, capsys):
    assert cobe_data(["check", str(BUILTIN_DATA)]) == 0
    assert "36 records, 0 finding(s)" in capsys.readouterr().out
    bad = raw("545v1")
    bad["Original event"] = "80 shoppers buying gift wrap"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([bad]), encoding="utf-8")
    assert cobe_data(["check", str(path)]) == 1
    assert "545v1 [pieces]" in capsys.readouterr().out
