"""Frail-τ: invariance regulariser, contrast and ex-ante heads, curriculum, and the Synth-CD check plumbing."""

import numpy as np
import pytest
import torch

from causal_suite.errors import SuiteInputError
from frail.cli import main
from frail.estimands import observations_frame, spearman
from frail.featurizers import make_featurizer
from frail.models.tau import FrailTau, TauConfig, TauData
from frail.pairs import write_pairs
from frail.synth import generate_bernoulli, generate_continuous
from frail.tau_eval import tau_check

DIM = 12


def _pairs(n_jobs: int, seed: int, twins: int = 4) -> tuple[TauData, np.ndarray]:
    """Column 0 carries C; a twin shifts C's column (a complexity-coded surface edit) and surface columns 1-3.

    The true per-twin effect is Δ = 2·(twin's change in columns 1-3 summed), independent of C.
    """
    rng = np.random.default_rng(seed)
    c = rng.uniform(0, 1, n_jobs)
    x = rng.normal(size=(n_jobs, DIM))
    x[:, 0] = 3 * c
    job = np.repeat(np.arange(n_jobs), twins)
    edit = rng.normal(size=(len(job), DIM)) * 0.5
    x_twin = x[job] + edit
    delta = 2 * edit[:, 1:4].sum(axis=1) * -1
    return TauData(x[job], x_twin, delta, job, c), c


@pytest.mark.parametrize("encoder", ["linear", "mlp"])
def test_invariance_loss_decreases_on_constructed_pairs(encoder):
    train, _ = _pairs(60, 0)
    val, _ = _pairs(20, 1)

    def final_invariance(lambda_inv: float) -> tuple[float, float]:
        model = FrailTau(
            DIM,
            TauConfig(encoder=encoder, lambda_inv=lambda_inv, representation_epochs=60, calibration_epochs=0, seed=3),
        )
        xb, xt = (torch.from_numpy(a.astype(np.float32)) for a in (train.x_base, train.x_twin))
        with torch.no_grad():
            start = float(model.net.invariance(model.net.encoder(xb), model.net.encoder(xt)))
        model.fit(train, val)
        model.net.eval()
        with torch.no_grad():
            return start, float(model.net.invariance(model.net.encoder(xb), model.net.encoder(xt)))

    start, end = final_invariance(5.0)
    # the edit moves C's own column, so a linear encoder cannot both keep C readable and cancel it in h − h′:
    # it trades the two off; an MLP can do both
    assert end < (0.5 if encoder == "mlp" else 0.75) * start
    assert end < final_invariance(0.0)[1]


def test_two_stage_curriculum_runs_both_stages():
    train, _ = _pairs(30, 4)
    val, _ = _pairs(10, 5)
    model = FrailTau(DIM, TauConfig(representation_epochs=3, calibration_epochs=3, seed=0)).fit(train, val)
    assert [len(v) for v in model.history.values()] == [3, 3, 3]
    assert all(np.isfinite(v).all() for v in model.history.values())


def test_contrast_head_recovers_planted_effect_and_is_deterministic():
    train, _ = _pairs(100, 0)
    val, _ = _pairs(30, 1)
    test, _ = _pairs(60, 2)
    cfg = TauConfig(representation_epochs=3, calibration_epochs=60, patience=20, seed=0)
    pred = FrailTau(DIM, cfg).fit(train, val).predict(test)
    assert spearman(pred["contrast_obs"], test.delta) > 0.8
    assert pred["contrast"].shape == pred["ex_ante"].shape == (60,)
    again = FrailTau(DIM, cfg).fit(train, val).predict(test)
    np.testing.assert_array_equal(pred["contrast_obs"], again["contrast_obs"])


def test_bad_input():
    train, _ = _pairs(20, 0)
    empty = TauData(train.x_base[:0], train.x_twin[:0], train.delta[:0], train.job[:0], train.c_job)
    with pytest.raises(SuiteInputError, match="both the training and validation"):
        FrailTau(DIM).fit(train, empty)
    with pytest.raises(SuiteInputError, match="no non-identity twins"):
        rows, _ = generate_continuous(2, 0)
        for r in rows:
            r.family = "identity"
        observations_frame(rows)


def test_synth_mechanism_check_reports_every_method():
    rows, truth = generate_continuous(40, 3)
    cfg = TauConfig(representation_epochs=2, calibration_epochs=5, seed=0)
    out = tau_check(rows, [0], "hashing", cfg, truth)
    assert {"frail_tau_contrast", "frail_tau_ex_ante", "complexity", "surface_gbt", "oracle_d_perp"} <= set(
        out["mean"]["job"]
    )
    assert {"surface_gbt_resid", "frail_tau_ex_ante_resid"} <= set(out["mean"]["job"])  # explicit residualisation
    assert not any(m.endswith("_resid") for m in out["mean"]["observation"])
    oracle = out["mean"]["job"]["oracle_d_perp"]
    assert oracle["spearman_d_perp"] == pytest.approx(1.0)
    assert out["headline"]["sampling_floor_abs_rho_C"] == oracle["abs_rho_C"]
    assert out["headline"]["best_baseline"]["name"] not in ("frail_tau_contrast", "oracle_d_perp")
    assert {"frail_tau_contrast", "operator_mean", "complexity"} <= set(out["mean"]["observation"])
    assert out["mean"]["job"]["complexity"]["abs_rho_C"] == pytest.approx(1.0)  # quadratic in C, monotone on [0, 1]
    seed0 = out["per_seed"][0]
    assert seed0["n_test_jobs"] == 8 and seed0["n_test_observations"] == 8 * 12


def _edited_pairs(encoder: str) -> np.ndarray:
    """Frail-τ (bow_svd features) on Synth-CD, then Δ̂ for one edit applied to two unrelated bases."""
    rows, truth = generate_continuous(40, 3)
    frame = observations_frame(rows)
    edit = " A neighbour once saw 12 buns at the market."
    bases = [rows[0].base_text, rows[-1].base_text]  # jobs with different C and nouns
    texts = sorted(set(frame["base_text"]) | set(frame["twin_text"])) + [b + edit for b in bases]
    feat = make_featurizer("bow_svd").fit(texts)
    x = dict(zip(texts, feat.transform(texts), strict=False))
    job_of = {b: i for i, b in enumerate(sorted(set(frame["base_id"])))}
    c_job = frame.groupby("base_id")["C"].first().to_numpy()
    data = TauData(
        np.stack([x[t] for t in frame["base_text"]]),
        np.stack([x[t] for t in frame["twin_text"]]),
        frame["delta"].to_numpy(),
        frame["base_id"].map(job_of).to_numpy(),
        c_job,
    )
    model = FrailTau(data.x_base.shape[1], TauConfig(encoder=encoder, representation_epochs=2, calibration_epochs=5))
    model.fit(data, data)
    probe = TauData(
        np.stack([x[b] for b in bases]),
        np.stack([x[b + edit] for b in bases]),
        np.zeros(2),
        np.arange(2),
        np.array([rows[0].complexity_score, rows[-1].complexity_score]),
    )
    return model.predict(probe)["contrast_obs"]


def test_linear_encoder_on_additive_features_reads_the_edit_alone():
    """h − h′ = W(φ(J) − φ(T(J))) with φ linear in word counts: the same edit of two different bases gets the same Δ̂,
    whatever else (complexity included) the bases say; an MLP encoder does not have this property."""
    same = _edited_pairs("linear")
    assert same[0] == pytest.approx(same[1], abs=1e-5)
    different = _edited_pairs("mlp")
    assert abs(different[0] - different[1]) > 1e-4


def test_unknown_encoder_kind_is_refused():
    with pytest.raises(SuiteInputError, match="encoder 'rnn' is unknown"):
        FrailTau(DIM, TauConfig(encoder="rnn"))


def test_u_ccd_control_on_pairs_without_truth(tmp_path, capsys):
    rows, _ = generate_bernoulli(40, 1, seed=2)
    path = tmp_path / "pairs.jsonl"
    write_pairs(path, rows)
    out = tmp_path / "tau.json"
    assert main(["tau", "--pairs", str(path), "--seeds", "0", "--out", str(out)]) == 0
    import json

    result = json.loads(out.read_text())
    assert result["target"] == "d_avg" and result["headline"]["target"] == "d_avg"
    assert "oracle_d_perp" not in result["mean"]["job"] and "sampling_floor_abs_rho_C" not in result["headline"]
    assert result["data"] == {"pairs": [str(path)]}
    assert "headline (job level, target d_avg)" in capsys.readouterr().out


def test_tau_cli_refuses_encoder_flags_on_a_word_featurizer(capsys):
    assert main(["tau", "--n-jobs", "20", "--encoder", "some/model"]) == 2
    assert "--encoder apply to the encoder featurizers" in capsys.readouterr().err


def test_tau_refuses_a_trainable_featurizer(capsys):
    assert main(["tau", "--n-jobs", "20", "--featurizer", "hf_lora"]) == 2
    assert "Frail-τ trains its own shared encoder over frozen features" in capsys.readouterr().err


def test_fold_free_features_are_computed_once_for_all_seeds(monkeypatch):
    from frail.featurizers import Hashing

    calls = []
    original = Hashing.transform
    monkeypatch.setattr(Hashing, "transform", lambda self, texts: calls.append(len(texts)) or original(self, texts))
    rows, truth = generate_continuous(30, 3)
    tau_check(rows, [0, 1], "hashing", TauConfig(representation_epochs=1, calibration_epochs=2), truth)
    assert len(calls) == 1  # one pass over every base and twin text, shared by both seeds
