"""Bad Frail input: LabeledPair rows of the wrong type or range, pair, probe and split-sidecar files that are not
UTF-8, not JSON or directories. Every case is one SuiteInputError sentence naming the file and the line or field."""

from __future__ import annotations

import json

import pytest
from test_frail_pairs import upstream_row, write

from causal_suite.errors import SuiteInputError
from frail.pairs import read_pairs
from frail.probes import read_probes
from frail.splits import read_sidecar, sidecar_path


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
