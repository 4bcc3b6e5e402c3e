"""Bad Frail input: LabeledPair rows of the wrong type or range, pair, probe and split-sidecar files that are not
UTF-8, not JSON or directories. Every case is one SuiteInputError sentence naming the file and the line or field."""

from __future__ import annotations

import json
import os

import pytest
import torch
from test_frail_pairs import upstream_row, write

from causal_suite.errors import SuiteInputError
from frail.cli import main as frail_main
from frail.models.pi import FrailPi
from frail.pairs import read_pairs
from frail.probes import read_probes
from frail.splits import read_sidecar, sidecar_path
from frail.synth import write_synth


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"base_text": 5}, r"field 'base_text' should be a string, got 5"),
        ({"twin_text": ["a"]}, r"field 'twin_text' should be a string, got \['a'\]"),
        ({"operator": 9}, r"field 'operator' should be a string, got 9"),
        ({"complexity_score": 7.5}, r"field 'complexity_score' is 7\.5; it must be in \[0, 1\]"),
        ({"complexity_score": float("inf")}, r"field 'complexity_score' should be a finite number, got inf"),
        ({"injection_size": "2"}, r"field 'injection_size' should be an integer, got '2'"),
        ({"injection_size": 1.5}, r"field 'injection_size' should be an integer, got 1\.5"),
        ({"dose": "9"}, r"field 'dose' should be an integer, got '9'"),
        ({"dose": 0}, r"field 'dose' is 0; it must be at least 1"),
        ({"y_base_mean": "1"}, r"field 'y_base_mean' should be a number, got '1'"),
        ({"y_base_epoch_mean": "half"}, r"field 'y_base_epoch_mean' should be a number, got 'half'"),
        ({"delta_per_model": ["m"]}, r"field 'delta_per_model' should be an object, got \['m'\]"),
        ({"solver": 3}, r"field 'solver' should be a string, got 3"),
    ],
)
def test_bad_pair_row_names_line_and_field(tmp_path, changes, message):
    path = write(tmp_path / "x_m9_pairs.jsonl", [upstream_row(), upstream_row(twin="t2") | changes])
    with pytest.raises(SuiteInputError, match=r"x_m9_pairs\.jsonl, line 2: " + message + r"\.$"):
        read_pairs(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"base_id": "b"}\n{"base_text": "\xff"}\n', r"x_m9_pairs\.jsonl, line 2: not UTF-8 text \(byte 0xff\)\.$"),
        (b"", r"labeled-pair file '.*x_m9_pairs\.jsonl' holds no rows\.$"),
        (None, r"x_m9_pairs\.jsonl is a directory, not a file\.$"),
    ],
)
def test_bad_pair_files(tmp_path, content, message):
    path = tmp_path / "x_m9_pairs.jsonl"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=message):
        read_pairs(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"format": "frail-base-probes",\n"solver": "\xe9"}', r"probes\.json', line 2: not UTF-8 text"),
        (None, r"probes\.json' is a directory, not a file\.$"),
    ],
)
def test_bad_probe_files(tmp_path, content, message):
    path = tmp_path / "probes.json"
    path.mkdir() if content is None else path.write_bytes(content)
    with pytest.raises(SuiteInputError, match=r"^probe file '.*" + message):
        read_probes(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", r"is not valid JSON \(line 1: "),
        (
            json.dumps({"train_ids": "b1", "val_ids": []}),
            r": fields 'train_ids' and 'val_ids' \(lists\) are missing\.$",
        ),
    ],
)
def test_bad_split_sidecar(tmp_path, content, message):
    model = tmp_path / "model.pt"
    sidecar_path(model).write_text(content)
    with pytest.raises(SuiteInputError, match=r"^split sidecar '.*" + message):
        read_sidecar(model)


def test_synth_refusals_name_the_cause_and_write_nothing(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    for argv, message in [
        (["--n-jobs", "-5"], "argument --n-jobs: must be a whole number >= 2, got '-5'"),
        (
            ["--n-jobs", "20", "--twins-per-dose", "0"],
            "argument --twins-per-dose: must be a whole number >= 1, got '0'",
        ),
    ]:
        with pytest.raises(SystemExit) as exit_:
            frail_main(["synth", "--out", str(out), *argv])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(
        SuiteInputError, match=r"^Synth-CD needs at least 1 twin per job and dose, got twins_per_dose=0\.$"
    ):
        write_synth(out, "bernoulli", 20, 7, twins_per_dose=0)
    with pytest.raises(SuiteInputError, match=r"^Synth-CD needs at least 2 jobs .*, got n_jobs=-5\.$"):
        write_synth(out, "continuous", -5, 7)
    assert list(tmp_path.iterdir()) == []
    assert frail_main(["synth", "--out", str(out), "--n-jobs", "20"]) == 0  # the control: both files written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl", "s.truth.jsonl"]


def test_hostile_pair_files_and_saved_models_are_one_sentence(tmp_path, capsys):
    fifo = tmp_path / "f_m1_pairs.jsonl"
    os.mkfifo(fifo)
    assert frail_main(["pairs", str(fifo), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("f_m1_pairs.jsonl is not a regular file (a pipe, socket or device); pass a file.")
    )
    deep = write(tmp_path / "d_m1_pairs.jsonl", [upstream_row()])
    deep.write_text(deep.read_text() + "[" * 100_000 + "\n")
    with pytest.raises(SuiteInputError, match=r"d_m1_pairs\.jsonl, line 2: nested deeper than 100 levels"):
        read_pairs(deep)
    dup = tmp_path / "x_m1_pairs.jsonl"
    dup.write_text(json.dumps(upstream_row()).replace("{", '{"delta_mean": 1.0, ', 1) + "\n")
    with pytest.raises(SuiteInputError, match=r"x_m1_pairs\.jsonl, line 1: key 'delta_mean' appears twice"):
        read_pairs(dup)
    model = tmp_path / "m.pt"
    os.mkfifo(model)
    with pytest.raises(SuiteInputError, match=r"saved Frail-π model '.*m\.pt' is not a regular file"):
        FrailPi.load(model)
    model.unlink()
    torch.save([1, 2], model)
    with pytest.raises(SuiteInputError, match=r"m\.pt' is not a model saved by `frail report --save-models`\.$"):
        FrailPi.load(model)
    model.write_bytes(b"junk")
    with pytest.raises(SuiteInputError, match=r"m\.pt' is not a file torch can load \("):
        FrailPi.load(model)
