"""``causal_suite.logs``: one streaming reader for ``.eval`` and ``.json`` logs, and what it makes of bad log files
(one sentence naming the file; ``check`` and ``report`` skip a bad log among good ones and go on)."""

from __future__ import annotations

import os
import re
import shutil
import zipfile

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from causal_suite import logs
from causal_suite.cli import main as cli_main
from causal_suite.errors import SuiteInputError
from causal_suite.logs import LogReader, read_log_digest, read_log_header


@pytest.fixture(scope="module")
def glass_logs(tmp_path_factory, scripted_factory):
    """One scripted glassgsm run (6 samples x 2 epochs) written as ``.eval`` and as ``.json``."""
    from glass_inspect.task import glassgsm

    out = {}
    for fmt in ("eval", "json"):
        log_dir = tmp_path_factory.mktemp(fmt)
        [log] = eval(
            glassgsm(),
            model=scripted_factory("The answer is 18."),
            limit=6,
            epochs=2,
            display="none",
            log_dir=str(log_dir),
            log_format=fmt,
        )
        out[fmt] = log.location
    return out


def scores_of(samples) -> dict:
    return {(s.id, s.epoch): (s.scores["glass_match"].value, s.metadata["text_id"]) for s in samples}


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_the_reader_gives_what_inspect_reads(glass_logs, fmt):
    whole = read_eval_log(glass_logs[fmt])
    with LogReader(glass_logs[fmt]) as reader:
        assert reader.header.status == "success" and reader.header.samples is None
        assert reader.header.eval.model == whole.eval.model
        assert [r.model_dump() for r in reader.header.reductions] == [r.model_dump() for r in whole.reductions]
        samples = list(reader.samples())
    assert len(samples) == 12 and scores_of(samples) == scores_of(whole.samples)
    assert {s.input_text() for s in samples} == {s.input for s in whole.samples}
    with LogReader(glass_logs[fmt]) as reader:
        full = [reader.full_sample(i) for i in range(reader.sample_count())]
    assert [(s.id, s.epoch, len(s.messages)) for s in full] == [
        (s.id, s.epoch, len(s.messages)) for s in samples_in_file_order(whole, full)
    ]


def samples_in_file_order(whole, full):
    by_key = {(s.id, s.epoch): s for s in whole.samples}
    return [by_key[(s.id, s.epoch)] for s in full]


def test_a_digest_keeps_no_input(glass_logs):
    digest = read_log_digest(glass_logs["eval"])
    assert digest.status == "success" and len(digest.samples) == 12
    assert all(s.input is None and s.target is None and s.scores for s in digest.samples)


def damaged_logs(tmp_path, good: str) -> dict:
    """Bad log files made from nothing or from a good log, by name."""
    data = open(good, "rb").read()
    files = {
        "empty.eval": b"",
        "binary.eval": bytes(range(256)) * 8,
        "truncated.eval": data[: len(data) // 2],
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    with zipfile.ZipFile(tmp_path / "foreign.eval", "w") as z:
        z.writestr("readme.txt", "a zip, but not an inspect log")
    return {name: tmp_path / name for name in [*files, "foreign.eval"]}


def test_each_bad_eval_file_is_one_sentence_naming_it(glass_logs, tmp_path):
    for name, path in damaged_logs(tmp_path, glass_logs["eval"]).items():
        with pytest.raises(SuiteInputError) as caught:
            read_log_header(path)
        message = str(caught.value)
        assert str(path) in message and "is not a readable inspect eval log" in message, name
        assert "\n" not in message


def test_a_truncated_json_log_names_the_file(glass_logs, tmp_path):
    text = open(glass_logs["json"], encoding="utf-8").read()
    head = tmp_path / "head.json"  # cut inside the header: the header read fails
    head.write_text(text[:200], encoding="utf-8")
    with pytest.raises(SuiteInputError, match="head.json' is not a readable inspect eval log"):
        read_log_header(head)
    cut = tmp_path / "cut.json"  # cut inside the samples: the header reads, the samples fail
    cut.write_text(text[: text.index('"samples"') + 2000], encoding="utf-8")
    with pytest.raises(SuiteInputError, match="cut.json"):
        with LogReader(cut) as reader:
            list(reader.samples())


def test_a_damaged_sample_names_its_member(glass_logs, tmp_path):
    bad = tmp_path / "bad_sample.eval"
    with zipfile.ZipFile(glass_logs["eval"]) as src, zipfile.ZipFile(bad, "w") as dst:
        names = [n for n in src.namelist() if n.startswith("samples/")]
        for name in src.namelist():
            dst.writestr(name, b"{not json" if name == names[0] else src.read(name))
    with LogReader(bad) as reader:
        with pytest.raises(SuiteInputError, match=f"member '{names[0]}': cannot be read"):
            list(reader.samples())


def test_not_a_regular_file_or_over_the_cap_is_refused_before_reading(glass_logs, tmp_path, monkeypatch):
    fifo = tmp_path / "pipe.eval"
    os.mkfifo(fifo)
    with pytest.raises(SuiteInputError, match="not a regular file"):
        read_log_header(fifo)  # returns at once: a FIFO is never opened
    with pytest.raises(SuiteInputError, match="is a directory"):
        read_log_header(tmp_path)
    monkeypatch.setattr(logs, "MAX_LOG_BYTES", 100)
    with pytest.raises(SuiteInputError, match="over the 100 bytes limit"):
        read_log_header(glass_logs["eval"])


def test_check_and_report_skip_a_bad_log_and_go_on(glass_logs, tmp_path, capsys):
    folder = tmp_path / "logs"
    folder.mkdir()
    good = folder / "2026-01-01T00-00-00+00-00_glassgsm_good.eval"
    shutil.copy(glass_logs["eval"], good)
    bad = folder / "2026-01-02T00-00-00+00-00_glassgsm_bad.eval"
    bad.write_bytes(b"PK\x03\x04 truncated")
    assert cli_main(["check", str(folder)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("success: ") and "glassgsm (12/12 samples)" in line for line in out)
    assert [line for line in out if line.startswith("unreadable:")] == [
        f"unreadable: eval log '{bad}' is not a readable inspect eval log (BadZipFile: File is not a zip file)."
    ]
    assert out[-1] == "check: 1 of 2 logs did not end in success."

    assert cli_main(["report", str(folder), "--out", str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    assert f"report: skipped: eval log '{bad}'" in captured.err and "1 figures (" in captured.out
    assert "glass_break_rate_by_dose" in (tmp_path / "r" / "report.md").read_text()
    assert not [p.name for p in (tmp_path / "r").iterdir() if p.name.startswith(".")]  # no temp file left


def test_report_and_score_turn_bad_input_into_one_sentence_and_exit_2(glass_logs, tmp_path, capsys):
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"\x00" * 64)
    assert cli_main(["report", str(junk), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"causal-suite report: error: eval log '{junk}' is not a readable") and "\n" not in err
    assert not (tmp_path / "r").exists()  # nothing is made for a report that cannot be written
    other = tmp_path / "other.eval"
    other.write_bytes(b"\x00" * 64)
    assert cli_main(["report", str(junk), str(other), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "causal-suite report: error: report: none of the 2 logs given could be read (see above)."
    assert len(err) == 3 and all(line.startswith("report: skipped: ") for line in err[:2])
    assert cli_main(["score", str(junk)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"causal-suite score: error: eval log '{junk}' is not a readable") and "\n" not in err

    assert cli_main(["score", glass_logs["eval"], "--out", str(tmp_path)]) == 2
    assert "is a folder: pass the file to write" in capsys.readouterr().err

    existing = tmp_path / "taken.txt"
    existing.write_text("x")
    assert cli_main(["report", glass_logs["eval"], "--out", str(existing)]) == 2
    assert "is an existing file: pass a folder" in capsys.readouterr().err
    assert cli_main(["report", glass_logs["eval"], "--out", str(existing / "sub")]) == 2
    assert "cannot be created" in capsys.readouterr().err
    assert existing.read_text() == "x"


def test_every_log_consumer_names_a_bad_log_in_one_sentence(tmp_path, capsys):
    from cobe_inspect.agreement import judge_scores
    from cobe_inspect.compare import main as compare_main
    from frail.probes import collect_probes_from_logs
    from glass_inspect.corpus.audit import apply_audit
    from glass_inspect.corpus.builtin import default_corpus

    empty = tmp_path / "empty.eval"
    empty.write_bytes(b"")
    sentence = f"'{empty}' is not a readable inspect eval log"

    def audit(log):
        return apply_audit(log, default_corpus("gsm"), tmp_path / "out")

    for read in (judge_scores, lambda p: collect_probes_from_logs([p]), audit):
        with pytest.raises(SuiteInputError, match=re.escape(sentence)):
            read(empty)
    assert compare_main([str(empty)]) == 2
    assert sentence in capsys.readouterr().err


def test_samples_without_scores_and_with_interned_metadata(glass_logs):
    """A report holds every sample's metadata: its keys and short strings are shared between samples, and a
    glass log's samples are held without their scores (its figures read the header's reductions)."""
    from causal_suite.report import needs_sample_scores

    with LogReader(glass_logs["eval"]) as reader:
        bare = list(reader.samples(inputs=False, scores=False))
    first, second = (next(k for k in s.metadata if k == "text_id") for s in bare[:2])
    assert len(bare) == 12 and all(s.scores == {} and s.metadata["text_id"] for s in bare)
    assert first is second and bare[0].metadata["suite"] is bare[1].metadata["suite"]
    digest = read_log_digest(glass_logs["eval"], scores=needs_sample_scores)
    assert not needs_sample_scores(digest.header) and all(s.scores == {} for s in digest.samples)
    assert [s.metadata for s in digest.samples] == [s.metadata for s in read_log_digest(glass_logs["eval"]).samples]


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_a_whole_sample_by_its_place_in_the_file_in_any_order(glass_logs, fmt):
    with LogReader(glass_logs[fmt]) as reader:
        in_order = [(s.id, s.epoch) for s in reader.samples()]
        picked = [reader.full_sample(i) for i in (3, 4, 1, 11)]  # a .json log starts over for the one behind
        with pytest.raises(IndexError):
            reader.full_sample(12)
    assert [(s.id, s.epoch) for s in picked] == [in_order[i] for i in (3, 4, 1, 11)]
    assert all(s.messages for s in picked)
