"""The shared JSON-lines / JSON-array readers: good files, blank lines, and one-sentence errors naming file and line."""

from __future__ import annotations

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.jsonl import iter_jsonl, read_json_list


def test_iter_jsonl_yields_line_numbers_and_skips_blank_lines(tmp_path):
    f = tmp_path / "rows.jsonl"
    f.write_text('{"a": 1}\n\n   \n{"a": 2, "b": [1]}\n', encoding="utf-8")
    assert list(iter_jsonl(f)) == [(1, {"a": 1}), (4, {"a": 2, "b": [1]})]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert list(iter_jsonl(empty)) == []


def test_iter_jsonl_names_file_and_line_of_bad_json(tmp_path):
    f = tmp_path / "broken.jsonl"
    f.write_text('{"a": 1}\n\n{oops\n', encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"broken\.jsonl, line 3: not valid JSON \(Expecting property name"):
        list(iter_jsonl(f))
    with pytest.raises(SuiteInputError, match=r"^My file 'x', line 3: not valid JSON"):
        list(iter_jsonl(f, "My file 'x'"))


@pytest.mark.parametrize(("line", "kind"), [("[1, 2]", "list"), ('"text"', "str"), ("3", "int"), ("null", "NoneType")])
def test_iter_jsonl_refuses_rows_that_are_not_objects(tmp_path, line, kind):
    f = tmp_path / "rows.jsonl"
    f.write_text('{"a": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(SuiteInputError, match=rf"rows\.jsonl, line 2: must be a JSON object, got {kind}\.$"):
        list(iter_jsonl(f))


def test_read_json_list_reads_arrays_and_refuses_other_documents(tmp_path):
    f = tmp_path / "list.json"
    f.write_text('[{"a": 1}, "kept as is"]', encoding="utf-8")
    assert read_json_list(f) == [{"a": 1}, "kept as is"]
    f.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"list\.json should hold a JSON list of records, not a dict\.$"):
        read_json_list(f)
    f.write_text('[{"a": 1},\n{"a"', encoding="utf-8")
    with pytest.raises(SuiteInputError, match=r"^Data file '.*list\.json' is not valid JSON \(line 2: "):
        read_json_list(f, f"Data file '{f}'")
