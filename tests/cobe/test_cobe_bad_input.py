"""Bad CoBe input, refused when the task is built: data files that are not UTF-8, directories, empty or of the wrong
JSON types, judge prompt files and human-label files. Every case is one SuiteInputError sentence naming the file
and the line, record or field."""

from __future__ import annotations

import json

import pytest
from test_cobe_dataset import GOOD

from causal_suite.errors import SuiteInputError
from cobe_inspect.agreement import read_labels
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
