"""The shared input readers and field checks: every kind of bad file or field is one SuiteInputError sentence
naming the file, the line or record and the field."""

from __future__ import annotations

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.fields import NUMBER, check_range, check_type, require
from causal_suite.jsonl import iter_jsonl, read_json, read_json_list, read_records, read_text

READERS = {
    "text": read_text,
    "json": read_json,
    "json list": read_json_list,
    "records": read_records,
    "jsonl": lambda p, where=None: list(iter_jsonl(p, where)),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"a": 1}\n{"b": "caf\xe9"}\n', r"f\.txt, line 2: not UTF-8 text \(byte 0xe9\)\.$"),
        (b"\xff\xfe[1]", r"f\.txt, line 1: not UTF-8 text \(byte 0xff\)\.$"),
        (None, r"f\.txt is a directory, not a file\.$"),
    ],
)
def test_undecodable_file_or_directory_is_one_sentence(tmp_path, reader, content, message):
    path = tmp_path / "f.txt"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=message):
        READERS[reader](path)


@pytest.mark.parametrize(
    ("reader", "content", "message"),
    [
        ("json", "", r"f\.txt is not valid JSON \(line 1: Expecting value\)\.$"),
        ("json list", "{}", r"f\.txt should hold a JSON list of records, not a dict\.$"),
        ("records", '[{"a": 1},\n{"a"', r"f\.txt is not valid JSON \(line 2: "),
        ("records", '{"a": 1}\n[2]\n', r"f\.txt, line 2: must be a JSON object, got list\.$"),
        ("jsonl", '{"a": 1}\n{"a": 1,\n', r"f\.txt, line 2: not valid JSON \("),
    ],
)
def test_bad_json_names_file_and_line(tmp_path, reader, content, message):
    path = tmp_path / "f.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SuiteInputError, match=message):
        READERS[reader](path)


def test_good_files_read_back(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b'\xef\xbb\xbf[{"a": 1}, 2]')  # a byte-order mark is dropped
    assert read_records(path) == [(None, {"a": 1}), (None, 2)]
    path.write_text('\n{"a": "x\u2028y"}\r\n\n{"b": 2}\n', encoding="utf-8")  # U+2028 inside a string is no line end
    assert read_records(path) == [(2, {"a": "x\u2028y"}), (4, {"b": 2})]
    assert read_text(path, "My file").startswith("\n{")


@pytest.mark.parametrize(
    ("value", "kind", "message"),
    [
        ("3", int, r"should be an integer, got '3'\.$"),
        (3.0, int, r"should be an integer, got 3\.0\.$"),
        (True, NUMBER, r"should be a number, got True\.$"),
        (float("nan"), NUMBER, r"should be a finite number, got nan\.$"),
        (float("-inf"), NUMBER, r"should be a finite number, got -inf\.$"),
        (["a"], str, r"should be a string, got \['a'\]\.$"),
        ("x" * 100, (dict, type(None)), r"should be an object or null, got 'x{56}\.\.\.\.$"),
        (5, (str, (list, type(None))), r"should be a string or a list or null, got 5\.$"),
    ],
)
def test_check_type_names_where_field_and_value(value, kind, message):
    with pytest.raises(SuiteInputError, match=r"^pool\.jsonl, line 4: field 'k' " + message):
        check_type(value, "k", "pool.jsonl, line 4", kind)


def test_type_range_and_presence_pass_good_values():
    assert check_type(3, "k", "w", NUMBER) == 3 and check_type(None, "k", "w", (int, type(None))) is None
    assert require({"k": "v"}, "k", "w") == "v" and check_range(0.0, "k", "w", 0, 1) == 0.0
    with pytest.raises(SuiteInputError, match=r"^w: field 'k' is missing\.$"):
        require({}, "k", "w")
    with pytest.raises(SuiteInputError, match=r"^w: field 'complexity_score' is 7\.5; it must be in \[0, 1\]\.$"):
        check_range(7.5, "complexity_score", "w", 0, 1)
    with pytest.raises(SuiteInputError, match=r"^w: field 'dose' is 0; it must be at least 1\.$"):
        check_range(0, "dose", "w", 1)
