"""``ReportConfig``: the one frozen object ``frail report`` builds and ``run_report`` reads."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from causal_suite.errors import SuiteInputError
from frail.learned_baselines import TextEmbedder
from frail.report_config import ReportConfig


def test_config_normalises_its_fields_and_is_frozen():
    config = ReportConfig(pair_files=["a.jsonl", Path("b.jsonl")], out_dir="out", seeds=[2, 0])
    assert config.pair_files == ("a.jsonl", "b.jsonl") and config.out_dir == Path("out") and config.seeds == (2, 0)
    assert config.baselines is None and config.baseline_encoder == "hf_frozen"
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seeds = (1,)  # type: ignore[misc]
    options = ReportConfig(pair_files=["a"], out_dir="o", featurizer_options={"max_len": 32}).featurizer_options
    with pytest.raises(TypeError):
        options["max_len"] = 64  # type: ignore[index]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"protocol": "pooled"}, "unknown protocol 'pooled'"),
        ({"protocol": "text_probe"}, "needs the base probes"),
        ({"probes": object()}, "--protocol text reads the problem statement only"),
        ({"seeds": ()}, "--seeds is empty"),
        ({"baseline_encoder": "hashing", "baseline_encoder_model": "m"}, "--baseline-encoder hashing does not read"),
    ],
)
def test_config_refuses_inconsistent_options(kwargs, message):
    with pytest.raises(SuiteInputError, match=message):
        ReportConfig(pair_files=["a"], out_dir="o", **kwargs)


def test_default_baseline_embedder_is_the_bundled_minilm():
    embed = TextEmbedder("hf_frozen")
    texts = ["A man is eating food.", "A man is eating a piece of bread.", "Stock markets fell sharply today."]
    x = embed([*texts, texts[0]])
    assert x.shape == (4, 384) and np.array_equal(x[0], x[3])  # a repeated text is encoded once, identically
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    assert unit[0] @ unit[1] > unit[0] @ unit[2] + 0.3


def _tiny_pairs(tmp_path):
    from frail.pairs import write_pairs
    from frail.synth import generate_bernoulli

    rows, _ = generate_bernoulli(40, twins_per_dose=1, seed=5)
    path = tmp_path / "tiny.jsonl"
    write_pairs(path, rows)
    return path


def test_the_named_baseline_encoder_is_read_by_every_encoder_baseline_and_recorded(tmp_path, monkeypatch):
    import json

    import frail.qpp_encoders as qpp
    from frail.cli import main
    from frail.encoders import resolve_encoder

    minilm, _ = resolve_encoder(None)  # the bundled MiniLM, named by its folder
    assert TextEmbedder("hf_frozen", minilm).featurizer.encoder_name == minilm
    seen = []

    def fake_qpp(train, test, obs, targets, seed, variation_aware, config):
        seen.append((variation_aware, config.encoder))
        return dict.fromkeys(targets)

    monkeypatch.setattr(qpp, "qpp_predictions", fake_qpp)  # BERTPE / VAP3 fine-tuning is tested on its own
    out = tmp_path / "rep"
    args = ["report", "--pairs", str(_tiny_pairs(tmp_path)), "--seeds", "0", "--out", str(out), "--quiet"]
    argv = [*args, "--max-epochs", "5", "--baselines", "embedding_probe,bertpe,vap3", "--baseline-encoder-model"]
    assert main([*argv, minilm]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["baseline_encoder_model"] == minilm
    assert summary["per_seed"][0]["spearman"]["embedding_probe"]["pi"] is not None
    assert {encoder for _, encoder in seen} == {minilm} and {aware for aware, _ in seen} == {False, True}


def test_a_bad_baseline_encoder_name_is_one_sentence_before_anything_is_written(tmp_path, capsys):
    from frail.cli import main

    out = tmp_path / "rep"
    args = ["report", "--pairs", str(_tiny_pairs(tmp_path)), "--seeds", "0", "--out", str(out), "--quiet"]
    bad = str(tmp_path / "no-such-encoder")
    assert main([*args, "--baselines", "embedding_probe", "--baseline-encoder-model", bad]) == 2
    err = capsys.readouterr().err
    assert f"encoder path '{bad}' does not exist" in err and err.count("\n") == 1
    assert not out.exists()
