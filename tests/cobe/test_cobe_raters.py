"""App. D.4's protocol: a seeded rater sheet of one model's responses (no criteria shown), and agreement read from
three rater columns by majority vote, with Fleiss' kappa among the raters and a table per check."""

from __future__ import annotations

import csv

import pytest
from inspect_ai import eval

from causal_suite.errors import SuiteInputError
from cobe_inspect.agreement import main as agreement_main
from cobe_inspect.agreement import rater_kappa
from cobe_inspect.records.convert import main as data_main
from cobe_inspect.records.raters import SHEET_COLUMNS, majority, read_rater_sheet, write_rater_sheet


@pytest.fixture(scope="module")
def log_path(tmp_path_factory, scripted_factory):
    def judge(prompt: str) -> str:  # E2 fails on the rewrites of the word "weak"
        return "F" if "must no longer hold" in prompt and "weak" in prompt else "T"

    def respond(prompt: str) -> str:
        return "A weak rewrite." if "Using the text above" in prompt else "A fine rewrite."

    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"subset": 2, "subset_seed": 1, "judge_cache": False},  # module scope: no private cache
        model=scripted_factory(respond, name="respondent"),
        model_roles={"grader": scripted_factory(judge, name="judge")},
        display="none",
        log_dir=str(tmp_path_factory.mktemp("raters")),
    )
    return log.location


def rows_of(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_the_sheet_draws_n_responses_with_the_seed_and_hides_the_criteria(log_path, tmp_path, capsys):
    out = tmp_path / "sheet.csv"
    assert data_main(["rater-sheet", log_path, "--n", "4", "--seed", "3", "-o", str(out)]) == 0
    assert "wrote 4 responses of mockllm/respondent (seed 3)" in capsys.readouterr().out
    rows = rows_of(out)
    assert list(rows[0]) == list(SHEET_COLUMNS) and len(rows) == 4 and len({r["sample_id"] for r in rows}) == 4
    assert all(r["response"] in ("A weak rewrite.", "A fine rewrite.") and r["rater_1"] == "" for r in rows)
    assert all(r["story"] and r["query"] and r["story"] not in r["query"] for r in rows)
    rubric = (tmp_path / "sheet.rubric.txt").read_text(encoding="utf-8")
    assert "Other" in rubric and "Worked example 2 (No)" in rubric and "Evaluation criteria" not in rubric
    again = tmp_path / "again.csv"
    write_rater_sheet(log_path, again, 4, 3)
    assert [r["sample_id"] for r in rows_of(again)] == [r["sample_id"] for r in rows]
    with pytest.raises(SuiteInputError, match=r"has 6 responses, fewer than --n 250"):
        write_rater_sheet(log_path, tmp_path / "x.csv", 250, 0)


def test_agreement_from_three_rater_columns(log_path, tmp_path, capsys):
    sheet = tmp_path / "sheet.csv"
    write_rater_sheet(log_path, sheet, 4, 3)
    rows = rows_of(sheet)
    votes = [("Yes", "Yes", "Yes"), ("No", "no", "No"), ("Yes", "No", "Other"), ("No", "No", "Yes")]
    for row, vote in zip(rows, votes, strict=True):
        row.update(zip(("rater_1", "rater_2", "rater_3"), vote, strict=True))
    with open(sheet, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=SHEET_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    labels = read_rater_sheet(sheet)
    assert labels.labels == {rows[0]["sample_id"]: 1, rows[1]["sample_id"]: 0, rows[3]["sample_id"]: 0}
    assert labels.no_majority == 1
    # Fleiss by hand: P_i = 1, 1, 0, 1/3 -> 7/12; p = 5/12, 6/12, 1/12 -> P_e = 62/144
    assert rater_kappa(labels.votes) == pytest.approx((7 / 12 - 62 / 144) / (1 - 62 / 144))
    assert agreement_main([log_path, str(sheet)]) == 0
    out = capsys.readouterr().out
    assert "raters: 4 rows, 1 without a Yes/No majority (left out); Fleiss' kappa among the three raters 0.268" in out
    assert "compared samples      3" in out and "per check" in out
    assert all(f"  {check}  TP" in out for check in ("E0", "E1", "E2"))


def test_majority_and_bad_sheets(tmp_path):
    assert majority(("Yes", "Other", "Yes")) == 1 and majority(("No", "Other", "Other")) is None
    path = tmp_path / "s.csv"
    path.write_text("sample_id,rater_1,rater_2,rater_3\n1v1-A,Yes,maybe,No\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"row 2 \(1v1-A\), field 'rater_2': must be Yes, No or Other"):
        read_rater_sheet(path)
    path.write_text("sample_id,rater_1,rater_2\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"lacks the column\(s\) rater_3"):
        read_rater_sheet(path)
    with pytest.raises(SuiteInputError, match=r"--n must be a whole number >= 1"):
        write_rater_sheet(tmp_path / "none.eval", tmp_path / "o.csv", 0, 0)
