"""Encoder featurizers (hf_frozen, hf_finetune, hf_lora) and joint Frail-π training, on CPU with the bundled MiniLM."""

import pickle

import numpy as np
import pytest
import torch

from causal_suite.errors import SuiteInputError
from frail import embedding_cache
from frail.encoders import HFLora, resolve_encoder
from frail.featurizers import available_featurizers, make_featurizer
from frail.models.pi import DoseCounts, FrailPi
from frail.models.pi_encoder import EncoderTrainConfig, fit_pi_with_encoder
from frail.splits import make_split, read_sidecar, sidecar_path

TEXTS = [
    "Ava has 12 cakes and sells 3 at noon.",
    "Ben buys 40 boxes, then ships 9 of them.",
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "Stock markets fell sharply today.",
    "Cleo plants 7 seeds in each of 5 pots.",
    "Dev earns 20 coins per hour for 6 hours.",
    "Finn reads 15 pages every night for a week.",
]


def _counts(jobs):
    """Two doses per job; the even jobs break often at the high dose."""
    job = np.repeat(np.array(jobs), 2)
    dose = np.tile([1.0, 9.0], len(jobs))
    n = np.full(len(job), 4.0, np.float32)
    k = np.where((job % 2 == 0) & (dose > 5), 3.0, 0.0).astype(np.float32)
    return DoseCounts(job, dose, k, n)


def _cfg(**options):
    return EncoderTrainConfig(
        **{"max_epochs": 1, "jobs_per_batch": 4, "microbatch": 2, "warm_start_head": False, **options}
    )


def test_registered():
    assert {"hf_frozen", "hf_finetune", "hf_lora"} <= set(available_featurizers())


def test_frozen_embeddings_are_real_and_deterministic():
    feat = make_featurizer("hf_frozen", max_len=32)
    x = feat.fit_transform(TEXTS)
    assert x.shape == (len(TEXTS), 384) and x.dtype == np.float32
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    assert unit[2] @ unit[3] > unit[2] @ unit[4] + 0.3  # eating food ~ eating bread, not stock markets
    embedding_cache.clear()  # encode again rather than read the vectors stored by the first call
    assert np.array_equal(make_featurizer("hf_frozen", max_len=32).transform(TEXTS), x)
    assert feat.device_name == ("cuda:0" if torch.cuda.is_available() else "cpu")
    assert not feat.trainable
    with pytest.raises(SuiteInputError, match="is frozen"):
        fit_pi_with_encoder(feat, TEXTS, [1, 9], _counts([0, 1, 2]), _counts([3]))


def test_frozen_encoder_encodes_each_distinct_text_once_per_process():
    embedding_cache.clear()
    first = make_featurizer("hf_frozen", max_len=32).transform([*TEXTS[:5], TEXTS[0]])
    second = make_featurizer("hf_frozen", max_len=32).transform(TEXTS[::-1])  # another baseline, another seed
    [(key, counts)] = embedding_cache.stats().items()
    assert key[:3] == ("hf_frozen", "minilm", 32)
    assert (counts.calls, counts.requested, counts.encoded) == (2, 14, 8)  # 8 distinct texts, each encoded once
    np.testing.assert_array_equal(second[::-1][:5], first[:5])
    longer = make_featurizer("hf_frozen", max_len=64).transform(TEXTS[:1])  # another encoder key: its own table
    assert embedding_cache.stats()[("hf_frozen", "minilm", 64, key[3])].encoded == 1 and longer.shape == (1, 384)
    # length-sorted batches pad each text to its batch's longest; alone, a text has no padding: same vector
    alone = np.vstack(
        [make_featurizer("hf_frozen", max_len=32, batch_size=1).embed([t]).detach().numpy() for t in TEXTS]
    )
    np.testing.assert_allclose(second[::-1], alone, atol=1e-5)
    assert make_featurizer("hf_frozen", max_len=32).transform([]).shape == (0, 384)


def test_embedding_cache_asks_the_encoder_for_missing_distinct_texts_only():
    embedding_cache.clear()
    asked: list[list[str]] = []

    def encode(texts):
        asked.append(list(texts))
        return np.array([[len(t), t.count("a")] for t in texts], dtype=float).reshape(-1, 2)

    x = embedding_cache.cached_embeddings("k", ["aa", "b", "aa"], encode)
    y = embedding_cache.cached_embeddings("k", ["b", "ccc"], encode)
    assert asked == [["aa", "b"], ["ccc"]]
    assert x.dtype == np.float32 and x.tolist() == [[2, 2], [1, 0], [2, 2]] and y.tolist() == [[1, 0], [3, 0]]
    assert embedding_cache.cached_embeddings("k", [], encode).shape == (0, 2)
    assert embedding_cache.cached_embeddings("other", ["b"], encode).tolist() == [[1, 0]]  # tables never mix keys
    assert asked[-1] == ["b"]
    counts = embedding_cache.stats()["k"]
    assert (counts.calls, counts.requested, counts.encoded) == (3, 5, 3)
    embedding_cache.clear()
    assert embedding_cache.stats() == {}


def test_lora_joint_training_saves_and_reloads(tmp_path):
    feat = make_featurizer("hf_lora", seed=0, max_len=32)
    with pytest.raises(SuiteInputError, match="trained together with the Frail-π head"):
        feat.fit(TEXTS).transform(TEXTS)  # a frozen-feature caller must not silently get untrained embeddings
    with torch.no_grad():
        before = feat.embed(TEXTS).numpy()
    base_weight = feat.module.encoder.base_model.model.encoder.layer[0].attention.self.query.base_layer.weight.clone()
    model = fit_pi_with_encoder(feat, TEXTS, [1, 9], _counts(range(6)), _counts([6, 7]), enc=_cfg())
    assert len(model.history) == 1 and len(model.epoch_seconds) == 1
    after = feat.transform(TEXTS)
    assert not np.allclose(before, after)  # adapters moved the embedding
    assert torch.equal(
        base_weight, feat.module.encoder.base_model.model.encoder.layer[0].attention.self.query.base_layer.weight
    )
    p = model.predict_p(after)
    assert p.shape == (len(TEXTS), 2) and ((p > 0) & (p < 1)).all()

    split = make_split([f"b{i}" for i in range(10)], "f" * 64, seed=0)
    adapter = feat.save_adapter(tmp_path / "adapter", split)
    assert (adapter / "adapter_model.safetensors").exists()
    assert read_sidecar(adapter)["fingerprint"] == "f" * 64
    fresh = make_featurizer("hf_lora", seed=0, max_len=32)
    with torch.no_grad():
        assert not np.allclose(fresh.embed(TEXTS).numpy(), after)
    np.testing.assert_allclose(fresh.load_adapter(adapter).transform(TEXTS), after, atol=1e-5)

    saved = model.save(tmp_path / "pi.pt", split, feat)  # pickles the featurizer with its adapter weights only
    assert sidecar_path(saved).exists()
    loaded, loaded_feat = FrailPi.load(saved)
    np.testing.assert_allclose(loaded.predict_p(loaded_feat.transform(TEXTS)), p, atol=1e-5)
    assert len(pickle.dumps(feat)) < 2_000_000  # adapter, not the 90 MB base


def test_finetune_updates_every_layer():
    feat = make_featurizer("hf_finetune", seed=0, max_len=32)
    feat.fit(TEXTS)
    first = feat.module.encoder.encoder.layer[0].attention.self.query.weight.clone()
    fit_pi_with_encoder(feat, TEXTS, [1, 9], _counts(range(6)), _counts([6, 7]), enc=_cfg())
    assert feat.encoder_lr == 2e-5
    assert not torch.equal(first, feat.module.encoder.encoder.layer[0].attention.self.query.weight)


def test_warm_start_is_the_frozen_probe():
    """With no joint epoch, the warm-started model is Frail-π trained on the untouched encoder's embeddings."""
    lora = make_featurizer("hf_lora", seed=0, max_len=32)
    model = fit_pi_with_encoder(
        lora, TEXTS, [1, 9], _counts(range(6)), _counts([6, 7]), enc=_cfg(max_epochs=0, warm_start_head=True)
    )
    frozen = make_featurizer("hf_frozen", seed=0, max_len=32)
    x = frozen.fit_transform(TEXTS)
    probe = FrailPi(x.shape[1], [1, 9]).fit(x, _counts(range(6)), _counts([6, 7]))
    np.testing.assert_allclose(model.predict_p(lora.transform(TEXTS)), probe.predict_p(x), atol=1e-5)


def test_bad_encoder_inputs(tmp_path):
    with pytest.raises(SuiteInputError, match="does not exist"):
        resolve_encoder(str(tmp_path / "no-such-encoder"))
    with pytest.raises(SuiteInputError, match="no config.json"):
        resolve_encoder(str(tmp_path))
    with pytest.raises(SuiteInputError, match="download it into a folder"):
        make_featurizer("hf_frozen", encoder="nobody-here/not-a-model", local_files_only=True).fit(TEXTS)
    with pytest.raises(SuiteInputError, match="no attention layers named q_proj"):
        HFLora(target_modules=("q_proj", "v_proj"), max_len=32).fit(TEXTS)
    with pytest.raises(SuiteInputError, match="not a saved LoRA adapter"):
        make_featurizer("hf_lora", max_len=32).load_adapter(tmp_path)


@pytest.mark.parametrize("featurizer", ["hf_frozen", "hf_lora"])
def test_frail_report_runs_with_encoder_featurizers(featurizer, tmp_path, capsys):
    """`frail report --featurizer hf_*` end to end on a tiny Synth-CD set (LoRA: one joint epoch, warm-started head)."""
    import json

    from frail.cli import main
    from frail.pairs import write_pairs
    from frail.synth import generate_bernoulli

    rows, _ = generate_bernoulli(40, twins_per_dose=1, seed=5)
    pairs = tmp_path / "tiny.jsonl"
    write_pairs(pairs, rows)
    out = tmp_path / "rep"
    assert (
        main(
            [
                "report",
                "--pairs",
                str(pairs),
                "--featurizer",
                featurizer,
                "--seeds",
                "0",
                "--out",
                str(out),
                "--max-epochs",
                "5",
                "--max-len",
                "48",
                "--device",
                "cpu",
                "--encoder-max-epochs",
                "1",
                "--jobs-per-batch",
                "16",
                "--encoder-microbatch",
                "8",
                "--quiet",
                "--save-models",
            ]
        )
        == 0
    )
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "ok" and summary["featurizer"] == featurizer
    assert summary["featurizer_options"] == {"max_len": 48, "device": "cpu"}
    seed0 = summary["per_seed"][0]
    assert seed0["skipped"] is None and -1 <= seed0["spearman"]["frail_pi"]["pi"] <= 1
    if featurizer == "hf_lora":  # one joint epoch, timed
        assert seed0["epochs"] == 1 and seed0["epoch_seconds"] > 0
    else:
        assert seed0["epoch_seconds"] is None
    assert (out / "models/frail_pi_seed0.pt").exists() and "## Curation" in (out / "report.md").read_text()
    # the saved model (head + pickled featurizer with its trained adapter) reproduces its test-fold score
    assert (
        main(["evaluate", "--model", str(out / "models/frail_pi_seed0.pt"), "--pairs", str(pairs), "--seed", "0"]) == 0
    )
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["spearman"]["pi"] == pytest.approx(seed0["spearman"]["frail_pi"]["pi"], abs=1e-6)


def test_text_probe_protocol_with_a_jointly_trained_encoder(tmp_path, capsys):
    """hf_lora under text_probe: the head reads the embedding plus the standardised probes; the saved model
    evaluates to the report's test-fold Spearman."""
    import json

    import torch

    from frail.cli import main
    from frail.pairs import write_pairs
    from frail.synth import generate_bernoulli

    rows, _ = generate_bernoulli(40, twins_per_dose=1, seed=5)
    pairs = tmp_path / "tiny.jsonl"
    write_pairs(pairs, rows)
    probes = tmp_path / "probes.json"
    assert main(["probes", str(pairs), "--out", str(probes)]) == 0
    out = tmp_path / "rep"
    assert (
        main(
            [
                "report",
                "--pairs",
                str(pairs),
                "--featurizer",
                "hf_lora",
                "--seeds",
                "0",
                "--out",
                str(out),
                "--protocol",
                "text_probe",
                "--probe-file",
                str(probes),
                "--max-epochs",
                "5",
                "--max-len",
                "48",
                "--device",
                "cpu",
                "--encoder-max-epochs",
                "1",
                "--jobs-per-batch",
                "16",
                "--encoder-microbatch",
                "8",
                "--quiet",
                "--save-models",
            ]
        )
        == 0
    )
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["protocol"] == "text_probe" and summary["per_seed"][0]["epochs"] == 1
    state = torch.load(out / "models/frail_pi_seed0.pt", weights_only=False)
    assert state["in_dim"] == 384 + 1 and state["probe"]["features"] == ["accuracy"]  # MiniLM embedding + probe
    assert (
        main(
            [
                "evaluate",
                "--model",
                str(out / "models/frail_pi_seed0.pt"),
                "--pairs",
                str(pairs),
                "--probe-file",
                str(probes),
            ]
        )
        == 0
    )
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["spearman"]["pi"] == pytest.approx(summary["per_seed"][0]["spearman"]["frail_pi"]["pi"], abs=1e-6)
