"""`frail report` end to end on a small Synth-CD set, the few-solvable message, and `frail evaluate`'s refusal."""

import json

import numpy as np
import pandas as pd
import pytest

from frail.cli import main
from frail.pairs import PairObservation, write_pairs
from frail.synth import generate_bernoulli


@pytest.fixture
def synth_pairs(tmp_path):
    rows, _ = generate_bernoulli(80, twins_per_dose=2, seed=5)
    path = tmp_path / "synth.jsonl"
    write_pairs(path, rows)
    return path


def test_report_writes_summary_markdown_and_plots(synth_pairs, tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(
        [
            "report",
            "--pairs",
            str(synth_pairs),
            "--featurizer",
            "hashing",
            "--seeds",
            "0,1",
            "--out",
            str(out),
            "--max-epochs",
            "15",
            "--save-models",
            "--dump-predictions",
        ]
    )
    assert code == 0
    text = (out / "summary.json").read_text()
    assert "NaN" not in text
    summary = json.loads(text)
    assert summary["status"] == "ok" and summary["doses"] == [1, 3, 5, 7, 9] and len(summary["per_seed"]) == 2
    assert summary["protocol"] == "text" and "probes" not in summary
    agg = summary["aggregate"]
    assert set(agg["spearman"]) == {"frail_pi", "surface_gbt", "complexity", "text_length", "base_y"}
    assert agg["spearman"]["frail_pi"]["pi"]["n"] == 2 and -1 <= agg["spearman"]["frail_pi"]["pi"]["mean"] <= 1
    assert set(agg["orthogonality"]["crd"]) == {"corr_target_C", "corr_pred_C", "corr_pred_C2"}
    for name in (
        "report.md",
        "pi_scatter.png",
        "dose_response.png",
        "orthogonality.png",
        "predictions_seed0.csv",
        "models/frail_pi_seed0.pt",
        "models/frail_pi_seed0.pt.split.json",
    ):
        assert (out / name).exists(), name
    printed = capsys.readouterr().out
    assert "Test-fold Spearman" in printed and "## Reliability" in printed and "## Curation" in printed

    # --dump-predictions: p(J, m) at every design dose, consistent with π̂ (the mean of p over the job's doses:
    # every synthetic job has the same number of twins at each dose)
    pred = pd.read_csv(out / "predictions_seed0.csv")
    p_cols = [f"p_m{m}" for m in (1, 3, 5, 7, 9)]
    assert set(p_cols) <= set(pred.columns) and ((pred[p_cols] > 0) & (pred[p_cols] < 1)).all().all()
    np.testing.assert_allclose(pred[p_cols].mean(axis=1), pred["pi_hat"], rtol=1e-4)
    assert len(pred) == summary["per_seed"][0]["n"]["solvable_test"]

    # reliability: a ceiling in (0, 1], each method's raw mean ρ_S(π) beside ceiling-normalised; no identity twins
    rel = summary["reliability"]
    assert 0 < rel["ceiling"]["ceiling"] <= 1 and rel["ceiling"]["n_jobs"] == summary["n_solvable"]
    cell = rel["spearman_pi"]["frail_pi"]
    assert cell["raw"] == agg["spearman"]["frail_pi"]["pi"]["mean"]
    assert cell["normalised"] == pytest.approx(cell["raw"] / rel["ceiling"]["ceiling"])
    assert "identity_floor" not in rel
    # curation: per seed and aggregated; the oracle bounds every ranking, random is kept / jobs
    seed0 = summary["per_seed"][0]["curation"]
    assert set(seed0["model"]) == {"frail_pi", "complexity"} and seed0["n_jobs"] == len(pred)
    cur = summary["curation"]
    assert cur["n_seeds"] == 2 and set(cur["recall"]) == {"frail_pi", "complexity", "random", "oracle"}
    for k in ("k=5%", "k=10%", "k=20%", "k=50%"):
        for name in ("frail_pi", "complexity", "random"):
            assert cur["recall"][name][k]["mean"] <= cur["recall"]["oracle"][k]["mean"] + 1e-12

    # the saved seed-0 model scores its own test fold, and refuses seed 1's (which it trained on)
    assert (
        main(["evaluate", "--model", str(out / "models/frail_pi_seed0.pt"), "--pairs", str(synth_pairs), "--seed", "0"])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["n_test_solvable"] > 3 and result["spearman"]["pi"] is not None
    assert (
        main(["evaluate", "--model", str(out / "models/frail_pi_seed0.pt"), "--pairs", str(synth_pairs), "--seed", "1"])
        == 2
    )
    assert "refusing to score" in capsys.readouterr().err


def test_fold_free_features_are_computed_once_per_dataset(synth_pairs):
    """hashing learns nothing in fit: its features are shared by the seeds; tfidf_svd is refitted per training fold."""
    from frail.evaluation import run_seed
    from frail.models.pi import PiConfig
    from frail.report import load_dataset
    from frail.splits import make_split

    data, config = load_dataset([synth_pairs]), PiConfig(max_epochs=3)
    first, second = (
        run_seed(data, make_split(data.jobs.index, data.fingerprint, s), "hashing", config) for s in (0, 1)
    )
    assert second.featurizer is first.featurizer and len(data.fold_free_features) == 1
    fresh = load_dataset([synth_pairs])  # no cache: the shared features give the same seed-1 result
    alone = run_seed(fresh, make_split(fresh.jobs.index, fresh.fingerprint, 1), "hashing", config)
    assert alone.spearman == second.spearman and alone.featurizer is not first.featurizer
    tfidf = [run_seed(data, make_split(data.jobs.index, data.fingerprint, s), "tfidf_svd", config) for s in (0, 1)]
    assert tfidf[0].featurizer is not tfidf[1].featurizer and len(data.fold_free_features) == 1


def test_report_with_no_solvable_bases_says_so(tmp_path, capsys):
    rows, _ = generate_bernoulli(30, twins_per_dose=1, seed=0)
    for r in rows:
        r.y_base, r.y_twin = 0.0, 0.0
    path = tmp_path / "unsolved.jsonl"
    write_pairs(path, rows)
    out = tmp_path / "rep"
    assert main(["report", "--pairs", str(path), "--seeds", "0", "--out", str(out), "--quiet"]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "insufficient_data" and "only 0 of 30 bases" in summary["message"]
    assert "No evaluation" in (out / "report.md").read_text()
    assert "only 0 of 30" in capsys.readouterr().err


def test_report_bad_pairs_file_is_one_sentence(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"base_id": "x"}\n')
    assert main(["report", "--pairs", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "line 1: record lacks field(s)" in capsys.readouterr().err


def test_report_without_dump_writes_no_predictions_and_reports_the_identity_floor(synth_pairs, tmp_path):
    from frail.pairs import read_pairs

    rows = read_pairs(synth_pairs)
    solved = sorted({r.base_id for r in rows if r.y_base == 1.0})[:10]
    first = {r.base_id: r for r in rows}
    identity = [
        PairObservation(
            **{
                **first[b].__dict__,
                "twin_id": f"{b}-id",
                "operator": "identity_m1",
                "family": "identity",
                "dose": 1,
                "twin_text": first[b].base_text,
                "y_twin": 0.0 if i == 0 else 1.0,
            }
        )
        for i, b in enumerate(solved)
    ]
    path = tmp_path / "with_identity.jsonl"
    write_pairs(path, rows + identity)
    out = tmp_path / "rep"
    assert (
        main(
            [
                "report",
                "--pairs",
                str(path),
                "--featurizer",
                "hashing",
                "--seeds",
                "0",
                "--out",
                str(out),
                "--max-epochs",
                "5",
                "--quiet",
            ]
        )
        == 0
    )
    assert not list(out.glob("predictions_seed*.csv"))
    summary = json.loads((out / "summary.json").read_text())
    floor = summary["reliability"]["identity_floor"]
    assert floor["identity_twins"] == 10 and floor["breaks"] == 1 and floor["floor"] == pytest.approx(0.1)
    assert "identity-twin floor: 0.100" in (out / "report.md").read_text()


def test_encoder_flags_are_refused_for_cpu_featurizers(synth_pairs, tmp_path, capsys):
    assert (
        main(
            [
                "report",
                "--pairs",
                str(synth_pairs),
                "--featurizer",
                "hashing",
                "--encoder",
                "x",
                "--out",
                str(tmp_path / "r"),
            ]
        )
        == 2
    )
    assert "--encoder apply to the encoder featurizers" in capsys.readouterr().err


def test_frail_tau_command_runs_the_mechanism_check(tmp_path, capsys):
    out = tmp_path / "tau.json"
    assert (
        main(
            ["tau", "--n-jobs", "40", "--data-seed", "3", "--seeds", "0", "--featurizer", "hashing", "--out", str(out)]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "frail_tau_contrast" in printed and "abs_rho_C" in printed
    result = json.loads(out.read_text())
    assert result["per_seed"][0]["n_test_observations"] == 8 * 12


def test_frail_transfer_command(tmp_path, capsys):
    rows, _ = generate_bernoulli(60, twins_per_dose=2, seed=4)
    paths = {}
    for solver, flip in (("a", False), ("b", True)):
        changed = [
            PairObservation(
                **{
                    **r.__dict__,
                    "solver": solver,
                    "y_twin": (1.0 - r.y_twin) if flip and r.dose == 9 and r.y_base == 1.0 else r.y_twin,
                }
            )
            for r in rows
        ]
        paths[solver] = tmp_path / f"{solver}.jsonl"
        write_pairs(paths[solver], changed)
    out = tmp_path / "transfer.json"
    assert (
        main(
            [
                "transfer",
                "--solver",
                f"a={paths['a']}",
                "--solver",
                f"b={paths['b']}",
                "--featurizer",
                "hashing",
                "--max-epochs",
                "5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert [(r["train"], r["test"]) for r in result["transfer"]] == [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]
    assert main(["transfer", "--solver", f"a{paths['a']}", "--solver", f"b={paths['b']}", "--out", str(out)]) == 2
    assert "is not NAME=FILE" in capsys.readouterr().err


def test_cli_offers_encoder_featurizers_without_importing_torch():
    import subprocess
    import sys

    code = (
        "import sys, frail.cli\n"
        "frail.cli.build_parser().parse_args(['report', '--pairs', 'x', '--out', 'y', '--featurizer', 'hf_lora'])\n"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_one_seed_shows_no_spread():
    from frail.comparison import format_mean_sd

    assert format_mean_sd({"mean": 0.41234, "sd": 0.0, "n": 1}) == "0.412 (one seed)"
    assert format_mean_sd({"mean": 0.41234, "sd": 0.05, "n": 3}) == "0.412 ± 0.050"
    assert format_mean_sd({"mean": None, "sd": None, "n": 0}) == format_mean_sd(None) == "n/a"
