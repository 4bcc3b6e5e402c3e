"""``causal-suite score LOG``: a log re-scored with its own scorers and recorded arguments gives the same scores."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from causal_suite.cli import main as cli_main
from causal_suite.errors import SuiteInputError
from causal_suite.rescore import inspect_command, log_scorers


def glass_log(scripted, log_dir, limit: int):
    """A scripted glassgsm run of ``limit`` samples, two draws each."""
    [log] = eval(
        "glass_inspect/glassgsm",
        model=scripted("The answer is 18."),
        limit=limit,
        epochs=2,
        display="none",
        log_dir=str(log_dir),
    )
    return log


def glass_scores(location) -> dict:
    return {(s.id, s.epoch): s.scores["glass_match"].value for s in read_eval_log(str(location)).samples}


def test_glass_log_rescored_in_place_gives_the_same_scores(scripted, tmp_path, capsys):
    log = glass_log(scripted, tmp_path, 12)
    before = glass_scores(log.location)
    out = tmp_path / "rescored.eval"
    assert cli_main(["score", log.location, "--out", str(out)]) == 0
    assert "--scorer glass_inspect/glass_match -S suite=gsm" in capsys.readouterr().out
    rescored = read_eval_log(str(out))
    assert glass_scores(out) == before
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


def test_plain_inspect_score_finds_the_suites_scorers(scripted, tmp_path):
    """``inspect score LOG`` with no --scorer: inspect looks the log's scorers up by their bare names, which the
    suite registers beside the package-qualified ones (``causal_suite.inspect_compat.register_bare_scorers``)."""
    import subprocess
    import sys
    from pathlib import Path

    from inspect_ai._util.registry import registry_lookup

    for bare in ("glass_match", "noop_verdict", "cobe_judge", "exp_a_scorer", "exp_b_scorer"):
        assert registry_lookup("scorer", bare) is not None, bare
    log = glass_log(scripted, tmp_path, 6)
    out = tmp_path / "plain.eval"
    inspect_cli = Path(sys.executable).with_name("inspect")
    done = subprocess.run(
        [str(inspect_cli), "score", log.location, "--action", "overwrite", "--output-file", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert glass_scores(out) == glass_scores(log.location)
