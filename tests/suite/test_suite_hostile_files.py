"""Hostile input files to the shared reader (issue 26): a FIFO, a device behind a link, a file over its size cap,
a JSON key given twice and nesting 100,000 deep each fail in one sentence naming the file, the line and the key,
without blocking, reading without end or raising RecursionError."""

from __future__ import annotations

import json
import os

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.jsonl import (
    MAX_DEPTH,
    decode_json,
    iter_jsonl,
    parse_json,
    parse_yaml,
    read_json,
    read_records,
    read_text,
    require_regular_file,
)

READERS = {
    "text": read_text,
    "json": read_json,
    "records": read_records,
    "jsonl": lambda p, where=None: list(iter_jsonl(p, where)),
    "regular file": require_regular_file,
}
DEEP = 100_000


@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_is_refused_without_blocking(tmp_path, reader):
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)  # no writer: opening it for a blocking read would wait forever
    with pytest.raises(SuiteInputError, match=r"f\.jsonl is not a regular file \(a pipe, socket or device\)"):
        READERS[reader](fifo)


@pytest.mark.parametrize("reader", READERS)
def test_a_link_to_a_device_is_refused_unread(tmp_path, reader):
    link = tmp_path / "data.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(SuiteInputError, match=r"data\.json is not a regular file"):
        READERS[reader](link)


def test_a_file_over_its_cap_is_refused_before_it_is_read(tmp_path):
    sparse = tmp_path / "big.csv"
    with sparse.open("wb") as fh:
        fh.truncate(3 << 30)  # 3 GiB of holes: no disk used, and reading it would exhaust memory
    with pytest.raises(SuiteInputError, match=r"^My table is 3 GiB \(3,221,225,472 bytes\), over the 256 MiB limit"):
        read_text(sparse, "My table", max_bytes=256 << 20)
    small = tmp_path / "doc.json"
    small.write_text(json.dumps({"a": "x" * 100}))
    with pytest.raises(
        SuiteInputError, match=r"doc\.json is 109 bytes, over the 64 bytes limit for this kind of input\.$"
    ):
        read_json(small, max_bytes=64)
    assert read_json(small, max_bytes=109) == {"a": "x" * 100}


def test_a_missing_file_is_one_sentence(tmp_path):
    with pytest.raises(SuiteInputError, match=r"nope\.json does not exist: check the path you passed\.$"):
        read_json(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("reader", "content", "message"),
    [
        ("jsonl", '{"a": 1}\n{"answer": "7", "b": 2, "answer": "8"}\n', r"f, line 2: key 'answer' appears twice"),
        ("records", '{"a": 1}\n{"a": {"x": 1, "x": 1}}\n', r"f, line 2: key 'x' appears twice"),
        ("json", '{\n "a": 1,\n "b": {"c": 1},\n "a": 2\n}', r"f, line 4: key 'a' appears twice in one object"),
        (
            "records",
            '[{"Story": "s", "q": 1},\n {"q": 1,\n  "Story": "t",\n  "Story": "u"}]',
            r"f, line 4: key 'Story'",
        ),
    ],
)
def test_a_key_given_twice_names_the_key_and_line(tmp_path, reader, content, message):
    path = tmp_path / "f"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SuiteInputError, match=message):
        READERS[reader](path)


def test_the_same_key_in_sibling_objects_is_fine():
    text = '[{"a": 1, "b": {"a": 2}}, {"a": 3}]'
    assert parse_json(text, "f") == [{"a": 1, "b": {"a": 2}}, {"a": 3}]
    assert parse_json('{"a\\u0062": 1, "ab2": 2}', "f") == {"ab": 1, "ab2": 2}
    with pytest.raises(SuiteInputError, match=r"^f, line 1: key 'ab' appears twice"):  # escapes decoded
        decode_json('{"a\\u0062": 1, "ab": 2}', "f")
    with pytest.raises(SuiteInputError, match=r"^row 3, column 'g': key 'ab' appears twice"):  # a cell: no line
        decode_json('{"ab": 1, "ab": 2}', "row 3, column 'g'", count_lines=False)


@pytest.mark.parametrize("reader", ["json", "records", "jsonl"])
@pytest.mark.parametrize("bracket", ["[", '{"a":'])
def test_deep_nesting_is_refused_without_recursion_error(tmp_path, reader, bracket):
    path = tmp_path / "deep.json"
    closing = "]" if bracket == "[" else "}"
    deep = bracket * DEEP + "1" + closing * DEEP
    path.write_text('{"ok": 1}\n' + deep + "\n" if reader == "jsonl" else deep)
    line = 2 if reader == "jsonl" else 1
    with pytest.raises(SuiteInputError, match=rf"deep\.json, line {line}: nested deeper than {MAX_DEPTH} levels"):
        READERS[reader](path)


def test_nesting_up_to_the_limit_and_brackets_in_strings_are_fine():
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, "f") is not None
    text = json.dumps({"text": "[" * 5000 + "{" * 5000, "q": '\\"[[['})
    assert parse_json(text, "f")["text"].startswith("[[")
    with pytest.raises(SuiteInputError, match=rf"f, line 1: nested deeper than {MAX_DEPTH}"):
        parse_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "f")


def test_yaml_keys_twice_and_deep_nesting_are_one_sentence():
    with pytest.raises(SuiteInputError, match=r"^p\.yaml, line 3: key 'E0' appears twice in one mapping\.$"):
        parse_yaml("E0: a\nE1: b\nE0: c\n", "p.yaml")
    with pytest.raises(SuiteInputError, match=r"^p\.yaml: nested too deeply to read\.$"):
        parse_yaml("[" * 5000 + "]" * 5000, "p.yaml")  # PyYAML's composer recurses once per level
    with pytest.raises(SuiteInputError, match=r"^p\.yaml is not valid YAML \("):
        parse_yaml("a: [1,\n", "p.yaml")
    assert parse_yaml("E0: a\nE1: {x: 1}\n", "p.yaml") == {"E0": "a", "E1": {"x": 1}}
