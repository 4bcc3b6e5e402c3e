"""Atomic writes (causal_suite.files): a failed write leaves the target as it was and no temp file beside it; an
output path that cannot be written is one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.files import output_folder, write_atomic, write_figure_atomic, write_text_atomic


def test_a_failure_while_the_text_is_produced_leaves_the_old_file_and_no_temp(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")

    def chunks():
        yield "new line 1\n"
        raise RuntimeError("generator failed half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        write_text_atomic(out, chunks())
    assert out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_an_error_not_of_the_file_system_propagates_as_it_is(tmp_path):
    """An ``OSError`` without an errno raised while the file is produced (a network error of a scorer, as
    requests' ``ConnectionError``) is no "cannot be written": it propagates, and nothing is left behind."""

    def produce(tmp: Path) -> None:
        tmp.write_text("half")
        raise ConnectionError("Max retries exceeded while downloading a tokenizer")

    with pytest.raises(ConnectionError, match="downloading a tokenizer"):
        write_atomic(tmp_path / "out.eval", produce)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connection refused"),  # a socket error carries an errno
        FileNotFoundError(2, "No such file or directory", "tokenizer.json"),  # a file of the writer's own
    ],
    ids=["socket", "writer-file"],
)
def test_an_error_with_an_errno_that_is_not_the_outputs_propagates(tmp_path, error):
    def produce(tmp: Path) -> None:
        tmp.write_text("half")
        raise error

    with pytest.raises(type(error)):
        write_atomic(tmp_path / "out.eval", produce)
    assert not list(tmp_path.iterdir())


def test_a_full_disk_and_an_unwritable_temp_file_are_the_outputs(tmp_path):
    def full(tmp: Path) -> None:
        raise OSError(28, "No space left on device")  # a write on a full disk names no file

    with pytest.raises(SuiteInputError, match=r"^Output '.*out\.eval' cannot be written \(No space left on device\)"):
        write_atomic(tmp_path / "out.eval", full)

    def refused(tmp: Path) -> None:
        raise PermissionError(13, "Permission denied", str(tmp))

    with pytest.raises(SuiteInputError, match=r"cannot be written \(Permission denied\)"):
        write_atomic(tmp_path / "out.eval", refused)
    assert not list(tmp_path.iterdir())


def test_unwritable_outputs_are_one_sentence_and_leave_nothing(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(SuiteInputError, match=r"^Output '.*dir' is a directory: pass a file path\.$"):
        write_text_atomic(tmp_path / "dir", "x")
    (tmp_path / "file").write_text("x")
    with pytest.raises(SuiteInputError, match=r"^Output '.*file/out\.json' cannot be written: a file stands where"):
        write_text_atomic(tmp_path / "file" / "out.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "file"] and not list((tmp_path / "dir").iterdir())


def test_writes_create_parents_and_replace_the_target(tmp_path):
    out = write_text_atomic(tmp_path / "a" / "b.txt", ["one\n", "two\n"])
    assert out.read_text() == "one\ntwo\n"
    assert write_text_atomic(out, "three\n").read_text() == "three\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["b.txt"]


def test_a_figure_is_renamed_into_place_and_a_failed_save_leaves_nothing(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    png = write_figure_atomic(fig, tmp_path / "f.png")
    assert png.read_bytes().startswith(b"\x89PNG") and [p.name for p in tmp_path.iterdir()] == ["f.png"]

    class Failing:
        def savefig(self, path, **kwargs):
            Path(path).write_bytes(b"half")
            raise OSError(28, "No space left on device")

    with pytest.raises(SuiteInputError, match=r"^Output '.*g\.png' cannot be written \(No space left on device\)"):
        write_figure_atomic(Failing(), tmp_path / "g.png")
    assert [p.name for p in tmp_path.iterdir()] == ["f.png"]
    plt.close(fig)


def test_an_output_folder_is_made_or_refused_in_one_sentence(tmp_path):
    assert output_folder(tmp_path / "a" / "b", "compare").is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(SuiteInputError, match=r"^compare: --out '.*file' is an existing file: pass a folder\.$"):
        output_folder(tmp_path / "file", "compare")
    with pytest.raises(SuiteInputError, match=r"^compare: --out '.*file/sub' cannot be created \(Not a directory\)"):
        output_folder(tmp_path / "file" / "sub", "compare")
