"""Upstream LabeledPair files (§3.4): dose from the _m{k} suffix, legacy m=1 rows stamped from the file name,
malformed rows named by line, and the round trip through Frail's writer."""

import json

import pytest

from causal_suite.errors import SuiteInputError
from frail.pairs import read_pair_files, read_pairs, write_pairs


def upstream_row(base="gsmic_adv-42", twin="gsmic_adv-42-d7", operator="math_irrelevant_context_m9", delta=1.0, y=1.0):
    return {
        "base_id": base,
        "twin_id": twin,
        "operator": operator,
        "category": "math",
        "complexity": "medium",
        "complexity_score": 0.72,
        "base_text": "Ann has 3 apples. How many?",
        "twin_text": "Ann has 3 apples. Bo ran. How many?",
        "delta_per_model": {"gpt-4o-mini": delta},
        "delta_mean": delta,
        "d_obs": 0.35,
        "d_wc": 1.0,
        "y_base_mean": y,
    }


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_dose_from_operator_suffix_and_outcomes(tmp_path):
    f = write(
        tmp_path / "gsmic_adv_m9_multiop_mix_4omini_labeled_pairs.jsonl",
        [upstream_row(), upstream_row(twin="t2", operator="sentence_reorder_m9", delta=0.0)],
    )
    rows = read_pairs(f)
    assert [(r.family, r.dose, r.y_base, r.y_twin) for r in rows] == [
        ("math_irrelevant_context", 9, 1.0, 0.0),
        ("sentence_reorder", 9, 1.0, 1.0),
    ]
    assert rows[0].solver == "gpt-4o-mini"


def test_legacy_m1_rows_take_the_dose_from_the_file_name(tmp_path):
    f = write(
        tmp_path / "gsmic_adv_m1_multiop_mix_4omini_labeled_pairs.jsonl",
        [upstream_row(operator="math_irrelevant_context"), upstream_row(twin="t2", operator="entity_rename")],
    )
    rows = read_pairs(f)
    assert [r.dose for r in rows] == [1, 1]
    assert [r.operator for r in rows] == ["math_irrelevant_context_m1", "entity_rename_m1"]


def test_row_without_any_dose_is_refused_naming_the_line(tmp_path):
    f = write(tmp_path / "pairs.jsonl", [upstream_row(), upstream_row(operator="entity_rename")])
    with pytest.raises(SuiteInputError, match=r"pairs.jsonl, line 2: field 'operator'"):
        read_pairs(f)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r.pop("base_text"), "line 2: record lacks field\\(s\\) base_text"),
        (lambda r: r.update(complexity_score="high"), "line 2: field 'complexity_score' should be a number"),
        (lambda r: r.update(delta_mean=2.0), "line 2: fields 'y_base_mean' / 'delta_mean'"),
        (lambda r: r.pop("delta_mean"), "line 2: record lacks 'delta_mean'"),
    ],
)
def test_malformed_rows_name_the_line(tmp_path, mutate, message):
    bad = upstream_row(twin="t2")
    mutate(bad)
    f = write(tmp_path / "x_m9_pairs.jsonl", [upstream_row(), bad])
    with pytest.raises(SuiteInputError, match=message):
        read_pairs(f)


def test_invalid_json_names_the_line(tmp_path):
    f = tmp_path / "x_m9_pairs.jsonl"
    f.write_text(json.dumps(upstream_row()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match="line 2: not valid JSON"):
        read_pairs(f)


def test_mixed_solvers_are_refused(tmp_path):
    other = upstream_row(twin="t2")
    other["delta_per_model"] = {"qwen": 1.0}
    a = write(tmp_path / "a_m9_pairs.jsonl", [upstream_row()])
    b = write(tmp_path / "b_m9_pairs.jsonl", [other])
    with pytest.raises(SuiteInputError, match="mix scoring models"):
        read_pair_files([a, b])


def test_round_trip_keeps_dose_and_recomputes_job_targets(tmp_path):
    rows = read_pairs(
        write(
            tmp_path / "s_m1_pairs.jsonl",
            [upstream_row(operator="entity_rename"), upstream_row(twin="t2", operator="sentence_reorder", delta=0.0)],
        )
    )
    out = tmp_path / "out.jsonl"
    write_pairs(out, rows)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [w["dose"] for w in written] == [1, 1] and written[0]["operator"] == "entity_rename_m1"
    assert written[0]["d_obs"] == 0.5 and written[0]["d_wc"] == 1.0  # over exactly these two twins
    assert [(r.dose, r.y_twin) for r in read_pairs(out)] == [(1, 0.0), (1, 1.0)]
