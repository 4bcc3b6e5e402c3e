"""The E0/E1/E2 judge scorer on hand-made responses with a scripted grader (§3.1, App. D.2)."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai.model import ChatMessageUser, ModelName, ModelOutput
from inspect_ai.model._model import init_model_roles
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import load_records, record_to_samples
from cobe_inspect.prompts import FINAL_STORY_MARKER, JUDGE_RETRY, load_judge_templates
from cobe_inspect.scorers import cobe_judge, judged_text, parse_verdict

RECORD = load_records()[3]  # 504v1: the cracked bridge (chain, connector failure mode vi)
GOOD_REWRITE = (
    "During the morning inspection, engineers found a crack spreading along a weld on the pedestrian bridge. "
    "Despite the crack, the city kept the bridge open, and commuters crossed the river as usual."
)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def check_of(prompt: str) -> str:
    """Which judge check a grader prompt belongs to (by our templates' wording)."""
    if "linking words" in prompt:
        return "E0"
    return "E1" if "must still hold" in prompt else "E2"


def grader_replying(scripted, replies: dict[str, list[str] | str]):
    """A scripted grader answering each check from its own queue (a str answers every time)."""
    queues = {c: list(r) if isinstance(r, list) else None for c, r in replies.items()}

    def reply(prompt: str) -> str:
        check = check_of(prompt)
        return queues[check].pop(0) if queues[check] is not None else replies[check]

    return scripted(reply, name="judge")  # not the model under test (mockllm/model)


def state(completion: str, tier: int = 1, sample_id: str | None = None) -> TaskState:
    phrasing = {1: "A", 2: "D", 3: "H1", 4: "H2"}[tier]
    sample = record_to_samples(RECORD, tier, (phrasing,))[0]
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id=sample_id or sample.id,
        epoch=1,
        input=sample.input,
        messages=[ChatMessageUser(content=sample.input)],
        output=ModelOutput.from_content("mockllm/model", completion),
        metadata=sample.metadata,
    )


async def run(scorer, grader, st: TaskState):
    init_model_roles({"grader": grader})
    return await scorer(st, Target(RECORD.illustrative_answer))


async def test_all_checks_pass(scripted):
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state(GOOD_REWRITE))
    assert score.value == {"E0": 1, "E1": 1, "E2": 1, "correct": 1}
    assert len(grader.prompts) == 3 and sorted(map(check_of, grader.prompts)) == ["E0", "E1", "E2"]
    assert score.metadata["judge_replies"] == {"E0": ["T"], "E1": ["T"], "E2": ["T"]}
    assert score.metadata["grader"] == "mockllm/judge" and score.metadata["self_judged"] is False
    assert score.metadata["judge_prompts"].startswith("cobe-ours-judge sha256:")
    assert score.explanation == "E0=T E1=T E2=T" and score.answer == GOOD_REWRITE
    prompts = {check_of(p): p for p in grader.prompts}
    assert RECORD.preserve in prompts["E1"] and RECORD.change in prompts["E2"]
    assert RECORD.preserve not in prompts["E0"] and RECORD.change not in prompts["E0"]
    assert all(GOOD_REWRITE in p for p in grader.prompts)


@pytest.mark.parametrize("failing", ["E0", "E1", "E2"])
async def test_each_single_check_failing(scripted, failing):
    grader = grader_replying(scripted, {c: "F" if c == failing else "T" for c in ("E0", "E1", "E2")})
    score = await run(cobe_judge(cache=False), grader, state("Because of the crack, the city kept the bridge open."))
    assert score.value == {c: int(c != failing) for c in ("E0", "E1", "E2")} | {"correct": 0}
    assert f"{failing}=F" in score.explanation


async def test_unparsable_reply_recovered_by_retry(scripted):
    grader = grader_replying(scripted, {"E0": "T", "E1": ["True, the facts hold.", "T"], "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state(GOOD_REWRITE))
    assert score.value["correct"] == 1
    assert score.metadata["judge_replies"]["E1"] == ["True, the facts hold.", "T"]
    assert len(grader.prompts) == 4
    retry = [p for p in grader.prompts if JUDGE_RETRY in p]
    assert len(retry) == 1 and "True, the facts hold." in retry[0]


async def test_unrecoverable_reply_is_unscored_with_the_raw_replies(scripted):
    grader = grader_replying(scripted, {"E0": "T", "E1": "F", "E2": "Maybe?"})
    score = await run(cobe_judge(retries=2, cache=False), grader, state(GOOD_REWRITE))
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "grader_failed"
    assert score.metadata["judge_replies"]["E2"] == ["Maybe?"] * 3
    assert score.metadata["judge_replies"]["E1"] == ["F"]
    assert "E2" in score.explanation and "3 attempts" in score.explanation
    assert len(grader.prompts) == 5


async def test_multi_rewrite_response_is_judged_whole(scripted):
    versions = [
        GOOD_REWRITE,
        "Engineers found a crack along a weld on the pedestrian bridge that morning. The city nonetheless left the "
        "bridge open, so commuters kept crossing it.",
        "Though the morning inspection found a spreading crack in a weld, the city kept the pedestrian bridge "
        "open and commuters used it as usual.",
    ]
    response = "\n\n".join(f"Version {i + 1}: {v}" for i, v in enumerate(versions))
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state(response))
    assert score.value["correct"] == 1
    assert all(v in p for v in versions for p in grader.prompts)


def test_parse_verdict_is_strict():
    assert [parse_verdict(r) for r in ("T", "F", " T\n", "\nF ")] == [1, 0, 1, 0]
    for reply in ("t", "f", "True", "T.", "T F", "", "Answer: T", "**T**"):
        assert parse_verdict(reply) is None


async def test_empty_response_fails_preservation_without_judge_calls(scripted):
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state("   "))
    assert score.value == {"E0": 1, "E1": 0, "E2": 1, "correct": 0} and grader.prompts == []


async def test_tier4_judges_only_the_final_story(scripted):
    worked = f"1. Variables: crack, closure.\n2. Graph: crack -> closure.\n{FINAL_STORY_MARKER} {GOOD_REWRITE}"
    assert judged_text(worked, 4) == GOOD_REWRITE
    assert judged_text(worked, 1) == worked and judged_text(GOOD_REWRITE, 4) == GOOD_REWRITE
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state(worked, tier=4))
    assert score.value["correct"] == 1 and score.answer == GOOD_REWRITE
    assert len(grader.prompts) == 3 and all(GOOD_REWRITE in p and "Graph: crack" not in p for p in grader.prompts)
    assert score.metadata["marker_missing"] is False


async def test_a_tier4_reply_without_the_marker_is_judged_whole_and_recorded(scripted):
    worked = f"1. Variables: crack, closure.\n{GOOD_REWRITE}"
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"})
    score = await run(cobe_judge(cache=False), grader, state(worked, tier=4))
    assert score.metadata["marker_missing"] is True and all("Variables: crack" in p for p in grader.prompts)
    other_tier = await run(cobe_judge(cache=False), grader, state(worked, tier=3))
    assert "marker_missing" not in other_tier.metadata


@pytest.mark.parametrize("tier", [1, 2, 3, 4])
async def test_the_judge_query_is_the_rewrite_request_alone(scripted, tmp_path, tier):
    path = tmp_path / "judge.json"
    path.write_text(json.dumps({"E0": "REQUEST<$query> Rewrite: $response_text"}), encoding="utf-8")
    grader = scripted(lambda prompt: "T", name="judge")
    st = state(GOOD_REWRITE, tier=tier)
    await run(cobe_judge(judge_prompts=str(path), cache=False), grader, st)
    [filled] = [p for p in grader.prompts if p.startswith("REQUEST<")]
    shown = filled.removeprefix("REQUEST<").split("> Rewrite: ")[0]
    assert shown == st.metadata["request"] and RECORD.story not in filled
    expected = {1: RECORD.query("A"), 2: "Rewrite the text above to show", 3: "Rewrite the original story for"}
    assert shown.startswith(expected.get(tier, expected[3]))


async def test_identical_prompts_are_sent_once_per_run(scripted):
    grader = grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "F"})
    scorer = cobe_judge(cache=False)
    first = await run(scorer, grader, state(GOOD_REWRITE, sample_id="504v1-A"))
    second = await run(scorer, grader, state(GOOD_REWRITE, sample_id="504v1-B"))
    assert first.value == second.value == {"E0": 1, "E1": 1, "E2": 0, "correct": 0}
    assert len(grader.prompts) == 3


async def test_judge_prompt_file_overrides_templates(scripted, tmp_path):
    path = tmp_path / "judge.json"
    path.write_text(json.dumps({"E1": 'PAPER-STYLE Criterion: "$eq1" Rewrite: $response_text'}), encoding="utf-8")
    grader = scripted(lambda prompt: "T", name="judge")
    score = await run(cobe_judge(judge_prompts=str(path), cache=False), grader, state(GOOD_REWRITE))
    assert score.value["correct"] == 1
    custom = [p for p in grader.prompts if p.startswith("PAPER-STYLE")]
    assert custom == [f'PAPER-STYLE Criterion: "{RECORD.preserve}" Rewrite: {GOOD_REWRITE}']


@pytest.mark.parametrize(
    "content,message",
    [
        ({"E3": "$response_text"}, "unknown key"),
        ({"E0": "Check $response_text against $criteria"}, "unknown placeholder"),
        ({"E2": "Facts: $eq2"}, "never shows the rewrite"),
        ({"E0": ""}, "non-empty string"),
        ("not json", "is not valid JSON"),
    ],
)
def test_bad_judge_prompt_files(tmp_path, content, message):
    path = tmp_path / "judge.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=message):
        load_judge_templates(path)


def test_yaml_judge_prompt_file(tmp_path):
    path = tmp_path / "judge.yaml"
    path.write_text("E0: |\n  Connectors fine? $response_text\n  Reply T or F.\n", encoding="utf-8")
    templates = load_judge_templates(path)
    assert templates["E0"].startswith("Connectors fine?") and "must still hold" in templates["E1"]


async def test_a_judge_call_that_fails_leaves_the_sample_unscored_with_the_error(scripted):
    def reply(prompt: str) -> str:
        if check_of(prompt) == "E1":
            raise RuntimeError("provider unavailable")
        return "T"

    grader = scripted(reply, name="judge")
    score = await run(cobe_judge(cache=False), grader, state(GOOD_REWRITE))
    assert isinstance(score.value, float) and math.isnan(score.value)
    assert score.reason == "grader_error"
    assert "E1: RuntimeError: provider unavailable" in score.explanation
    assert score.metadata["judge_errors"] == ["E1: RuntimeError: provider unavailable"]
    assert score.metadata["judge_replies"]["E0"] == ["T"] and score.metadata["judge_replies"]["E1"] == []


async def test_the_scorer_refuses_to_let_the_model_under_test_judge_unless_told(scripted):
    init_model_roles({})
    with pytest.raises(SuiteInputError, match=r"^CoBe needs a separate judge, but no 'grader' model role is bound"):
        await cobe_judge(cache=False)(state(GOOD_REWRITE), Target(""))
    same = scripted("T")  # mockllm/model: the model under test's own name
    with pytest.raises(SuiteInputError, match=r"role is bound to the model under test \(mockllm/model\)"):
        await run(cobe_judge(cache=False), same, state(GOOD_REWRITE))
    score = await run(cobe_judge(cache=False, self_judge=True), same, state(GOOD_REWRITE))
    assert score.value["correct"] == 1 and score.metadata["self_judged"] is True


async def test_empty_response_records_the_judge_too(scripted):
    score = await run(cobe_judge(cache=False), grader_replying(scripted, {"E0": "T", "E1": "T", "E2": "T"}), state(""))
    assert score.metadata["grader"] == "mockllm/judge" and score.metadata["self_judged"] is False
