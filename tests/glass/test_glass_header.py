"""The sample-independent part of a glass log (what ``inspect view`` shows in its header and task card) names
the values a run resolved its defaults to (issue 29, item 6), not ``null``."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import read_eval_log

from glass_inspect.corpus.contract import TWIN_FAMILIES


def test_the_header_of_a_default_run_shows_the_built_in_corpus_and_every_family(tmp_path, scripted):
    [log] = eval(
        "glass_inspect/glassgsm",
        model=scripted("ANSWER: 1"),
        task_args={"subset": 1, "doses": 1},
        epochs=1,
        log_dir=str(tmp_path),
        display="none",
    )
    header = read_eval_log(log.location, header_only=True)
    assert header.status == "success"
    args = header.eval.task_args
    assert args["corpus"] == "builtin" and args["families"] == ",".join(TWIN_FAMILIES)
    assert args["doses"] == 1 and args["temperature"] == 0.2
    glass = header.eval.metadata["glass"]
    assert Path(glass["corpus"], "pool.jsonl").is_file()  # the folder "builtin" resolved to
    assert glass["families"] == list(TWIN_FAMILIES) and glass["doses"] == [1]


def test_an_explicit_corpus_named_in_the_header_is_the_one_that_ran(tmp_path, scripted):
    [first] = eval(
        "glass_inspect/glassgsm",
        model=scripted("ANSWER: 1"),
        task_args={"subset": 1, "doses": 1},
        epochs=1,
        log_dir=str(tmp_path / "a"),
        display="none",
    )
    corpus = first.eval.metadata["glass"]["corpus"]
    [log] = eval(
        "glass_inspect/glassgsm",
        model=scripted("ANSWER: 1"),
        task_args={"corpus": corpus, "subset": 1, "doses": 1, "families": "entity_rename"},
        epochs=1,
        log_dir=str(tmp_path / "b"),
        display="none",
    )
    assert log.eval.task_args["corpus"] == corpus and log.eval.task_args["families"] == "entity_rename"
    assert log.eval.metadata["glass"]["families"] == ["entity_rename"]
    assert {s.metadata["operator"] for s in log.samples} <= {"base", "entity_rename", "identity"}


def test_noop_audit_defaults_to_the_built_in_corpus_by_name(tmp_path, scripted):
    from glass_inspect.task import noop_audit

    task = noop_audit(suite="math")
    assert Path(task.metadata["corpus"], "pool.jsonl").is_file() and "math" in Path(task.metadata["corpus"]).name
