"""Bad CoBe input, refused when the task is built: data files that are not UTF-8, directories, empty or of the wrong
JSON types, judge prompt files and human-label files. Every case is one SuiteInputError sentence naming the file
and the line, record or field."""

from __future__ import annotations

import json
import os

import pytest
from test_cobe_dataset import GOOD

from causal_suite.errors import SuiteInputError
from cobe_inspect.agreement import read_labels
from cobe_inspect.records.convert import main as cobe_data
from cobe_inspect.task import cobe


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("d.jsonl", json.dumps(GOOD).encode() + b'\n{"Story": "na\xefve"}\n', r"d\.jsonl', line 2: not UTF-8 text"),
        ("d.json", b'[{"Story": "\xe9"}]', r"d\.json', line 1: not UTF-8 text \(byte 0xe9\)\.$"),
        ("d.json", b"", r"d\.json' holds no records\.$"),
        ("d.json", b'{\n"Story": 1\n}', r"d\.json', line 1: not valid JSON"),
        ("d.json", b'[{"Core Set ID": 1}, 2]', r"d\.json', record #1, field 'Variation ID': is missing\.$"),
        (
            "d.json",
            json.dumps([GOOD | {"Story": 5}]).encode(),
            r"record 7v2 \(#1\), field 'Story': must be a non-empty",
        ),
        ("d.json", json.dumps([GOOD | {"Core Set ID": 1.5}]).encode(), r"field 'Core Set ID': must be a whole number"),
        (
            "d.json",
            json.dumps([GOOD | {"Query": "one"}]).encode(),
            r"field 'Query': must be a list of non-empty strings",
        ),
        ("d.jsonl", json.dumps(GOOD | {"Evaluation criteria": [1, 2]}).encode(), r"field 'Evaluation criteria': must"),
    ],
)
def test_bad_data_file_fails_task_construction(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=r"^CoBe file '.*" + message):
        cobe(data=str(path))


def test_data_path_that_is_a_directory(tmp_path):
    with pytest.raises(SuiteInputError, match=r"^CoBe file '.*' is a directory, not a file\.$"):
        cobe(data=str(tmp_path))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"E0": "caf\xe9 $response_text"}', r"j\.json', line 1: not UTF-8 text"),
        (None, r"j\.json' is a directory, not a file\.$"),
        (b'{"E0": 5}', r"j\.json': entry 'E0' must be a non-empty string\.$"),
    ],
)
def test_bad_judge_prompt_file_fails_task_construction(tmp_path, content, message):
    path = tmp_path / "j.json"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=r"^Judge prompt file '.*" + message):
        cobe(judge_prompts=str(path))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"sample_id,human\n1v1-A,1\n1v2-A,\xb9\n", r"labels\.csv', line 3: not UTF-8 text \(byte 0xb9\)\.$"),
        (None, r"labels\.csv' is a directory, not a file\.$"),
    ],
)
def test_bad_labels_file(tmp_path, content, message):
    path = tmp_path / "labels.csv"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=r"^Labels file '.*" + message):
        read_labels(path)


def _story_twice() -> bytes:
    """A record whose Story is given twice: Python's JSON reader would keep the second one silently."""
    return json.dumps([GOOD]).replace('"Story": ', '"Story": "A planted story.", "Story": ', 1).encode()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(_story_twice()), r"d\.json', line 1: key 'Story' appears twice in one object"),
        (lambda p: p.write_bytes(b"[" * 100_000 + b"]" * 100_000), r"d\.json', line 1: nested deeper than 100"),
        (os.mkfifo, r"d\.json' is not a regular file \(a pipe, socket or device\)"),
        (lambda p: p.symlink_to("/dev/zero"), r"d\.json' is not a regular file"),
    ],
)
def test_hostile_data_file_is_one_sentence(tmp_path, make, message):
    path = tmp_path / "d.json"
    make(path)
    with pytest.raises(SuiteInputError, match=r"^CoBe file '.*" + message):
        cobe(data=str(path))


def test_judge_prompt_yaml_key_twice(tmp_path):
    path = tmp_path / "judge.yaml"
    path.write_text("E0: 'Check $response_text'\nE0: 'Planted $response_text'\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"judge\.yaml', line 2: key 'E0' appears twice in one mapping\.$"):
        cobe(judge_prompts=str(path))


def test_cobe_data_refusals_exit_2_and_write_nothing(tmp_path, capsys):
    good, dup = tmp_path / "in.json", tmp_path / "dup.json"
    good.write_text(json.dumps([GOOD]), encoding="utf-8")
    dup.write_bytes(_story_twice())
    (tmp_path / "out_dir").mkdir()
    assert cobe_data(["convert", str(dup), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "key 'Story' appears twice" in capsys.readouterr().err
    assert cobe_data(["convert", str(good), "-o", str(tmp_path / "out_dir")]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"cobe-data: error: Output '{tmp_path / 'out_dir'}' is a directory: pass a file path."
    )
    csv = tmp_path / "in.csv"
    csv.write_text('Story,Causal graph\nA tale.,"{""a"": 1, ""a"": 2}"\n', encoding="utf-8")
    assert cobe_data(["convert", str(csv), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "row 2, column 'Causal graph': key 'a' appears twice" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dup.json", "in.csv", "in.json", "out_dir"]
    assert cobe_data(["convert", str(good), "-o", str(tmp_path / "o.jsonl")]) == 0  # the control: written
