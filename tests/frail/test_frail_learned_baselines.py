"""The learned baselines on Synth-CD, where the truth is known: each lands where its design says it should."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from causal_suite.errors import SuiteInputError
from frail.baselines import run_baselines
from frail.cli import main
from frail.estimands import pearson, spearman
from frail.evaluation import _baseline_inputs, family_spearman
from frail.irt import fit_amortized_rasch
from frail.learned_baselines import (
    LEARNED_BASELINES,
    TextEmbedder,
    amortized_irt,
    available_baselines,
    run_learned_baselines,
    score_predictor,
    select_baselines,
    twin_distance_features,
)
from frail.pairs import write_pairs
from frail.promptset import embedding_entropy, prompt_clarity, specificity_ief
from frail.report import load_dataset
from frail.splits import make_split
from frail.synth import generate_bernoulli


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    rows, truth = generate_bernoulli(400, twins_per_dose=3, seed=11)
    path = tmp_path_factory.mktemp("synth") / "synth.jsonl"
    write_pairs(path, rows)
    data = load_dataset([path])
    split = make_split(data.jobs.index, data.fingerprint, 0)
    solv = data.jobs[data.jobs["solvable"]]
    train = solv.loc[[b for b in solv.index if split.role_of(b) != "test"]]
    test = solv.loc[[b for b in solv.index if split.role_of(b) == "test"]]
    fold = [b for b in data.jobs.index if split.role_of(b) != "test"]
    inputs = _baseline_inputs(data, train, test, fold, 0, tuple(LEARNED_BASELINES), "hashing")
    return data, inputs, pd.DataFrame(truth).set_index("base_id"), path


def test_amortized_rasch_recovers_item_difficulty_on_simulated_outcomes():
    rng = np.random.default_rng(3)
    n_jobs, doses, trials = 600, [1, 3, 5, 7, 9], 20
    x = rng.normal(size=(n_jobs, 4))
    w_true, theta_true = np.array([0.8, -0.6, 0.4, 0.0]), np.array([0.0, 0.3, 0.6, 0.9, 1.2])
    beta = x @ w_true - 1.0
    rows = np.repeat(np.arange(n_jobs), len(doses))
    dose = np.tile(doses, n_jobs)
    breaks = rng.binomial(trials, expit(beta[rows] + np.tile(theta_true, n_jobs)))
    model = fit_amortized_rasch(x, rows, dose, breaks, np.full(len(rows), trials), doses)
    # stated tolerance: item difficulty within 0.1 (mean absolute error), dose effects within 0.1
    assert np.mean(np.abs(model.difficulty(x) - beta)) < 0.1
    np.testing.assert_allclose(model.dose_effects, theta_true, atol=0.1)
    assert spearman(model.difficulty(x), beta) > 0.98


def test_amortized_rasch_refuses_outcomes_of_one_kind():
    with pytest.raises(SuiteInputError, match="both broken and kept"):
        fit_amortized_rasch(np.ones((2, 1)), np.array([0, 1]), np.array([1, 1]), np.zeros(2), np.ones(2), [1])


def test_declared_complexity_tracks_c_and_misses_e(synth):
    _, inputs, truth, _ = synth
    pred = run_baselines(inputs.train, inputs.test, ["pi"], 0, names=["complexity"])["complexity"]["pi"]
    t = truth.loc[inputs.test.index]
    assert spearman(pred, t["C"]) > 0.95  # a quadratic in C: monotone on Synth-CD's C range
    assert abs(spearman(pred, t["E"])) < 0.25  # C and E are independent by construction


def test_job_frame_baselines_see_what_synth_cd_lets_them_see(synth):
    _, inputs, truth, _ = synth
    names = ["surface_gbt", "text_length", "base_y"]
    preds = {n: v["pi"] for n, v in run_baselines(inputs.train, inputs.test, ["pi"], 0, names=names).items()}
    t = truth.loc[inputs.test.index]
    # a multi-step sentence carries one number more than a simple one: the surface statistics count C exactly, and
    # the trees' π̂ is a function of C plus the noise of fitting π (0.68 on this set) and blind to E (0.12)
    assert spearman(preds["surface_gbt"], t["C"]) > 0.5 and abs(spearman(preds["surface_gbt"], t["E"])) < 0.25
    # the text's length depends on neither factor by construction, so it cannot rank π
    assert abs(spearman(preds["text_length"], t["pi"])) < 0.25
    # the base is solved at a rate falling with C alone: Ȳ(J) carries C and no E
    assert abs(pearson(preds["base_y"], t["C"].to_numpy())) > 0.3 and abs(spearman(preds["base_y"], t["E"])) < 0.25


def test_twin_distance_rises_with_the_edit_size(synth):
    data, inputs, truth, _ = synth
    ids = list(data.jobs.index)
    obs = data.obs[data.obs["family"] == "irrelevant_context"]
    per_dose = twin_distance_features(obs, ids, data.doses, inputs.embed)[:, : len(data.doses)]
    # irrelevant_context inserts m sentences at dose m: the distance rises with the dose in every job
    rising = [spearman(row, np.array(data.doses, dtype=float)) for row in per_dose]
    assert np.mean([r is not None and r > 0.8 for r in rising]) > 0.9
    rename = data.obs[data.obs["family"] == "entity_rename"]
    renamed = twin_distance_features(rename, ids, data.doses, inputs.embed)[:, -1]
    assert np.mean(renamed < per_dose[:, -1]) > 0.9  # one name changed is a smaller edit than nine sentences added


def test_amortized_irt_and_probe_rank_fragility_on_held_out_jobs(synth):
    _, inputs, truth, _ = synth
    preds = run_learned_baselines(inputs, ["amortized_irt", "embedding_probe"], ["pi", "a", "b"])
    true_pi = truth.loc[inputs.test.index, "pi"]
    # both read the base text, which carries C (multi-step sentences) and E (jargon nouns): π is predictable
    assert spearman(preds["amortized_irt"]["pi"], true_pi) > 0.4
    assert spearman(preds["embedding_probe"]["pi"], true_pi) > 0.4
    assert preds["amortized_irt"]["b"] is None  # one shared dose slope: no per-job b


def test_score_predictor_predicts_hardness_not_expertise(synth):
    data, inputs, truth, _ = synth
    preds = score_predictor(inputs, ["pi"])
    assert preds["pi"] is not None
    t = truth.loc[inputs.test.index]
    # the solve rate falls with C alone: a predicted score carries C and no E
    assert abs(pearson(preds["pi"], t["C"].to_numpy())) > 0.5
    assert abs(spearman(preds["pi"], t["E"])) < 0.25


def test_amortized_irt_with_one_kind_of_outcome_gives_no_prediction(synth):
    _, inputs, _, _ = synth
    obs = inputs.obs.assign(B=0.0)
    from dataclasses import replace

    assert amortized_irt(replace(inputs, obs=obs), ["pi"]) == {"pi": None}


def test_promptset_measures_on_hand_made_texts():
    texts = ["the cat sat", "the cat sat", "the cat sat", "quantum chromodynamics lattice"]
    clarity = prompt_clarity(texts)
    assert clarity[3] > clarity[0] > 0  # rare words diverge more from the collection model
    vectors = {"aa": [1, 0], "bb": [1, 0.01], "cc": [0, 1]}

    def embed(items):
        return np.array([vectors.get(t, [0.5, 0.5]) for t in items], dtype=float)

    # aa and bb are neighbours (cosine > 0.7), cc is alone: cc is the more specific word
    ief = specificity_ief(["aa bb", "cc"], embed)
    assert ief[1] == pytest.approx(np.log(3)) and ief[0] == pytest.approx(np.log(3 / 2))
    entropy = embedding_entropy(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.7, 0.7]]))
    assert entropy.shape == (4,) and np.all((entropy >= 0) & (entropy <= 1 + 1e-9))
    assert entropy[3] > entropy[0]  # the diagonal prompt is equally close to both clusters


def test_family_spearman_per_family_on_a_hand_example():
    obs = pd.DataFrame(
        {
            "base_id": ["j1", "j1", "j2", "j2", "j3", "j3"],
            "family": ["rename", "reorder"] * 3,
            "B": [0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        }
    )
    table = family_spearman(obs, ["j1", "j2", "j3"], {"m": np.array([1.0, 2.0, 3.0])})
    assert table["m"]["rename"] == pytest.approx(spearman(np.array([1, 2, 3.0]), np.array([0, 0, 1.0])))
    assert table["m"]["reorder"] == pytest.approx(spearman(np.array([1, 2, 3.0]), np.array([1, 0, 0.0])))


def test_select_baselines_and_its_refusals():
    assert select_baselines("all") == tuple(available_baselines())
    assert {"bertpe", "vap3", "amortized_irt", "promptset"} <= set(available_baselines())
    assert select_baselines("complexity, amortized_irt,complexity") == ("complexity", "amortized_irt")
    with pytest.raises(SuiteInputError, match="unknown baseline.*bertpee"):
        select_baselines("complexity,bertpee")
    with pytest.raises(SuiteInputError, match="probe_only"):
        select_baselines("probe_only")
    with pytest.raises(SuiteInputError, match="learns from the training texts"):
        TextEmbedder("tfidf_svd")


def test_report_with_all_baselines_writes_the_comparison_table(synth, tmp_path, capsys):
    *_, path = synth
    out = tmp_path / "rep"
    args = ["report", "--pairs", str(path), "--seeds", "0,1", "--out", str(out), "--quiet", "--max-epochs", "10"]
    cheap = [n for n in available_baselines() if n not in ("bertpe", "vap3")]  # those two fine-tune MiniLM
    assert (
        main([*args, "--baselines", ",".join(cheap), "--baseline-encoder", "hashing", "--featurizer", "hashing"]) == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["baselines"] == cheap
    methods = summary["comparison"]["methods"]
    assert set(methods) == {"frail_pi", *cheap}
    pi = methods["complexity"]["targets"]["pi"]
    ceiling = summary["comparison"]["ceiling"]
    assert pi["normalised"]["mean"] == pytest.approx(pi["raw"]["mean"] / ceiling)
    assert methods["complexity"]["published_normalised_pi"]["glassgsm"] == {"mean": 0.207, "sd": 0.060}
    assert methods["complexity"]["abs_corr_pred_C"] > 0.9  # the complexity baseline is C itself
    assert set(summary["aggregate"]["family"]["frail_pi"]) == {
        "entity_rename",
        "sentence_reorder",
        "irrelevant_context",
    }
    text = (out / "report.md").read_text()
    assert "## Comparison table" in text and "| amortized_irt |" in text and "## Per family" in text
    assert methods["complexity"]["targets"]["d_avg"]["raw"]["n"] == 2  # the U-CCD control, both seeds
    assert "d_avg" not in methods["frail_pi"]["targets"]  # Frail-π models solved bases only
    assert "ρ_S(D_avg)" in text
    assert main([*args, "--include-bertpe-vap3", "--baselines", "all"]) == 2
    assert main([*args, "--baselines", "complexity,nonesuch"]) == 2
    assert "unknown baseline(s) nonesuch" in capsys.readouterr().err


def _toy_jobs(n: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Jobs whose π is 0.8 when the text names a storm and 0.1 otherwise; each has two reworded twins."""
    rng = np.random.default_rng(seed)
    stormy = rng.random(n) < 0.5
    ids = [f"s{seed}-{i}" for i in range(n)]
    nouns = ["apples", "boats", "coins", "ropes", "seeds"]
    texts = [
        f"Ana has {rng.integers(2, 90)} {nouns[i % 5]}" + (" during a violent storm." if s else " on a calm day.")
        for i, s in enumerate(stormy)
    ]
    pi = np.where(stormy, 0.8, 0.1) + rng.normal(0, 0.02, n)
    jobs = pd.DataFrame({"base_text": texts, "pi": pi, "a": pi, "b": np.nan}, index=ids)
    obs = pd.DataFrame(
        {
            "base_id": np.repeat(ids, 2),
            "dose": np.tile([1, 3], n),
            "twin_text": [t.replace("Ana", name) for t in texts for name in ("Bo", "Cy")],
        }
    )
    return jobs, obs


@pytest.mark.parametrize("variation_aware", [False, True], ids=["bertpe", "vap3"])
def test_fine_tuned_qpp_encoders_learn_a_textual_cue(variation_aware):
    from frail.qpp_encoders import QppTrainConfig, qpp_predictions

    (train, obs_train), (test, obs_test) = _toy_jobs(32, 0), _toy_jobs(12, 1)
    config = QppTrainConfig(epochs=3, batch_size=8, encoder_lr=1e-4, max_len=24, twins_per_job=1)
    obs = pd.concat([obs_train, obs_test])
    pred = qpp_predictions(train, test, obs, ["pi", "a", "b"], 0, variation_aware, config)
    assert spearman(pred["pi"], test["pi"].to_numpy()) > 0.7  # the storm cue decides π, and the model finds it
    assert pred["b"] is None  # b is undefined on every training job


def test_qpp_prediction_is_the_mean_of_the_head_over_each_jobs_texts():
    import torch

    from frail.qpp_encoders import QppRegressor, QppTrainConfig

    groups = [["Ana has 3 apples.", "Bo has 3 apples today."], ["Cy sails a boat on a calm day."], ["Dee rows", "Eli"]]
    model = QppRegressor(QppTrainConfig(epochs=1, batch_size=2, max_len=24), 1, 0)
    model.fit(groups, np.array([[0.1], [0.5], [0.9]]), variations=1)
    with torch.no_grad():  # each group alone, unpadded by the others: the batched prediction agrees to rounding
        alone = np.array([model.head(model.feat.embed(g)).mean(dim=0).numpy() for g in groups])
    np.testing.assert_allclose(model.predict(groups), alone * model.sd + model.mean, atol=1e-5)


def test_baselines_regress_d_avg_on_every_job_of_the_same_folds(synth):
    from frail.evaluation import SeedResult, _score_control_target

    data, inputs, _, _ = synth
    split = make_split(data.jobs.index, data.fingerprint, 0)
    train_ids = [b for b in data.jobs.index if split.role_of(b) == "train"]
    test_ids = [b for b in data.jobs.index if split.role_of(b) == "test"]
    assert not data.jobs.loc[test_ids, "solvable"].all()  # the control's test fold holds unsolved bases too
    result = SeedResult(seed=0)
    names = ("complexity", "embedding_probe", "amortized_irt")
    _score_control_target(data, result, train_ids, test_ids, names, ("hashing", None))
    held_out = data.jobs.loc[test_ids]
    direct = run_baselines(data.jobs.loc[train_ids], held_out, ["d_avg"], 0, names=["complexity"])
    assert result.spearman["complexity"]["d_avg"] == spearman(direct["complexity"]["d_avg"], held_out["d_avg"])
    solved_only = run_baselines(data.jobs.loc[train_ids][data.jobs.loc[train_ids, "solvable"]], held_out, ["d_avg"], 0)
    assert not np.allclose(solved_only["complexity"]["d_avg"], direct["complexity"]["d_avg"])  # unsolved jobs count
    assert result.spearman["embedding_probe"]["d_avg"] is not None
    assert result.spearman["amortized_irt"]["d_avg"] is None  # its p(J, m) gives π and a only
