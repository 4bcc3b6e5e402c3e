"""`frail report` end to end on a small Synth-CD set, the few-solvable message, and `frail evaluate`'s refusal."""

import json

import pytest

from frail.cli import main
from frail.pairs import write_pairs
from frail.synth import generate_bernoulli


@pytest.fixture
def synth_pairs(tmp_path):
    rows, _ = generate_bernoulli(80, twins_per_dose=2, seed=5)
    path = tmp_path / "synth.jsonl"
    write_pairs(path, rows)
    return path


def test_report_writes_summary_markdown_and_plots(synth_pairs, tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(["report", "--pairs", str(synth_pairs), "--featurizer", "hashing", "--seeds", "0,1",
                 "--out", str(out), "--max-epochs", "15", "--save-models"])
    assert code == 0
    text = (out / "summary.json").read_text()
    assert "NaN" not in text
    summary = json.loads(text)
    assert summary["status"] == "ok" and summary["doses"] == [1, 3, 5, 7, 9] and len(summary["per_seed"]) == 2
    agg = summary["aggregate"]
    assert set(agg["spearman"]) == {"frail_pi", "surface_gbt", "complexity", "text_length", "base_y"}
    assert agg["spearman"]["frail_pi"]["pi"]["n"] == 2 and -1 <= agg["spearman"]["frail_pi"]["pi"]["mean"] <= 1
    assert set(agg["orthogonality"]["crd"]) == {"corr_target_C", "corr_pred_C", "corr_pred_C2"}
    for name in ("report.md", "pi_scatter.png", "dose_response.png", "orthogonality.png", "predictions_seed0.csv",
                 "models/frail_pi_seed0.pt", "models/frail_pi_seed0.pt.split.json"):
        assert (out / name).exists(), name
    assert "Test-fold Spearman" in capsys.readouterr().out

    # the saved seed-0 model scores its own test fold, and refuses seed 1's (which it trained on)
    assert main(["evaluate", "--model", str(out / "models/frail_pi_seed0.pt"), "--pairs", str(synth_pairs), "--seed", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n_test_solvable"] > 3 and result["spearman"]["pi"] is not None
    assert main(["evaluate", "--model", str(out / "models/frail_pi_seed0.pt"), "--pairs", str(synth_pairs), "--seed", "1"]) == 2
    assert "refusing to score" in capsys.readouterr().err


def test_report_with_no_solvable_bases_says_so(tmp_path, capsys):
    rows, _ = generate_bernoulli(30, twins_per_dose=1, seed=0)
    for r in rows:
        r.y_base, r.y_twin = 0.0, 0.0
    path = tmp_path / "unsolved.jsonl"
    write_pairs(path, rows)
    out = tmp_path / "rep"
    assert main(["report", "--pairs", str(path), "--seeds", "0", "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "insufficient_data" and "only 0 of 30 bases" in summary["message"]
    assert "No evaluation" in (out / "report.md").read_text()
    assert "only 0 of 30" in capsys.readouterr().err


def test_report_bad_pairs_file_is_one_sentence(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"base_id": "x"}\n')
    assert main(["report", "--pairs", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "line 1: record lacks field(s)" in capsys.readouterr().err
