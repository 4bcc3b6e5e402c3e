"""Logs say what ran (issue 19, items 2 and 4): the glass draws are inspect's epochs, so ``--epochs 2`` is what the
log header says; every suite task's metrics carry short names (no ``package/`` prefix) with the headline first;
the judge and extractor roles are recorded."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from inspect_ai import eval
from inspect_ai.log import read_eval_log


def metric_names(log) -> list[str]:
    """``EvalMetric.name`` of every metric, in log order (what the viewer shows, headline first)."""
    return [m.name for score in log.results.scores for m in score.metrics.values()]


def rate_names(names: list[str]) -> list[str]:
    """The rates among metric names, without the uncertainty each carries beside it (``_se``, ``_low``, ...)."""
    return [n for n in names if not n.endswith(("_se", "_low", "_high", "_n", "_clusters"))]


def test_cli_epochs_2_is_what_the_glass_log_header_says(tmp_path):
    replies = tmp_path / "replies.yaml"
    replies.write_text(yaml.safe_dump({"*": "The answer is 42.\nANSWER: 42"}), encoding="utf-8")
    command = [sys.executable, "-m", "inspect_ai", "eval", "glass_inspect/glassgsm", "--model", "scripted/smoke"]
    command += ["-M", f"replies={replies}", "--limit", "3", "--epochs", "2", "--log-dir", str(tmp_path / "logs")]
    done = subprocess.run([*command, "--display", "none"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.config.epochs == 2
    assert "epochs" not in log.eval.task_args and log.eval.task_args["draws"] is None  # nothing claims 5
    assert sorted({s.epoch for s in log.samples}) == [1, 2] and len(log.samples) == 6
    assert all(len(r.metadata["answers"]) == 2 for r in log.reductions[0].samples)  # Y over the 2 draws that ran
    names = metric_names(log)
    assert rate_names(names)[:3] == ["break_rate", "base_accuracy", "identity_floor"]
    assert names[:2] == ["break_rate", "break_rate_se"] and not any("/" in n for n in names)
    assert log.eval.headline_metric.metric == "break_rate"  # declared: the viewer's log list shows it


def test_in_sample_draws_are_a_task_argument_of_their_own(tmp_path, scripted):
    from glass_inspect.task import glassgsm

    [log] = eval(
        glassgsm(layout="sample", draws=3), model=scripted("ANSWER: 1"), limit=2, display="none", log_dir=str(tmp_path)
    )
    assert log.eval.config.epochs == 1 and log.eval.task_args["draws"] == 3
    assert log.eval.metadata["glass"]["draws"] == 3
    assert all(len(s.output.choices) == 3 for s in log.samples)


def test_short_metric_names_and_recorded_roles_for_cobe_and_exp_a(tmp_path, scripted):
    [cobe] = eval(
        "cobe_inspect/cobe",
        model=scripted("A rewritten story."),
        model_roles={"grader": scripted("T", name="judge")},
        limit=2,
        display="none",
        log_dir=str(tmp_path),
    )
    assert cobe.status == "success"
    names = metric_names(cobe)
    assert names[0] == "accuracy" and not any("/" in n for n in names)
    assert cobe.eval.headline_metric.metric == "accuracy"
    assert cobe.eval.model_roles["grader"].model == "mockllm/judge"
    assert cobe.eval.metadata["judge"]["model"] == "mockllm/judge"

    [exp_a] = eval(
        "causalverify_inspect/exp_a", model=scripted("A plan."), limit=2, display="none", log_dir=str(tmp_path)
    )
    assert exp_a.status == "success"
    names = metric_names(exp_a)
    assert names[0] == "L3" and not any("/" in n for n in names) and exp_a.eval.headline_metric.metric == "L3"


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_exp_b_records_the_sandbox_that_ran_and_the_extractor(tmp_path, scripted):
    reply = "## 1. Strategy\nDID.\n## 2. Code\n```r\ncat('the effect might be 0.1 or 0.2\\n')\n```\n## 3. Expected\nUp."
    [log] = eval(
        "causalverify_inspect/exp_b",
        task_args={"sandbox": "confined", "ids": "did_easy_01"},
        model=scripted(reply),
        model_roles={"extractor": scripted('{"effect": 0.1, "rationale": "first"}', name="extractor")},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success"
    assert log.eval.sandbox.type == "confined" and log.eval.metadata["sandbox"] == "confined"
    assert log.eval.model_roles["extractor"].model == "mockllm/extractor"
    score = log.samples[0].scores["exp_b_scorer"]
    assert score.metadata["extractor_model"] == "mockllm/extractor"
    names = metric_names(log)
    headline = ["L2b_plus", "L2b_plus_unscored_as_0", "L2b_plus_unscored_as_1", "unscored_share"]
    assert rate_names(names)[:5] == [*headline, "L2b"] and not any("/" in n for n in names)  # bounds beside L2b+
    assert log.eval.headline_metric.metric == "L2b_plus"
