"""The demo explains itself: progress per finished sample, a footnote for every nan, relative paths, next steps."""

from __future__ import annotations

import math

from causal_suite.demo_view import next_block, undefined_note
from causal_suite.unscored import UnscoredCount, count_unscored


def test_the_demo_shows_progress_footnotes_relative_paths_and_next_steps(tmp_path, monkeypatch, capsys):
    from causal_suite.cli import run_demo

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CAUSAL_SUITE_TIMES", str(tmp_path / "times.tsv"))  # benchmarks/first_run.sh's phase rows
    assert run_demo("scripted/demo", "logs/demo", full=False, only=["cobe"]) == 0
    captured = capsys.readouterr()
    assert "[demo] task 1/1: cobe_inspect/cobe" in captured.err
    assert "[demo] cobe_inspect/cobe: 3/3 samples" in captured.err  # one core example, three phrasings
    out = captured.out
    [row] = [line for line in out.splitlines() if line.startswith("cobe_inspect/cobe")]
    assert " logs/demo/" in row and str(tmp_path) not in out  # the log path relative to where the demo ran
    assert "accuracy=nan[1]" in row  # the scripted model's replies are no verdicts: every sample unscored
    assert "[1] accuracy is nan: 3 of 3 samples unscored (grader_failed: 3), so no sample is left to score" in out
    assert out.rstrip().endswith(next_block("logs/demo"))
    assert "samples (3 unscored) / " in row and " s CPU" in row and "\ndemo: " in out and "(load average " in out
    [phase] = (tmp_path / "times.tsv").read_text().splitlines()
    name, wall, cpu = phase.split("\t")
    assert name == "demo: cobe_inspect/cobe" and float(wall) > 0 and float(cpu) >= 0


def test_a_conditional_rate_with_no_qualifying_sample_is_explained():
    count = UnscoredCount(samples=6, reasons=count_unscored([]).reasons)
    note = undefined_note("break_rate", {"break_rate": math.nan, "break_rate_n": 0.0}, count)
    assert note is not None and "no sample it is defined on (n = 0" in note
    assert undefined_note("base_accuracy", {"base_accuracy": 0.0}, count) is None
    assert undefined_note("absent", {}, count) is None
    unexplained = undefined_note("score", {"score": math.nan}, count)  # no _n, samples scored: no reason to give
    assert unexplained == "score is nan, for no reason the log records (0 of 6 samples unscored)"


def test_an_unscored_draw_in_a_later_epoch_is_counted():
    from types import SimpleNamespace

    from inspect_ai.scorer import Score

    def sample(epoch: int, value: float, reason: str | None = None) -> SimpleNamespace:
        score = Score.unscored(reason=reason) if reason else Score(value=value)
        return SimpleNamespace(epoch=epoch, scores={"s": score})

    samples = [sample(1, 1.0), sample(2, math.nan, "judge unreadable"), sample(1, 0.0), sample(2, 1.0)]
    count = count_unscored(samples)
    assert (count.samples, count.unscored, count.epochs) == (4, 1, 2)
    assert count.describe() == "1 of 4 sample-epochs (2 epochs) unscored (judge unreadable: 1)"
    assert count_unscored(samples[::2]).describe() == "0 of 2 samples unscored"
