"""End to end: eval() of cobe_inspect/cobe with a scripted respondent and a scripted grader, log read back."""

from __future__ import annotations

import json
import math

import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log

from causal_suite.errors import SuiteInputError
from cobe_inspect.dataset import BUILTIN_DATA
from cobe_inspect.prompts import load_judge_prompts
from cobe_inspect.scorers import cobe_judge


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def respondent_reply(prompt: str) -> str:
    phrasing = "A" if "Rewrite the original text" in prompt else "B" if "Using the text above" in prompt else "C"
    scenario = "S1" if "Maya" in prompt else "S2"
    return f"REWRITE-{phrasing}-{scenario}: a rewritten story."


def grader_reply(prompt: str) -> str:
    if "REWRITE-C-S2" in prompt and "must no longer hold" in prompt:
        return "I am not sure."  # never a letter: this sample ends unscored
    if "REWRITE-B-" in prompt and "must still hold" in prompt:
        return "F"
    return "T"


def test_eval_end_to_end_metrics_in_log_and_rescore_from_cache(scripted, tmp_path):
    data = tmp_path / "two.json"
    data.write_text(json.dumps(json.loads(BUILTIN_DATA.read_text(encoding="utf-8"))[:2]), encoding="utf-8")
    respondent, grader = scripted(respondent_reply), scripted(grader_reply, name="judge")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"data": str(data)},
        model=respondent,
        model_roles={"grader": grader},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    back = read_eval_log(log.location)
    assert back.eval.task_version == "4-A" and len(back.samples) == 6
    assert sorted(s.id for s in back.samples) == sorted(f"{c}v1-{p}" for c in (501, 502) for p in "ABC")

    [result] = back.results.scores
    assert (result.scored_samples, result.unscored_samples) == (5, 1)
    metrics = {name: m.value for name, m in result.metrics.items()}
    # scored: A and C of 501 pass, A of 502 passes, both B fail E1 -> 3/5
    assert metrics["accuracy"] == pytest.approx(0.6)
    assert metrics["E1_failure"] == pytest.approx(0.4) and metrics["E0_failure"] == metrics["E2_failure"] == 0
    assert metrics["phrasing=A"] == 1 and metrics["phrasing=B"] == 0 and metrics["phrasing=C"] == 1
    assert metrics["graph_type=chain"] == pytest.approx(0.6) and metrics["tier=1"] == pytest.approx(0.6)
    assert metrics["domain=Everyday"] == pytest.approx(2 / 3) and metrics["domain=Healthcare"] == pytest.approx(0.5)
    assert metrics["failure_mode=iii"] == pytest.approx(2 / 3) and metrics["failure_mode=ii"] == pytest.approx(0.5)
    assert metrics["phrasing_mean"] == pytest.approx(2 / 3)
    assert metrics["phrasing_std"] == pytest.approx(0.57735, abs=1e-4)  # sample std of (1, 0, 1)
    assert metrics["scenario_accuracy"] == pytest.approx((2 / 3 + 1 / 2) / 2)

    by_id = {s.id: s.scores["cobe_judge"] for s in back.samples}
    assert by_id["501v1-B"].value == {"E0": 1, "E1": 0, "E2": 1, "correct": 0}
    assert by_id["501v1-B"].metadata["judge_replies"]["E1"] == ["F"]
    unscored = by_id["502v1-C"]
    assert unscored.reason == "grader_failed" and unscored.metadata["judge_replies"]["E2"] == ["I am not sure."] * 3
    # cost: 3 grader calls per scored response, plus 2 re-asks for the unscored one's E2
    assert len(respondent.prompts) == 6 and len(grader.prompts) == 5 * 3 + 3 + 2

    # re-scoring the log with the same grader is served from inspect's cache: no new grader calls
    fresh = scripted(grader_reply, name="judge")
    rescored = score(back, cobe_judge(), model_roles={"grader": fresh}, action="overwrite", display="none")
    assert fresh.prompts == []
    [again] = rescored.results.scores
    assert again.metrics["accuracy"].value == pytest.approx(0.6) and again.unscored_samples == 1


def test_eval_tier2_subset_sends_each_distinct_judge_prompt_once(scripted, tmp_path):
    grader = scripted("T", name="judge")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"tier": 2, "phrasings": "E,G"},
        model=scripted("A rewritten story."),
        model_roles={"grader": grader},
        limit=4,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    assert [s.id for s in log.samples] == ["501v1-E", "501v1-G", "502v1-E", "502v1-G"]
    assert log.results.scores[0].metrics["accuracy"].value == 1
    assert log.samples[0].metadata["tier"] == 2 and log.samples[0].metadata["phrasing"] == "E"
    # 4 identical rewrites of 2 scenarios: E0 once, E1 and E2 once per scenario -> 5 calls instead of 12
    assert len(grader.prompts) == 5 and len(set(grader.prompts)) == 5


def test_without_grader_role_the_run_is_refused_in_one_sentence(scripted, tmp_path):
    model = scripted("A rewritten story.")
    with pytest.raises(SuiteInputError) as err:
        eval("cobe_inspect/cobe", model=model, limit=1, display="none", log_dir=str(tmp_path / "logs"))
    message = str(err.value)
    assert message.startswith("CoBe needs a separate judge, but no 'grader' model role is bound")
    assert "-T self_judge=true" in message and "--model-role grader=<model>" in message
    assert message.count(". ") == 0 and message.endswith(".")  # one sentence
    assert model.prompts == []  # refused before any sample ran


def test_a_grader_that_is_the_model_under_test_is_refused_too(scripted, tmp_path):
    model = scripted("A rewritten story.")
    with pytest.raises(SuiteInputError, match="role is bound to the model under test"):
        eval(
            "cobe_inspect/cobe",
            model=model,
            model_roles={"grader": scripted("T")},
            limit=1,
            display="none",
            log_dir=str(tmp_path / "logs"),
        )


def test_a_task_built_before_the_eval_checks_its_judge_when_scoring(scripted, tmp_path):
    from cobe_inspect.task import cobe

    task = cobe()  # outside an eval: no model, no roles yet
    assert task.metadata["judge"]["model"] is None and "checked" in task.metadata["judge"]["note"]
    [log] = eval(
        task,
        model=scripted("A rewritten story."),
        model_roles={"grader": scripted("T", name="judge")},
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and log.samples[0].scores["cobe_judge"].metadata["grader"] == "mockllm/judge"
    [log] = eval(cobe(), model=scripted("A rewritten story."), limit=1, display="none", log_dir=str(tmp_path / "logs2"))
    assert log.status == "error" and "CoBe needs a separate judge" in log.error.message


def test_self_judge_true_lets_the_model_under_test_judge_and_marks_it(scripted, tmp_path):
    model = scripted(lambda prompt: "T" if "Reply with exactly one character" in prompt else "A rewritten story.")
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"self_judge": True},
        model=model,
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and len(model.prompts) == 1 + 3
    score = log.samples[0].scores["cobe_judge"]
    assert score.value["correct"] == 1 and score.metadata["grader"] == "mockllm/model"
    assert score.metadata["self_judged"] is True
    assert log.results.scores[0].metrics["self_judged"].value == 1
    judge = log.eval.metadata["judge"]
    assert judge["model"] == "mockllm/model" and judge["self_judged"] is True


def test_log_records_the_judge_its_config_and_prompt_sets(scripted, tmp_path):
    from inspect_ai.model import GenerateConfig

    grader = scripted("T", name="judge")
    grader.config = GenerateConfig(temperature=0.0, max_tokens=4)
    [log] = eval(
        "cobe_inspect/cobe",
        model=scripted("A rewritten story."),
        model_roles={"grader": grader},
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    judge = read_eval_log(log.location).eval.metadata["judge"]
    assert judge["model"] == "mockllm/judge" and judge["self_judged"] is False
    assert judge["generate_config"] == {"temperature": 0.0, "max_tokens": 4}
    assert judge["prompts"] == {"name": "cobe-ours-judge", "sha256": load_judge_prompts(None).sha256}
    assert judge["paper_judge"] == "Claude-Opus-4.7"
    assert log.eval.metadata["respondent_prompts"]["name"] == "cobe-ours-respondent"
    assert log.results.scores[0].metrics["self_judged"].value == 0


def test_nothing_scored_leaves_every_metric_named_and_nan(scripted, tmp_path):
    grader = scripted("I cannot tell.", name="judge")  # never a letter: the one sample is unscored
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"judge_retries": 0},
        model=scripted("A rewritten story."),
        model_roles={"grader": grader},
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success"
    [result] = log.results.scores
    assert (result.scored_samples, result.unscored_samples) == (0, 1)
    metrics = {name: m.value for name, m in result.metrics.items()}
    rates = ("accuracy", "E0_failure", "E1_failure", "E2_failure", "E4_numeric_failure", "E5_latent_failure")
    with_interval = {f"{r}{s}" for r in rates for s in ("", "_se", "_low", "_high", "_n", "_clusters")}
    assert set(metrics) == with_interval | {
        "accuracy_se_iid",
        "self_judged",
        "marker_missing",
        "marker_missing_n",
        "paper_weighted_accuracy",
        "paper_weighted_accuracy_types",
        "phrasing_mean",
        "scenario_accuracy",
        "domain",
        "graph_type",
        "phrasing",
        "failure_mode",
        "tier",
    }
    # inspect gives metrics the scored samples only: every rate NaN, counted on 0 samples in 0 cores
    assert all(math.isnan(v) if not k.endswith(("_n", "_clusters", "_types")) else v == 0 for k, v in metrics.items())


def test_the_suite_demo_runs_cobe_self_judged(tmp_path, capsys):
    from causal_suite.cli import run_demo

    assert run_demo("scripted/demo", str(tmp_path / "logs"), full=False, only=["cobe"]) == 0
    printed = capsys.readouterr().out
    assert "cobe_inspect/cobe" in printed and "success" in printed
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task_args["self_judge"] is True and log.eval.metadata["judge"]["self_judged"] is True
    # the demo's slice is one whole core example (its three phrasings), not the first samples in file order
    assert log.eval.task_args["subset"] == 1 and len({s.metadata["core_id"] for s in log.samples}) == 1
    assert len(log.samples) == 3
