"""Tiers 2-4 on published records, which carry only their queries: D from the clause a query states, H1/H2 with a
rewrite request built from that clause (never a Tier-1 query); E-G name the fields each record lacks. A run at every
tier on the converted site examples."""

from __future__ import annotations

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import cobe_dataset
from cobe_inspect.prompts import FINAL_STORY_MARKER
from cobe_inspect.records.convert import convert, write_records
from cobe_inspect.records.queries import derive_intervention, intervention_clause


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


PAPER_A = "Rewrite the original text, based on what would have happened instead had the drain been opened."
PAPER_B = (
    "Based on the preceding text, rewrite the scenario to reflect what would have happened if the drain had "
    "been opened."
)
PAPER_C = "Rewrite the above passage to illustrate what would have occurred had the drain been opened."
RECORD = {
    "Core Set ID": 317,
    "Variation ID": 3,
    "Story": "The water level in the bathtub is rising because the faucet pours in 5 gallons per minute.",
    "Query": [PAPER_A, PAPER_B, PAPER_C],
    "Illustrative answer (not scored)": "The faucet pours in 5 gallons per minute, and the level falls.",
    "Evaluation criteria": ["The faucet pours in 5 gallons per minute.", "The water level is rising."],
}


@pytest.mark.parametrize(
    ("query", "clause"),
    [
        (PAPER_A, "the drain been opened"),
        (PAPER_B, "the drain been opened"),
        (PAPER_C, "the drain been opened"),
        (
            "Rewrite the original text, based on what would have happened in this scenario had Timmy had squash practice "
            "instead.",
            "Timmy had squash practice instead",
        ),
        (
            "Based on the preceding text, rewrite the scenario to reflect what happens if the final five patients had "
            "failed to recover.",
            "the final five patients failed to recover",
        ),
        ("Rewrite the story so the kettle breaks.", None),
    ],
)
def test_intervention_clause_of_a_query(query, clause):
    assert intervention_clause(query) == clause


def test_derive_intervention_takes_the_first_query_that_states_one():
    assert derive_intervention([None, "Say more.", PAPER_C]) == ("the drain been opened", "C")
    assert derive_intervention(["Say more."]) is None


def write(tmp_path, records):
    path = tmp_path / "published.json"
    write_records(records, path)
    return str(path)


def test_tier2_d_and_tiers_3_4_run_from_the_queries_alone(tmp_path):
    path = write(tmp_path, [RECORD, dict(RECORD, **{"Variation ID": 4, "Query": [None, PAPER_B]})])
    d = {s.id: s for s in cobe_dataset(path, tier=2, phrasings="D")}
    assert set(d) == {"317v3-D", "317v4-D"}
    assert d["317v3-D"].input.endswith("in this particular scenario had the drain been opened.")
    assert d["317v3-D"].metadata["built_from"] == {"intervention": "query A"}
    assert d["317v4-D"].metadata["built_from"] == {"intervention": "query B"}
    h1, h2 = next(iter(cobe_dataset(path, tier=3))), next(iter(cobe_dataset(path, tier=4)))
    request = "Rewrite the original story as it would read had the drain been opened."
    for sample in (h1, h2):
        assert RECORD["Story"] in sample.input and f"Rewrite request: {request}" in sample.input
        assert PAPER_A not in sample.input and sample.metadata["request"] == request
        assert sample.metadata["built_from"] == {"request": "query A"}
    assert FINAL_STORY_MARKER in h2.input and "do(V=v)" in h2.input
    # an authored Intervention / Intervened event wins over the query
    authored = dict(RECORD, Intervention="the plug been pulled", **{"Intervened event": "the plug was pulled"})
    path = write(tmp_path, [authored])
    assert next(iter(cobe_dataset(path, tier=2, phrasings="D"))).input.endswith("had the plug been pulled.")
    assert "in which the plug was pulled." in next(iter(cobe_dataset(path, tier=3))).input
    # an Intervention clause alone (no Intervened event) builds the request too
    path = write(tmp_path, [dict(RECORD, Intervention="the plug been pulled")])
    h1 = next(iter(cobe_dataset(path, tier=3)))
    assert h1.metadata["request"] == "Rewrite the original story as it would read had the plug been pulled."
    assert h1.metadata["built_from"] == {"request": "Intervention"}


def test_h1_without_any_intervention_clause_names_the_record(tmp_path):
    path = write(tmp_path, [dict(RECORD, Query=["Rewrite the story so the drain is open."])])
    for tier in (3, 4):
        with pytest.raises(SuiteInputError, match=r"need the field\(s\) 'Intervention' .* record\(s\) 317v3 lack"):
            cobe_dataset(path, tier=tier)


def test_the_rewrite_request_of_each_tier_is_without_the_story(tmp_path):
    path = write(
        tmp_path,
        [dict(RECORD, **{"Original event": "the drain staying shut", "Intervened event": "the drain was opened"})],
    )
    requests = {s.metadata["phrasing"]: s.metadata["request"] for t in (1, 2, 3, 4) for s in cobe_dataset(path, tier=t)}
    assert requests["A"] == PAPER_A and requests["C"] == PAPER_C
    assert requests["D"] == (
        "Rewrite the text above to show what would have happened in this particular scenario had the drain been opened."
    )
    assert requests["E"].endswith("instead of the drain staying shut, the drain was opened.")
    assert (
        requests["H1"]
        == requests["H2"]
        == ("Rewrite the original story for the counterfactual scenario in which the drain was opened.")
    )
    assert all(RECORD["Story"] not in r for r in requests.values())


def test_e_to_g_name_the_fields_each_record_lacks(tmp_path):
    pieces = {"Original event": "the drain staying shut", "Intervened event": "the drain was opened"}
    path = write(tmp_path, [RECORD, dict(RECORD, **{"Variation ID": 5}, **pieces)])
    with pytest.raises(SuiteInputError) as err:
        cobe_dataset(path, tier=2)
    message = str(err.value)
    assert "phrasing(s) E, F, G need the field(s) 'Intervened event', 'Original event'" in message
    assert "which record(s) 317v3 lack; phrasing(s) D can run on them (-T phrasings=D)." in message
    assert "317v5" not in message
    assert len(list(cobe_dataset(path, tier=2, phrasings="D"))) == 2


def test_d_without_a_stated_clause_names_the_record(tmp_path):
    path = write(tmp_path, [dict(RECORD, Query=["Rewrite the story so the drain is open."])])
    with pytest.raises(SuiteInputError, match=r"need the field\(s\) 'Intervention' \(or a query stating"):
        cobe_dataset(path, tier=2, phrasings="D")


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("tier", "phrasings", "n_samples"), [(1, None, 13), (2, "D", 11), (3, None, 11), (4, None, 11)]
)
def test_converted_site_examples_run_at_every_tier(shared_dir, scripted, tmp_path, tier, phrasings, n_samples):
    path = write(tmp_path, convert([shared_dir / "data" / "cobe" / "cobe_site_examples.jsonl"], query_slots={"*": "A"}))

    def respond(prompt: str) -> str:
        story = prompt.split("\n\n")[0].removeprefix("Original story:\n")
        return f"Worked steps.\n{FINAL_STORY_MARKER} {story}" if tier == 4 else story

    args = {"data": path, "tier": tier} | ({"phrasings": phrasings} if phrasings else {})
    judge = scripted(lambda prompt: "F" if "must no longer hold" in prompt else "T", name="judge")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args=args,
        model=scripted(respond),
        model_roles={"grader": judge},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and len(log.samples) == n_samples
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    # the unchanged story keeps every fact: E1 passes, E2 fails, so nothing is correct
    assert metrics["accuracy"] == 0 and metrics["E2_failure"] == 1 and metrics["E1_failure"] == 0
    assert metrics[f"tier={tier}"] == 0 and metrics["self_judged"] == 0
