"""`causal-suite`: the registered tasks, and the demo's results table read from real logs."""

from __future__ import annotations

import math

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, accuracy, scorer

from causal_suite.cli import _headline, main
from causal_suite.registration import demo_plan
from causal_suite.taskdoc import suite_tasks
from causal_suite.unscored import log_unscored

EXPECTED_TASKS = {
    "cobe_inspect/cobe",
    "glass_inspect/glassgsm",
    "glass_inspect/glassmath",
    "glass_inspect/noop_audit",
    "causalverify_inspect/exp_b",
    "causalverify_inspect/exp_a",
}


def test_every_task_registers_under_its_package_namespace(capsys):
    names = set(suite_tasks())
    assert EXPECTED_TASKS <= names
    assert {run.task for run in demo_plan()} <= names
    assert [run.task for run in demo_plan()][-1] == "causalverify_inspect/exp_b"  # it needs R: last
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    assert "cobe_inspect/cobe: CoBe: one sample per (scenario, phrasing)" in out
    assert "  judge_retries (int, default 2): How many times an unreadable judge reply is asked again" in out
    assert "unknown_params" not in out


@scorer(metrics=[accuracy()])
def judged():
    """Scores 1 for 'yes', 0 for 'no', and leaves anything else unscored (NaN), like a failed judge."""

    async def score(state, target: Target) -> Score:
        reply = state.output.completion
        return Score(value={"yes": 1.0, "no": 0.0}.get(reply, math.nan))

    return score


def test_headline_and_unscored_count_from_a_real_log(tmp_path, scripted):
    samples = [Sample(id=i, input=f"q{i}", target="x") for i in range(3)]
    model = scripted({"q0": "yes", "q1": "no", "q2": "garbled"})
    [log] = eval(Task(dataset=samples, scorer=judged()), model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success"
    count = log_unscored(log)
    assert (count.unscored, count.samples, dict(count.reasons)) == (1, 3, {"no reason recorded": 1})
    assert _headline(log, ("accuracy", "absent"), [], count) == "accuracy=0.500"
    log.results.scores[0].metrics["accuracy"].value = 0.5  # a rate with its interval and n beside it in the log
    for suffix, value in (("_low", 0.1), ("_high", 0.9), ("_n", 2.0)):
        log.results.scores[0].metrics[f"accuracy{suffix}"] = (
            log.results.scores[0].metrics["accuracy"].model_copy(update={"name": f"accuracy{suffix}", "value": value})
        )
    assert _headline(log, ("accuracy",), [], count) == "accuracy=0.500 [0.10, 0.90] n=2"
