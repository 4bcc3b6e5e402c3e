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
