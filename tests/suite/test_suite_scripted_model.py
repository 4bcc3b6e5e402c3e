"""The ``scripted/...`` provider: offline smoke tests with no download (usage always set), replies from a file."""

from __future__ import annotations

import json

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import match

from causal_suite.errors import SuiteInputError


def _task(*prompts: str, **config) -> Task:
    return Task(dataset=[Sample(input=p, target="4") for p in prompts], scorer=match(), config=GenerateConfig(**config))


def test_default_reply_runs_a_task_offline(tmp_path):
    log = eval(_task("2 + 2?"), model="scripted/smoke", display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success"
    output = log.samples[0].output
    assert output.completion == "scripted reply" and output.usage.output_tokens == 2


def test_mapping_file_with_fallback_and_several_choices(tmp_path):
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"2 + 2": "The answer is 4", "*": "no idea"}))
    log = eval(
        _task("2 + 2?", "3 + 3?", num_choices=3),
        model="scripted/smoke",
        model_args={"replies": str(replies)},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    outputs = {s.input: s.output for s in log.samples}
    assert outputs["2 + 2?"].completion == "The answer is 4" and outputs["3 + 3?"].completion == "no idea"
    assert len(outputs["2 + 2?"].choices) == 3


async def test_list_of_replies_is_served_in_turn(tmp_path):
    replies = tmp_path / "replies.yaml"
    replies.write_text("- first\n- second\n")
    model = get_model("scripted/turns", replies=str(replies), memoize=False)
    texts = [(await model.generate(f"q{i}")).completion for i in range(3)]
    assert texts == ["first", "second", "second"]


@pytest.mark.parametrize("content", ["{}", "[1, 2]", "{'a': 1}", "not: [valid"])
def test_a_bad_replies_file_is_one_sentence(tmp_path, content):
    bad = tmp_path / "bad.yaml"
    bad.write_text(content)
    with pytest.raises(SuiteInputError, match="bad.yaml"):
        get_model("scripted/bad", replies=str(bad), memoize=False)
