"""The CoBe task runs end to end on the offline default model (respondent and, by fallback, grader)."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval


@pytest.mark.offline_model
@pytest.mark.slow
def test_cobe_runs_on_the_offline_model(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"judge_retries": 0, "self_judge": True},
        model="offline/gemma-3-270m",
        model_args={"n_threads": 1},
        max_tokens=8,
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and len(log.samples) == 1
    score = log.samples[0].scores["cobe_judge"]
    replies = score.metadata["judge_replies"]
    assert set(replies) == {"E0", "E1", "E2"} and all(len(r) == 1 for r in replies.values())
    if isinstance(score.value, dict):  # the base model rarely answers with one letter
        assert set(score.value) == {"E0", "E1", "E2", "correct"}
    else:
        assert math.isnan(score.value) and score.reason == "grader_failed"
    [result] = log.results.scores
    assert result.scored_samples + result.unscored_samples == 1
