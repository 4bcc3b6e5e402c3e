"""Atomic writes (causal_suite.files): a failed write leaves the target as it was and no temp file beside it; an
output path that cannot be written is one sentence."""

from __future__ import annotations

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.files import write_bytes_atomic, write_text_atomic


def test_a_failure_while_the_text_is_produced_leaves_the_old_file_and_no_temp(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")

    def chunks():
        yield "new line 1\n"
        raise RuntimeError("generator failed half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        write_text_atomic(out, chunks())
    assert out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_unwritable_outputs_are_one_sentence_and_leave_nothing(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(SuiteInputError, match=r"^Output '.*dir' is a directory: pass a file path\.$"):
        write_text_atomic(tmp_path / "dir", "x")
    (tmp_path / "file").write_text("x")
    with pytest.raises(SuiteInputError, match=r"^Output '.*file/out\.json' cannot be written: a file stands where"):
        write_bytes_atomic(tmp_path / "file" / "out.json", b"{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "file"] and not list((tmp_path / "dir").iterdir())


def test_writes_create_parents_and_replace_the_target(tmp_path):
    out = write_text_atomic(tmp_path / "a" / "b.txt", ["one\n", "two\n"])
    assert out.read_text() == "one\ntwo\n"
    assert write_bytes_atomic(out, b"\x00\x01").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in out.parent.iterdir()) == ["b.txt"]
