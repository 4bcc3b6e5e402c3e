"""``causal-suite compare``: paired differences on scripted runs (known answers), refusals and partial matches."""

from __future__ import annotations

import logging
import math

import pytest
from inspect_ai import eval
from inspect_ai.scorer import SampleScore, Score

from causal_suite.cli import main as cli_main
from causal_suite.compare import compare_logs, compare_units, units_of
from causal_suite.registration import log_kind

FAMILIES = "entity_rename,irrelevant_context"


def glass_run(log_dir, scripted, fails: str | None, doses: str = "1,3", limit: int = 60) -> str:
    """A glassgsm log of a model that solves every prompt except the twins of family ``fails``."""
    from glass_inspect.task import glassgsm

    task = glassgsm(families=FAMILIES, doses=doses)
    by_prompt = {s.input: s.metadata for s in task.dataset}

    def reply(prompt: str) -> str:
        meta = by_prompt[max((text for text in by_prompt if text in prompt), key=len)]
        wrong = meta["role"] == "twin" and meta["operator"] == fails
        return f"The answer is {'-1' if wrong else meta['answer']}."

    [log] = eval(task, model=scripted(reply), epochs=1, limit=limit, display="none", log_dir=str(log_dir))
    return log.location


@pytest.fixture(scope="module")
def glass_logs(tmp_path_factory, scripted_factory):
    root = tmp_path_factory.mktemp("compare")
    return {
        "fragile": glass_run(root / "a", scripted_factory, fails="irrelevant_context"),
        "robust": glass_run(root / "b", scripted_factory, fails=None),
        "fewer": glass_run(root / "c", scripted_factory, fails=None, limit=40),
    }


def test_glass_difference_by_family_on_scripted_runs(glass_logs):
    table = compare_logs([glass_logs["fragile"], glass_logs["robust"]]).set_index("metric")
    distractor, rename = table.loc["break_rate_irrelevant_context"], table.loc["break_rate_entity_rename"]
    assert (distractor["value_a"], distractor["value_b"], distractor["difference"]) == (1.0, 0.0, -1.0)
    # every base moved by the same amount: the interval is the point, p = 0
    assert distractor["se"] == 0 and distractor["p_value"] == 0 and distractor["clusters"] > 1
    assert (rename["difference"], rename["p_value"]) == (0.0, 1.0)
    assert (
        table.loc["break_rate", "matched"]
        == table.loc["break_rate_m1", "matched"] + table.loc["break_rate_m3", "matched"]
    )
    assert table.loc["break_rate", "low"] <= table.loc["break_rate", "difference"] <= table.loc["break_rate", "high"]
    assert set(table.index) >= {"identity_floor", "base_accuracy"} and (table["model_b"] == "mockllm/model").all()


def test_cli_writes_markdown_csv_and_forest_plot(glass_logs, tmp_path, capsys):
    assert cli_main(["compare", glass_logs["fragile"], glass_logs["robust"], "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| break_rate_irrelevant_context |" in out and "compare.png" in out
    assert (tmp_path / "compare.png").stat().st_size > 1000
    assert "MDD (80 %)" in (tmp_path / "compare.md").read_text()
    assert (tmp_path / "compare.csv").read_text().splitlines()[0].startswith("metric,model_a,model_b,value_a")


def test_partial_match_is_warned_and_compared_on_the_shared_units(glass_logs, caplog):
    with caplog.at_level(logging.WARNING):
        table = compare_logs([glass_logs["robust"], glass_logs["fewer"]]).set_index("metric")
    assert "match on" in caplog.text and "only in the first" in caplog.text
    full = compare_logs([glass_logs["robust"], glass_logs["robust"]]).set_index("metric")
    assert table.loc["break_rate", "matched"] < full.loc["break_rate", "matched"]


def test_logs_that_are_not_comparable_are_refused_in_one_sentence(glass_logs, tmp_path, scripted, capsys):
    other_doses = glass_run(tmp_path / "d", scripted, fails=None, doses="1", limit=10)
    assert cli_main(["compare", glass_logs["robust"], other_doses, "--out", str(tmp_path / "x")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("causal-suite compare: error:") and "corpus/manifest sha256 differs" in error
    assert len(error.splitlines()) == 1 and not (tmp_path / "x").exists()
    assert cli_main(["compare", glass_logs["robust"], "--out", str(tmp_path / "x")]) == 2
    assert "at least two logs" in capsys.readouterr().err


def test_cobe_logs_with_different_judges_are_refused(tmp_path, scripted, capsys):
    logs = []
    for judge in ("grader", "other_grader"):
        [log] = eval(
            "cobe_inspect/cobe",
            model=scripted("A rewritten story."),
            model_roles={"grader": scripted("T", name=judge)},
            limit=2,
            display="none",
            log_dir=str(tmp_path / judge),
        )
        logs.append(log.location)
    assert cli_main(["compare", *logs, "--out", str(tmp_path / "x")]) == 2
    assert "judge differs" in capsys.readouterr().err


def test_epochs_are_reduced_as_the_task_reduces_them(tmp_path, scripted):
    """Two draws per prompt: compare's Y per sample is the log's own modal-answer reduction."""
    from inspect_ai.log import read_eval_log

    from causal_suite.compare import reduced_scores
    from causal_suite.logs import LogReader
    from glass_inspect.task import glassgsm

    task = glassgsm(families=FAMILIES, doses="1", subset=3)
    by_prompt = {s.input: s.metadata for s in task.dataset}
    calls = iter(range(1000))

    def reply(prompt: str) -> str:  # right and wrong in turn: ties, broken by the first epoch's draw
        meta = by_prompt[max((text for text in by_prompt if text in prompt), key=len)]
        return f"The answer is {meta['answer'] if next(calls) % 2 else '-1'}."

    [log] = eval(task, model=scripted(reply), epochs=2, display="none", log_dir=str(tmp_path))
    with LogReader(log.location) as reader:
        header, samples = reader.header, list(reader.samples(inputs=False))
    mine = {s.sample_id: s.score.value for s in reduced_scores(log_kind("glass_inspect/glassgsm"), samples)}
    logged = {s.sample_id: s.value for s in read_eval_log(log.location).reductions[0].samples}
    assert mine == logged and len(samples) == 2 * len(mine) and header.eval.config.epochs == 2
    assert set(mine.values()) == {0.0, 1.0}


def exp_b_scores(passed: list[int]) -> list[SampleScore]:
    return [
        SampleScore(
            score=Score(value={"L1": 1, "L2a": 1, "L2b": 1, "L2b_plus": ok}),
            sample_id=f"s{i}",
            sample_metadata={"family": "DID" if i % 2 else "IV"},
        )
        for i, ok in enumerate(passed)
    ]


def test_exp_b_paired_difference_by_hand():
    exp_b_kind = log_kind("causalverify_inspect/exp_b")
    a, b = exp_b_scores([1, 1, 0, 0, 0, 1]), exp_b_scores([1, 1, 1, 0, 1, 1])
    rows, (matched, only_a, only_b) = compare_units(units_of(exp_b_kind, a), units_of(exp_b_kind, b), "A", "B")
    row = next(r for r in rows if r.metric == "L2b_plus")
    # per-scenario differences (0, 0, 1, 0, 1, 0): mean 1/3, CR1 SE = sqrt(6/5 * sum (d - 1/3)^2) / 6
    assert row.difference == pytest.approx(1 / 3) and (row.matched, row.clusters) == (6, 6)
    assert row.se == pytest.approx(math.sqrt(6 / 5 * (4 * (1 / 3) ** 2 + 2 * (2 / 3) ** 2)) / 6)
    assert row.mdd_80 > row.se and only_a == only_b == 0 and matched > 0
    assert {r.metric for r in rows} >= {"DID_L2b_plus", "IV_L2b_plus", "conditional_pass", "L1"}
