"""Every suite eval ends with its unscored count and reasons on the terminal (the causal_suite.unscored hook)."""

from __future__ import annotations

from inspect_ai import eval


def _cobe(scripted, tmp_path, display: str, verdict: str) -> None:
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"subset": 1, "judge_retries": 0, "judge_cache": False},
        model=scripted("A rewritten story."),
        model_roles={"grader": scripted(verdict, name="grader")},
        display=display,
        log_dir=str(tmp_path),
    )
    assert log.status == "success"


def test_a_shown_eval_ends_with_its_unscored_count_and_reasons(scripted, tmp_path, capsys):
    _cobe(scripted, tmp_path, "plain", "no verdict")
    assert "cobe_inspect/cobe: 3 of 3 samples unscored (grader_failed: 3)" in capsys.readouterr().err
    _cobe(scripted, tmp_path, "plain", "T")
    assert "cobe_inspect/cobe: 0 of 3 samples unscored\n" in capsys.readouterr().err


def test_a_quiet_eval_stays_quiet(scripted, tmp_path, capsys):
    _cobe(scripted, tmp_path, "none", "no verdict")
    assert "unscored" not in capsys.readouterr().err
