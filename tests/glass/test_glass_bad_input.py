"""Bad glass input, refused before any model call: pool and manifest records of the wrong type or range, corpus
files that are not UTF-8, not JSON or directories, LabeledPair rows and glass-build sources. Every case is one
SuiteInputError sentence naming the file, the line and the field."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_glass_eval import write_corpus

from causal_suite.errors import SuiteInputError
from glass_inspect.corpus import manifest_path
from glass_inspect.corpus.cli import main as glass_build
from glass_inspect.corpus.labeled_pairs import read_labeled_pairs
from glass_inspect.corpus.sources import load_source
from glass_inspect.task import glassgsm


def _edit_line(path: Path, lineno: int, **changes) -> None:
    """Replace fields of the JSON object on one line of a JSON-lines file (values written as JSON, NaN included)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[lineno - 1] = json.dumps(json.loads(lines[lineno - 1]) | changes)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"complexity_score": "0.3"}, r"field 'complexity_score' should be a number, got '0\.3'"),
        ({"complexity_score": 7.5}, r"field 'complexity_score' is 7\.5; it must be in \[0, 1\]"),
        ({"complexity_score": -0.1}, r"field 'complexity_score' is -0\.1; it must be in \[0, 1\]"),
        ({"complexity_score": float("nan")}, r"field 'complexity_score' should be a finite number, got nan"),
        ({"complexity_score": True}, r"field 'complexity_score' should be a number, got True"),
        ({"injection_size": 1.5}, r"field 'injection_size' should be an integer, got 1\.5"),
        ({"injection_size": "2"}, r"field 'injection_size' should be an integer, got '2'"),
        ({"injection_size": -1}, r"field 'injection_size' is -1; it must be at least 0"),
        ({"text": 12}, r"field 'text' should be a string, got 12"),
        ({"text": None}, r"field 'text' should be a string, got None"),
        ({"answer": 7}, r"field 'answer' should be a string, got 7"),
        ({"level": "5"}, r"field 'level' should be an integer or null, got '5'"),
        ({"changes": []}, r"field 'changes' should be an object, got \[\]"),
    ],
)
def test_bad_pool_record_fails_task_construction(tmp_path, changes, message):
    corpus = write_corpus(tmp_path / "corpus")
    _edit_line(corpus / "pool.jsonl", 3, **changes)
    with pytest.raises(SuiteInputError, match=r"pool\.jsonl, line 3: " + message + r"[^\n]*\.$"):
        glassgsm(corpus=str(corpus), doses="1,3")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dose": "1"}, r"field 'dose' should be an integer, got '1'"),
        ({"injection_size": 2.0}, r"field 'injection_size' should be an integer, got 2\.0"),
        ({"twin_id": ["g1-er"]}, r"field 'twin_id' should be a string, got \['g1-er'\]"),
    ],
)
def test_bad_manifest_record_fails_task_construction(tmp_path, changes, message):
    corpus = write_corpus(tmp_path / "corpus")
    _edit_line(manifest_path(corpus, 1), 2, **changes)
    with pytest.raises(SuiteInputError, match=r"m1\.jsonl, line 2: " + message):
        glassgsm(corpus=str(corpus), doses="1,3")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda c: (c / "pool.jsonl").write_bytes(b'{"text_id": "g1"}\n{"text": "caf\xe9"}\n'),
            r"pool\.jsonl, line 2: not UTF-8 text \(byte 0xe9\)\.$",
        ),
        (
            lambda c: (c / "pool.jsonl").unlink() or (c / "pool.jsonl").mkdir(),
            r"pool\.jsonl is a directory, not a file\.$",
        ),
        (
            lambda c: manifest_path(c, 3).write_text("[1, 2]\n"),
            r"m3\.jsonl, line 1: must be a JSON object, got list\.$",
        ),
        (
            lambda c: (c / "corpus.json").write_text(""),
            r"corpus\.json is not valid JSON \(line 1: Expecting value\)\.$",
        ),
        (lambda c: (c / "corpus.json").write_text("[1]"), r"corpus\.json should hold a JSON object, not a list\.$"),
        (
            lambda c: (c / "corpus.json").write_bytes(b'{"schema": 1,\n"suite": "gs\xffm"}'),
            r"corpus\.json, line 2: not UTF-8 text",
        ),
        (
            lambda c: (c / "corpus.json").write_text('{"schema": 1, "suite": "gsm", "doses": ["one"]}'),
            r"corpus\.json: field 'doses\[0\]' should be an integer, got 'one'\.$",
        ),
        (
            lambda c: (c / "corpus.json").unlink() or (c / "corpus.json").mkdir(),
            r"corpus\.json is a directory, not a file\.$",
        ),
    ],
)
def test_bad_corpus_files_fail_task_construction(tmp_path, damage, message):
    corpus = write_corpus(tmp_path / "corpus")
    damage(corpus)
    with pytest.raises(SuiteInputError, match=message):
        glassgsm(corpus=str(corpus), doses="1,3")


def _pair_row(**changes) -> str:
    row = {
        "base_id": "b1",
        "twin_id": "b1-t",
        "operator": "math_irrelevant_context_m3",
        "base_text": "A has 2.",
        "twin_text": "A has 2. It rains.",
        "complexity_score": 0.4,
        "answer": "2",
    }
    return json.dumps(row | changes) + "\n"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"injection_size": "3"}, r"field 'injection_size' should be an integer, got '3'"),
        ({"complexity_score": "high"}, r"field 'complexity_score' should be a number or null, got 'high'"),
        ({"complexity_score": 2}, r"field 'complexity_score' is 2; it must be in \[0, 1\]"),
        ({"dose": 1.5}, r"field 'dose' should be an integer, got 1\.5"),
        ({"answer": 2}, r"field 'answer' should be a string or null, got 2"),
        ({"twin_text": 5}, r"LabeledPair lacks text field\(s\) twin_text"),
    ],
)
def test_bad_labeled_pair_rows(tmp_path, changes, message):
    path = tmp_path / "mix_m3_pairs.jsonl"
    path.write_text(_pair_row() + _pair_row(**changes), encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"mix_m3_pairs\.jsonl, line 2: " + message):
        read_labeled_pairs(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("src.jsonl", b'{"question": "caf\xe9", "answer": "#### 1"}\n', r"src\.jsonl, line 1: not UTF-8 text"),
        ("src.json", b'{"test": [', r"src\.json is not valid JSON \(line 1: "),
        ("src.parquet", b"not parquet at all", r"src\.parquet: not a readable parquet file"),
    ],
)
def test_bad_build_sources(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=message):
        load_source("gsm", str(path))


def _answer_twice(pool: Path) -> None:
    """The first pool line gets a planted gold answer before its own (the reader would keep its own silently)."""
    lines = pool.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace("{", '{"answer": "999", ', 1)
    pool.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda c: _answer_twice(c / "pool.jsonl"), r"pool\.jsonl, line 1: key 'answer' appears twice in one object"),
        (lambda c: (c / "pool.jsonl").write_bytes(b"[" * 100_000), r"pool\.jsonl, line 1: nested deeper than 100"),
        (lambda c: (c / "corpus.json").write_bytes(b"{" * 100_000), r"corpus\.json, line 1: nested deeper than 100"),
        (lambda c: (c / "pool.jsonl").unlink() or os.mkfifo(c / "pool.jsonl"), r"pool\.jsonl is not a regular file"),
        (lambda c: manifest_path(c, 1).unlink() or manifest_path(c, 1).symlink_to("/dev/zero"), r"m1\.jsonl is not a"),
    ],
)
def test_hostile_corpus_files_fail_task_construction(tmp_path, damage, message):
    corpus = write_corpus(tmp_path / "corpus")
    damage(corpus)
    with pytest.raises(SuiteInputError, match=message):
        glassgsm(corpus=str(corpus), doses="1,3")


def test_glass_build_refuses_a_fifo_source_and_bad_counts_with_exit_2(tmp_path, capsys):
    os.mkfifo(tmp_path / "s.jsonl")
    assert glass_build(["--suite", "gsm", "--source", str(tmp_path / "s.jsonl"), "--out", str(tmp_path / "c")]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("s.jsonl is not a regular file (a pipe, socket or device); pass a file.")
    )
    with pytest.raises(SystemExit) as exit_:
        glass_build(["show", str(tmp_path), "--n", "-1"])
    assert exit_.value.code == 2 and "argument --n: must be a whole number >= 1, got '-1'" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "error",
    [
        ConnectionError("Couldn't reach 'openai/gsm8k' on the Hub (LocalEntryNotFoundError)"),
        FileNotFoundError("Dataset 'nobody/nothing' doesn't exist on the Hub or cannot be accessed."),
        ValueError("Unknown split \"tset\". Should be one of ['train', 'test']."),
    ],
)
def test_glass_build_from_an_unreachable_hub_id_is_one_sentence_and_exit_2(tmp_path, capsys, monkeypatch, error):
    datasets = pytest.importorskip("datasets")

    def offline(*args, **kwargs):
        raise error

    monkeypatch.setattr(datasets, "load_dataset", offline)
    assert glass_build(["--suite", "gsm", "--source", "openai/gsm8k", "--out", str(tmp_path / "c")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "source 'openai/gsm8k' was read as a datasets hub id and could not be loaded" in line
    assert str(error).split(" (")[0][:40] in line and "save_to_disk(DIR)) and pass --source DIR" in line
    assert ("check --split 'test' and --hub-config (not given)" in line) == isinstance(error, ValueError)
    assert not (tmp_path / "c").exists()
