"""Every task parameter is checked for type and range (issue 26, item 2): one sentence naming the task, the
parameter and what is allowed, before anything is read or run. inspect parses ``-T`` values as YAML, so the cases
below are what ``-T timeout=abc`` (a string), ``-T calibration=2`` (an integer) and ``-T ids=''`` deliver."""

from __future__ import annotations

import argparse
import inspect

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.params import TaskParams, cli_integer, cli_integers
from causalverify_inspect.task import exp_a, exp_b
from cobe_inspect.task import cobe
from glass_inspect.task import glassgsm, glassmath, noop_audit

CASES = [
    (exp_b, {"timeout": 0}, "exp_b", "timeout", r"a whole number >= 1 and <= 86400, got 0"),
    (exp_b, {"timeout": -5}, "exp_b", "timeout", "got -5"),
    (exp_b, {"timeout": "abc"}, "exp_b", "timeout", "got 'abc'"),
    (exp_b, {"timeout": 2.5}, "exp_b", "timeout", "got 2.5"),
    (exp_b, {"timeout": True}, "exp_b", "timeout", "got True"),
    (exp_b, {"tolerance": "abc"}, "exp_b", "tolerance", r"a number > 0, got 'abc'"),
    (exp_b, {"tolerance": 0}, "exp_b", "tolerance", "got 0"),
    (exp_b, {"tolerance": float("nan")}, "exp_b", "tolerance", "got nan"),
    (exp_b, {"calibration": 2}, "exp_b", "calibration", "true or false, got 2"),
    (
        exp_b,
        {"upstream_wrapper": "maybe"},
        "exp_b",
        "upstream_wrapper",
        r"true or false \(or left unset\), got 'maybe'",
    ),
    (exp_b, {"ids": ""}, "exp_b", "ids", "a non-empty comma-separated list of scenario ids"),
    (exp_b, {"ids": ","}, "exp_b", "ids", "got ','"),
    (exp_b, {"ids": []}, "exp_b", "ids", r"got \[\]"),
    (exp_b, {"es_windows": "weekly"}, "exp_b", "es_windows", "one of strict, cumulative, got 'weekly'"),
    (exp_b, {"scenarios": True}, "exp_b", "scenarios", "a non-empty string"),
    (exp_b, {"responses_model": 5}, "exp_b", "responses_model", "a non-empty string"),
    (exp_b, {"sandbox": 3}, "exp_b", "sandbox", "a non-empty string, got 3"),
    (exp_a, {"contexts": ""}, "exp_a", "contexts", "a non-empty string"),
    (exp_a, {"labels": 7}, "exp_a", "labels", "got 7"),
    (cobe, {"judge_retries": -1}, "cobe", "judge_retries", r"a whole number >= 0 and <= 20, got -1"),
    (cobe, {"judge_retries": "x"}, "cobe", "judge_retries", "got 'x'"),
    (cobe, {"self_judge": "maybe"}, "cobe", "self_judge", "true or false"),
    (cobe, {"judge_cache": 2}, "cobe", "judge_cache", "got 2"),
    (cobe, {"tier": 5}, "cobe", "tier", r"a whole number >= 1 and <= 4, got 5"),
    (cobe, {"tier": "2a"}, "cobe", "tier", "got '2a'"),
    (cobe, {"phrasings": ""}, "cobe", "phrasings", "a non-empty comma-separated list of phrasings"),
    (cobe, {"data": False}, "cobe", "data", "a non-empty string"),
    (glassgsm, {"temperature": "hot"}, "glassgsm", "temperature", r"a number >= 0 and <= 2, got 'hot'"),
    (glassmath, {"temperature": -0.1}, "glassmath", "temperature", "got -0.1"),
    (glassgsm, {"identity": 2}, "glassgsm", "identity", "true or false, got 2"),
    (glassgsm, {"layout": "sample", "draws": 0}, "glassgsm", "draws", "a whole number >= 1, got 0"),
    (glassgsm, {"layout": "sample", "draws": "many"}, "glassgsm", "draws", "got 'many'"),
    (glassgsm, {"corpus": 12}, "glassgsm", "corpus", "a non-empty string"),
    (glassmath, {"identity": "maybe"}, "glassmath", "identity", "got 'maybe'"),
    (glassmath, {"layout": "sample", "draws": -3}, "glassmath", "draws", "got -3"),
    (glassmath, {"corpus": ""}, "glassmath", "corpus", "got ''"),
    (exp_b, {"subset": 0}, "exp_b", "subset", r"a whole number >= 1, got 0"),
    (exp_b, {"subset": 3, "subset_seed": -1}, "exp_b", "subset_seed", r"a whole number >= 0, got -1"),
    (cobe, {"subset": "few"}, "cobe", "subset", "got 'few'"),
    (cobe, {"subset": 2, "subset_seed": 1.5}, "cobe", "subset_seed", "got 1.5"),
    (glassgsm, {"subset": -2}, "glassgsm", "subset", "got -2"),
    (glassgsm, {"subset": 1, "subset_seed": "x"}, "glassgsm", "subset_seed", "got 'x'"),
    (glassmath, {"subset": True}, "glassmath", "subset", "got True"),
    (glassmath, {"subset": 1, "subset_seed": True}, "glassmath", "subset_seed", "got True"),
    (noop_audit, {"corpus": 1}, "noop_audit", "corpus", "a non-empty string"),
    (noop_audit, {"retries": -2}, "noop_audit", "retries", r"a whole number >= 0 and <= 20, got -2"),
    (noop_audit, {"suite": "algebra"}, "noop_audit", "suite", "one of gsm, math, got 'algebra'"),
]


@pytest.mark.parametrize(("task", "args", "name", "param", "allowed"), CASES, ids=lambda c: repr(c)[:40])
def test_a_bad_parameter_is_one_sentence_naming_task_parameter_and_what_is_allowed(task, args, name, param, allowed):
    with pytest.raises(SuiteInputError, match=rf"^Task '{name}': parameter '{param}' must be .*{allowed}") as err:
        task(**args)
    assert "\n" not in str(err.value) and str(err.value).endswith(".")


def test_every_task_parameter_is_covered_by_a_case_or_a_file_check():
    """A new parameter needs a bad-value case above (or is checked by its own reader: a file, a list of doses)."""
    checked = {(name, param) for _, _, name, param, _ in CASES}
    own_readers = {"responses", "judge_prompts", "tier_prompts", "profile", "doses", "families", "choices", "layout"}
    tasks = {"exp_b": exp_b, "exp_a": exp_a, "cobe": cobe, "glassgsm": glassgsm, "glassmath": glassmath}
    for name, task in (tasks | {"noop_audit": noop_audit}).items():
        params = [p for p in inspect.signature(task).parameters if p != "unknown_params"]
        lacking = [p for p in params if (name, p) not in checked and p not in own_readers]
        assert params and not lacking, f"{name}: no bad-value case for {lacking}"


def test_good_values_come_back_in_their_checked_types():
    check = TaskParams("t")
    assert check.boolean("b", True) is True and check.boolean("b", "False") is False
    assert check.boolean("b", None, optional=True) is None
    assert check.integer("n", 5.0, at_least=1) == 5 and check.integer("n", "7") == 7
    assert check.number("x", "0.25", above=0) == 0.25 and check.number("x", 3) == 3.0
    assert check.items("ids", "a, b,,c") == ["a", "b", "c"] and check.items("ids", ["a,b", 3]) == ["a", "b", "3"]
    assert check.items("ids", None) is None
    assert check.choice("c", "x", ("x", "y")) == "x" and check.text("p", None) is None
    with pytest.raises(SuiteInputError, match=r"^Task 't': parameter 'b' must be true or false, got None\.$"):
        check.boolean("b", None)


def test_cli_integers_are_argparse_errors():
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("--n", type=cli_integer(1))
    parser.add_argument("--seeds", type=cli_integers(0), default="0,1")
    assert parser.parse_args(["--n", "3"]).n == 3 and parser.parse_args([]).seeds == [0, 1]
    for argv in (["--n", "0"], ["--n", "x"], ["--seeds", "1,a"], ["--seeds", ","], ["--seeds", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(argv)
        assert exit_.value.code == 2
