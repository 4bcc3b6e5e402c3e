"""``causal-suite score LOG``: a log re-scored with its own scorers and recorded arguments gives the same scores."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from causal_suite.cli import main as cli_main
from causal_suite.errors import SuiteInputError
from causal_suite.rescore import inspect_command, log_scorers


def test_glass_log_rescored_in_place_gives_the_same_scores(scripted, tmp_path, capsys):
    [log] = eval(
        "glass_inspect/glassgsm",
        model=scripted("The answer is 18."),
        limit=12,
        epochs=2,
        display="none",
        log_dir=str(tmp_path),
    )
    before = {(s.id, s.epoch): s.scores["glass_match"].value for s in read_eval_log(log.location).samples}
    out = tmp_path / "rescored.eval"
    assert cli_main(["score", log.location, "--out", str(out)]) == 0
    assert "--scorer glass_inspect/glass_match -S suite=gsm" in capsys.readouterr().out
    rescored = read_eval_log(str(out))
    assert {(s.id, s.epoch): s.scores["glass_match"].value for s in rescored.samples} == before
    assert rescored.results.scores[0].metrics.keys() == log.results.scores[0].metrics.keys()


def test_a_log_of_another_task_is_one_sentence(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match

    [log] = eval(
        Task(dataset=[Sample(input="1+1?", target="2")], scorer=match()),
        model="scripted/x",
        display="none",
        log_dir=str(tmp_path),
    )
    with pytest.raises(SuiteInputError, match="not one of the suite's"):
        log_scorers(read_eval_log(log.location))
    assert inspect_command(read_eval_log(log.location), tmp_path / "x.eval").startswith("inspect score")
