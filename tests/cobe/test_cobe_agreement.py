"""Judge-vs-human agreement (App. D.4) on a hand-computed table, on errors, and on the 12 real CoBe items."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from cobe_inspect.agreement import agreement, main, read_labels
from cobe_inspect.dataset import load_records


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


def site_record(item: dict) -> dict:
    """A site extract item in the App. B.2 record schema (its one query stands for all three phrasings)."""
    core, variation = item["example_id"].split("v")
    query = item["query"] if isinstance(item["query"], list) else [item["query"]] * 3
    return {
        "Core Set ID": int(core),
        "Variation ID": int(variation),
        "Domain": item.get("domain") or item.get("domain_legacy") or "Unlabeled",
        "Story": item["original"],
        "Query": query,
        "Illustrative answer (not scored)": item["gold_answer"],
        "Evaluation criteria": [" ".join(item["should_not_change"]), " ".join(item["should_change"])],
        "Failure mode": item.get("failure_pattern"),
    }


@pytest.mark.shared_data
def test_real_items_load_and_agreement_with_their_verdicts(shared_dir, scripted, tmp_path, capsys):
    items = [json.loads(line) for line in (shared_dir / "data" / "cobe" / "cobe_site_examples.jsonl").open()]
    assert len(items) == 12
    records = [site_record(i) for i in items]
    all_path = tmp_path / "site_all.json"
    all_path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"record 317v3 \(#9\), field 'Variation ID': duplicate id"):
        load_records(all_path)  # the site shows 317v3 twice (failure example and schema example)

    judged = [i for i in items if i.get("verdict")]
    assert len(judged) == 8  # 7 failures (patterns i-vii) and 217v10, correct despite several rewrites
    path = tmp_path / "site.json"
    path.write_text(json.dumps([site_record(i) for i in judged]), encoding="utf-8")
    loaded = load_records(path)
    assert [r.scenario_id for r in loaded] == [i["example_id"] for i in judged]
    assert {r.failure_mode for r in loaded} == {"i", "ii", "iii", "iv", "v", "vi", "vii", None}

    outputs = {i["original"]: i["model_output"] for i in judged}

    def respond(prompt: str) -> str:  # the recorded model output; several rewrites are shown as versions
        out = next(v for story, v in outputs.items() if story in prompt)
        return "\n\n".join(out) if isinstance(out, list) else out

    failing = {respond(i["original"]): CHECK_OF[i["failing_check"]] for i in judged if i["failing_check"]}

    def grade(prompt: str) -> str:  # a judge that flags the failing check the site reports for each item
        return "F" if any(resp in prompt and marker in prompt for resp, marker in failing.items()) else "T"

    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"data": str(path), "phrasings": "A"},
        model=scripted(respond),
        model_roles={"grader": scripted(grade)},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and log.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 8)
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "sample_id,human\n" + "".join(f"{i['example_id']}-A,{int(i['verdict'] == 'correct')}\n" for i in judged),
        encoding="utf-8",
    )
    assert main([log.location, str(labels)]) == 0
    printed = capsys.readouterr().out
    assert "TP 7  FP 0  FN 0  TN 1" in printed and "Cohen's kappa 1.000" in printed
    failure_rates = {k: m.value for k, m in log.results.scores[0].metrics.items() if k.endswith("_failure")}
    assert failure_rates == pytest.approx({"E0_failure": 1 / 8, "E1_failure": 3 / 8, "E2_failure": 3 / 8})
