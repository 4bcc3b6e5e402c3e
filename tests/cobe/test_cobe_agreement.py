"""Judge-vs-human agreement (App. D.4) on a hand-computed table, on errors, and on the 12 real CoBe items
(converted with cobe-data)."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from cobe_inspect.agreement import agreement, main, read_labels
from cobe_inspect.dataset import load_records
from cobe_inspect.records.convert import convert, write_records


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def test_agreement_on_a_hand_computed_table():
    # positive = invalid (0). TP 3, FP 1, FN 2, TN 4, plus one unscored and one label missing from the log.
    judge = {f"s{i}": v for i, v in enumerate([0, 0, 0, 0, 1, 1, 1, 1, 1, 1])} | {"u": None}
    human = {f"s{i}": v for i, v in enumerate([0, 0, 0, 1, 0, 0, 1, 1, 1, 1])} | {"u": 0, "gone": 1}
    result = agreement(judge, human)
    assert (result.tp, result.fp, result.fn, result.tn, result.unscored, result.missing) == (3, 1, 2, 4, 1, 1)
    assert result.n == 10 and result.accuracy == pytest.approx(0.7)
    assert result.precision == pytest.approx(0.75) and result.recall == pytest.approx(0.6)
    assert result.f1 == pytest.approx(2 / 3)
    # p_o = 0.7; p_e = 0.4 * 0.5 + 0.6 * 0.5 = 0.5 -> kappa = 0.4
    assert result.kappa == pytest.approx(0.4)


def test_degenerate_tables_are_nan_not_invented():
    result = agreement({"a": 1, "b": 1}, {"a": 1, "b": 1})
    assert result.accuracy == 1 and math.isnan(result.precision) and math.isnan(result.kappa)
    assert math.isnan(agreement({}, {"a": 1}).accuracy)


def test_labels_file_errors(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("sample_id,human\n1v1-A,1\n1v1-B,yes\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"row 3 \(1v1-B\), field 'human': must be 1 or 0"):
        read_labels(path)
    path.write_text("id,label\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match="lacks the column"):
        read_labels(path)
    path.write_text("sample_id,human\n1v1-A,1\n1v1-A,0\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match="duplicate 1v1-A"):
        read_labels(path)


CHECK_OF = {"connector (E0)": "linking words", "preserve (E1)": "must still hold", "change (E2)": "must no longer hold"}


@pytest.mark.shared_data
def test_real_items_convert_and_agreement_with_their_verdicts(shared_dir, scripted, tmp_path, capsys):
    site = shared_dir / "data" / "cobe" / "cobe_site_examples.jsonl"
    records = convert([site], query_slots={"*": "A"})  # 12 items; the two views of 317v3 merge into one record
    assert len(records) == 11
    judged = [r for r in records if any(p.get("verdict") for p in r.get("Published responses", []))]
    assert len(judged) == 8  # 7 failures (patterns i-vii) and 217v10, correct despite several rewrites
    path = tmp_path / "site.json"
    write_records(judged, path)
    loaded = load_records(path)
    assert [r.scenario_id for r in loaded] == [f"{r['Core Set ID']}v{r['Variation ID']}" for r in judged]
    assert {r.failure_mode for r in loaded} == {"i", "ii", "iii", "iv", "v", "vi", "vii", None}

    responses = {r["Story"]: r["Published responses"][0] for r in judged}

    def respond(prompt: str) -> str:  # the recorded model output; several rewrites are shown as versions
        out = next(p["response"] for story, p in responses.items() if story in prompt)
        return "\n\n".join(out) if isinstance(out, list) else out

    failing = {respond(story): CHECK_OF[p["failing_check"]] for story, p in responses.items() if p.get("failing_check")}

    def grade(prompt: str) -> str:  # a judge that flags the failing check the site reports for each item
        return "F" if any(resp in prompt and marker in prompt for resp, marker in failing.items()) else "T"

    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"data": str(path), "phrasings": "A"},
        model=scripted(respond),
        model_roles={"grader": scripted(grade, name="judge")},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and log.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 8)
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "sample_id,human\n"
        + "".join(
            f"{r['Core Set ID']}v{r['Variation ID']}-A,{int(r['Published responses'][0]['verdict'] == 'correct')}\n"
            for r in judged
        ),
        encoding="utf-8",
    )
    assert main([log.location, str(labels)]) == 0
    printed = capsys.readouterr().out
    assert "TP 7  FP 0  FN 0  TN 1" in printed and "Cohen's kappa 1.000" in printed
    failure_rates = {
        k: m.value for k, m in log.results.scores[0].metrics.items() if k in ("E0_failure", "E1_failure", "E2_failure")
    }
    assert failure_rates == pytest.approx({"E0_failure": 1 / 8, "E1_failure": 3 / 8, "E2_failure": 3 / 8})
