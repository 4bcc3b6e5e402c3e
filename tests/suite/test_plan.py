"""`causal-suite plan` against the requests a scripted run of the same settings made (counted from its log)."""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent

from causal_suite.cli import main
from causal_suite.plan import CHARS_PER_TOKEN, MODEL_ROLE, make_plan


def _varied(prompt: str) -> str:
    """A reply that differs per prompt, so no judge call is shared between samples."""
    return f"Rewritten story number {zlib.crc32(prompt.encode())}."


def _logged_requests(log: Any) -> Counter[str]:
    """Model requests per role in a log's samples."""
    return Counter(
        event.role or MODEL_ROLE for sample in log.samples for event in sample.events if isinstance(event, ModelEvent)
    )


def _scripted_run(task: str, task_args: dict, scripted, tmp_path, roles: dict[str, str], **options: Any):
    model = scripted(_varied)  # model.prompts: the texts the model was sent
    model_roles = {role: scripted(reply, name=role) for role, reply in roles.items()}
    sent = {MODEL_ROLE: model.prompts} | {role: m.prompts for role, m in model_roles.items()}
    [log] = eval(
        task,
        task_args=task_args,
        model=model,
        model_roles=model_roles or None,
        display="none",
        log_dir=str(tmp_path),
        **options,
    )
    assert log.status == "success", log.error
    return log, sent


CASES = [
    pytest.param("glass_inspect/glassgsm", {"subset": 1, "doses": "1"}, {}, {"epochs": 2}, id="glass-epochs"),
    pytest.param(
        "glass_inspect/glassmath",
        {"subset": 1, "doses": "1", "layout": "sample", "choices": "false", "draws": 3},
        {},
        {},
        id="glass-sample-per-draw",
    ),
    pytest.param("glass_inspect/noop_audit", {}, {"adjudicator": "VERDICT: PRESERVES"}, {"limit": 3}, id="noop-audit"),
    pytest.param("cobe_inspect/cobe", {"subset": 1}, {"grader": "T"}, {}, id="cobe"),
    pytest.param("causalverify_inspect/exp_a", {}, {}, {"limit": 2}, id="exp-a"),
    pytest.param(
        "causalverify_inspect/exp_b",
        {"subset": 4, "sandbox": "confined", "calibration": True},
        {},
        {},
        id="exp-b",
        marks=[pytest.mark.needs_bwrap, pytest.mark.needs_r],
    ),
]


@pytest.mark.parametrize(("task", "task_args", "roles", "options"), CASES)
def test_plan_counts_the_requests_a_scripted_run_makes(task, task_args, roles, options, scripted, tmp_path):
    log, prompts = _scripted_run(task, task_args, scripted, tmp_path, roles, **options)
    plan = make_plan(task, task_args, "scripted", epochs=options.get("epochs"), limit=options.get("limit"))
    logged = _logged_requests(log)
    planned, planned_max = Counter(), Counter()
    for r in plan.roles:
        planned[r.role] += r.calls
        planned_max[r.role] += r.at_most
    assert plan.samples == len({s.id for s in log.samples})
    assert plan.epochs == max(s.epoch for s in log.samples)  # the epochs the run made
    assert {role: n for role, n in logged.items()} == {role: n for role, n in planned.items() if n}
    assert all(logged[role] <= planned_max[role] for role in planned_max)
    # the prompts planned exactly (not exp_b's calibration call, planned at its longest; not a judge's, which holds
    # a response of unknown length): the estimate is the characters sent (messages joined by a newline: 1 each)
    for r in plan.roles:
        if r.role in (MODEL_ROLE, "adjudicator") and task != "causalverify_inspect/exp_b":
            chars = sum(map(len, prompts[r.role]))
            assert r.input_tokens == pytest.approx(chars / CHARS_PER_TOKEN, abs=len(prompts[r.role]))


def test_plan_bounds_the_re_asks_of_unreadable_replies(scripted, tmp_path):
    """Every adjudicator reply unreadable: each twin is asked 1 + retries times, the plan's at-most."""
    log, _ = _scripted_run(
        "glass_inspect/noop_audit", {"retries": 2}, scripted, tmp_path, {"adjudicator": "?"}, limit=2
    )
    [adjudicator] = make_plan("glass_inspect/noop_audit", {"retries": 2}, "scripted", limit=2).roles
    logged = _logged_requests(log)
    assert (adjudicator.calls, adjudicator.at_most, logged["adjudicator"]) == (2, 6, 6)


def test_plan_command_prints_requests_tokens_and_cost(capsys):
    code = main(
        ["plan", "glassgsm", "-T", "subset=2", "-T", "doses=1", "--model", "m", "--max-tokens", "100"]
        + ["--price-in", "1", "--price-out", "2"]
    )
    out = capsys.readouterr().out
    assert code == 0
    plan = make_plan("glassgsm", {"subset": 2, "doses": 1}, "m", max_tokens=100)
    [model] = plan.roles
    assert model.calls == plan.samples * 5 and model.output_tokens == model.calls * 100
    assert f"model: {model.calls} requests" in out
    assert f"cost: input ~${model.input_tokens / 1e6:.2f}, output <= ${model.output_tokens * 2 / 1e6:.2f}" in out


def test_plan_without_caps_says_output_is_unbounded(capsys):
    assert main(["plan", "cobe", "-T", "subset=1", "--model", "m", "--price-out", "1"]) == 0
    out = capsys.readouterr().out
    assert "unbounded (no cap: pass --role-max-tokens grader=N)" in out and "output unbounded" in out
    assert "cost: input price not given, output unbounded" in out and "$0.00" not in out  # no price, no cost


def test_plan_without_an_output_price_says_so(capsys):
    assert main(["plan", "cobe", "-T", "subset=1", "--model", "m", "--price-in", "1"]) == 0
    assert "output price not given" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["plan", "nosuchtask", "--model", "m"], "No suite task is named 'nosuchtask'"),
        (["plan", "cobe", "-T", "tier", "--model", "m"], "-T 'tier' is not name=value."),
        (["plan", "cobe", "-T", "tier=9", "--model", "m"], "parameter 'tier'"),
        (["plan", "cobe", "--role-max-tokens", "grader=x", "--model", "m"], "must be a whole number >= 1"),
    ],
)
def test_plan_bad_input_is_one_sentence_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
