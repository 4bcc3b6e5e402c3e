"""Bad input to exp_b, refused before any sample runs: scenario records, scenario CSVs (non-UTF-8, a directory,
NaN / inf, ragged rows), data files outside the scenario folder, upstream files and cached responses. Every case is
one SuiteInputError sentence naming the file and the line or field."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_cv_scenarios import _ours, _rdd_csv, _record
from test_cv_task import scenario_dir  # noqa: F401 (fixture: four scenarios t1-t4 in causalverify-data's layout)

from causal_suite.errors import SuiteInputError
from causalverify_inspect.dataset import check_cached_responses, exp_b_dataset
from causalverify_inspect.scenarios import load_scenarios
from causalverify_inspect.scenarios.cli import main as causalverify_data
from causalverify_inspect.task import exp_b


def _write_records(root: Path, records_text: str | bytes) -> Path:
    _ours(root, [_record()])
    path = root / "scenarios.json"
    path.write_bytes(records_text) if isinstance(records_text, bytes) else path.write_text(records_text)
    return root


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"scenarios": [\n{"title": "caf\xe9"}]}', r"scenarios\.json', line 2: not UTF-8 text"),
        ("", r"scenarios\.json' is not valid JSON \(line 1: Expecting value\)"),
        ("[1, 2]", r"scenarios\.json': field 'scenarios' \(a list\) is missing"),
        ('{"scenarios": [7]}', r"record #0: a scenario record should be an object, got int"),
    ],
)
def test_bad_records_file(tmp_path, content, message):
    with pytest.raises(SuiteInputError, match=message):
        load_scenarios(_write_records(tmp_path, content))


def test_records_file_that_is_a_directory(tmp_path):
    (tmp_path / "scenarios.json").mkdir()
    with pytest.raises(SuiteInputError, match=r"scenarios\.json' is a directory, not a file\.$"):
        load_scenarios(tmp_path)


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"title": 5}, r"field 'title' should be a string, got 5"),
        ({"true_effect": "big"}, r"field 'true_effect' should be a number, got 'big'"),
        ({"true_effect": float("nan")}, r"field 'true_effect' should be a finite number, got nan"),
        (
            {"canonical": {"estimate": float("inf"), "se": 0.1, "n": 5, "spec": "s"}},
            r"canonical: field 'estimate' should be a finite number, got inf",
        ),
        (
            {"canonical": {"estimate": 1.0, "se": 0.1, "n": 5.5, "spec": "s"}},
            r"canonical: field 'n' should be an integer",
        ),
        ({"ground_truth": []}, r"field 'ground_truth' should be an object, got \[\]"),
        ({"sha256": 12}, r"field 'sha256' should be a string or null, got 12"),
        ({"data_file": "/etc/passwd"}, r"field 'data_file' is '/etc/passwd'; it must be a relative path inside"),
        ({"data_file": "../../outside.csv"}, r"field 'data_file' is '\.\./\.\./outside\.csv'; it must be a relative"),
        ({"data_file": "data/../../x.csv"}, r"field 'data_file' is 'data/\.\./\.\./x\.csv'"),
        ({"data_file": ""}, r"field 'data_file' is ''; it must be a relative path"),
    ],
)
def test_bad_record_field(tmp_path, over, message):
    root = _ours(tmp_path / "set", [_record(**over)])
    with pytest.raises(SuiteInputError, match=r"scenarios\.json', record rdd_easy_01:? " + message):
        load_scenarios(root)


def test_data_file_linked_outside_the_folder_is_refused(tmp_path):
    _rdd_csv(tmp_path / "outside.csv")
    root = _ours(tmp_path / "set", [_record(data_file="data/link.csv")])
    os.symlink(tmp_path / "outside.csv", root / "data" / "link.csv")
    message = (
        r"field 'data_file' 'data/link\.csv' is a symbolic link to '.*outside\.csv', outside the scenario folder "
        r"'.*set'; copy the file into the folder instead of linking it\.$"
    )
    with pytest.raises(SuiteInputError, match=message):
        load_scenarios(root)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"running_var,treated,y\n0.6,1,\xff\n", r"rdd_easy_01\.csv', line 2: not UTF-8 text \(byte 0xff\)"),
        (b"running_var,treated,y\n0.6,1,2.0\n0.7,1,\n", r"rdd_easy_01\.csv', line 3, column 'y': nan is not a finite"),
        (
            b"running_var,treated,y\n0.6,1,2.0\n0.7,1,NaN\n",
            r"rdd_easy_01\.csv', line 3, column 'y': nan is not a finite",
        ),
        (
            b"running_var,treated,y\ninf,1,2.0\n",
            r"rdd_easy_01\.csv', line 2, column 'running_var': inf is not a finite",
        ),
        (
            b"running_var,treated,y\n0.6,1,2.0\n0.7,1,2.0,9\n",
            r"rdd_easy_01\.csv' is not a well-formed CSV table \(Error",
        ),
    ],
)
def test_bad_scenario_csv_refuses_the_dataset(tmp_path, content, message):
    root = _ours(tmp_path, [_record()])
    (root / "data" / "rdd_easy_01.csv").write_bytes(content)
    with pytest.raises(SuiteInputError, match=r"^Scenario rdd_easy_01: data file '.*" + message):
        exp_b_dataset(root)


def test_scenario_csv_that_is_a_directory(tmp_path):
    root = _ours(tmp_path, [_record()])
    (root / "data" / "rdd_easy_01.csv").unlink()
    (root / "data" / "rdd_easy_01.csv").mkdir()
    with pytest.raises(SuiteInputError, match=r"rdd_easy_01\.csv' is a directory, not a file\.$"):
        exp_b_dataset(root)


def _upstream(root: Path, **over) -> Path:
    """A one-scenario folder in upstream's layout (RDD, canonical computed from the data)."""
    rec = {
        "scenario_id": "s01",
        "method_family": "RDD",
        "difficulty": "easy",
        "title": "t",
        "research_question": "q",
        "data_description": "d",
        "data_file": "experiments/exp_b/data/s01_data.csv",
        "dgp_truth": {"effect": 4.0, "direction": "positive"},
        "ground_truth": {},
        **over,
    }
    folder = root / "experiments/exp_b/scenarios"
    folder.mkdir(parents=True)
    (folder / "s01.json").write_text(json.dumps(rec))
    _rdd_csv(root / "experiments/exp_b/data/s01_data.csv")
    return root


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda r: (r / "experiments/exp_b/scenarios/s01.json").write_text("[]"),
            r"s01\.json' should hold a JSON object, not a list",
        ),
        (
            lambda r: (r / "experiments/exp_b/scenarios/s01.json").write_bytes(b"{\n\n\x80}"),
            r"s01\.json', line 3: not UTF-8 text",
        ),
        (
            lambda r: (r / "audit").mkdir() or (r / "audit/dgp_verification.json").write_text('{"results": 3}'),
            r"dgp_verification\.json': field 'results' should be a list, got 3",
        ),
        (
            lambda r: (r / "experiments/exp_b/data/s01_data.csv").write_text("running_var,treated,y\n0.5,1,-inf\n"),
            r"s01_data\.csv', line 2, column 'y': -inf is not a finite number",
        ),
    ],
)
def test_bad_upstream_files(tmp_path, damage, message):
    root = _upstream(tmp_path)
    damage(root)
    with pytest.raises(SuiteInputError, match=message):
        load_scenarios(root)


@pytest.mark.parametrize("data_file", ["/etc/hostname", "../../../etc/hostname"])
def test_upstream_data_file_outside_the_folder(tmp_path, data_file):
    with pytest.raises(SuiteInputError, match=r"s01\.json', record s01: field 'data_file' is .*; it must be"):
        load_scenarios(_upstream(tmp_path, data_file=data_file))


def _responses(folder: Path, ids: list[str]) -> Path:
    folder.mkdir()
    for sid in ids:
        (folder / f"{sid}_m.json").write_text(json.dumps({"llm_response": {"content": f"answer {sid}"}}))
    return folder


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_text(""), r"t3_m\.json' is not valid JSON \(line 1: Expecting value\)\.$"),
        (lambda p: p.write_text("{oops"), r"t3_m\.json' is not valid JSON \(line 1: "),
        (lambda p: p.write_bytes(b'{"llm_response": {"content": "\xe9"}}'), r"t3_m\.json', line 1: not UTF-8 text"),
        (
            lambda p: p.write_text('{"llm_response": {"content": 3}}'),
            r"t3_m\.json': field 'llm_response\.content' should be a string, got 3\.$",
        ),
        (
            lambda p: p.write_text('{"llm_response": "text"}'),
            r"t3_m\.json': field 'llm_response\.content' should be a string, got None\.$",
        ),
        (lambda p: p.write_text("[]"), r"t3_m\.json': field 'llm_response\.content' should be a string, got None\.$"),
        (lambda p: p.unlink() or p.mkdir(), r"t3_m\.json' is a directory, not a file\.$"),
    ],
)
def test_one_bad_cached_response_among_good_ones_fails_up_front(tmp_path, damage, message):
    folder = _responses(tmp_path / "responses", ["t1", "t2", "t3", "t4"])
    damage(folder / "t3_m.json")
    with pytest.raises(SuiteInputError, match=r"^Cached response '.*" + message):
        check_cached_responses(folder, "m", ["t1", "t2", "t3", "t4"])


def test_exp_b_refuses_a_bad_cached_response_at_construction(scenario_dir, tmp_path):  # noqa: F811
    folder = _responses(tmp_path / "responses", ["t1", "t2", "t3", "t4"])
    (folder / "t2_m.json").write_text("")
    with pytest.raises(SuiteInputError, match=r"t2_m\.json' is not valid JSON"):
        exp_b(scenarios=str(scenario_dir), responses=str(folder), responses_model="m")
    (folder / "t2_m.json").write_text(json.dumps({"llm_response": {"content": ""}}))  # an empty answer is an answer
    check_cached_responses(folder, "m", ["t1", "t2", "t3", "t4"])
    with pytest.raises(SuiteInputError, match=r"Cached responses folder '.*t1_m\.json' is a file"):
        exp_b(scenarios=str(scenario_dir), responses=str(folder / "t1_m.json"), responses_model="m")


@pytest.mark.parametrize("sid", ["../escape", "a/b", ".hidden", "x\\y"])
def test_cached_response_path_stays_in_its_folder(tmp_path, sid):
    from causalverify_inspect.dataset import cached_response_path

    with pytest.raises(SuiteInputError, match="plain file inside the responses folder"):
        cached_response_path(tmp_path, sid, "gpt-4o")
    assert cached_response_path(tmp_path, "s01", "openai/gpt-4o").name == "s01_openai-gpt-4o.json"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda p: p.write_text('{"llm_response": {"content": "cat(1)", "content": "cat(2)"}}'),
            r"t3_m\.json', line 1: key 'content' appears twice in one object",
        ),
        (lambda p: p.write_bytes(b"[" * 100_000 + b"]" * 100_000), r"t3_m\.json', line 1: nested deeper than 100"),
        (lambda p: p.unlink() or os.mkfifo(p), r"t3_m\.json' is not a regular file \(a pipe, socket or device\)"),
        (lambda p: p.unlink() or p.symlink_to("/dev/zero"), r"t3_m\.json' is not a regular file"),
    ],
)
def test_hostile_cached_response_is_one_sentence(tmp_path, damage, message):
    folder = _responses(tmp_path / "responses", ["t1", "t2", "t3", "t4"])
    damage(folder / "t3_m.json")
    with pytest.raises(SuiteInputError, match=r"^Cached response '.*" + message):
        check_cached_responses(folder, "m", ["t1", "t2", "t3", "t4"])


def _touch(path: Path) -> Path:
    path.touch()
    return path


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda root: os.mkfifo(root / "data" / "fifo.csv"), r"fifo\.csv' is not a regular file"),
        (lambda root: (root / "data" / "fifo.csv").symlink_to("/dev/zero"), r"is a symbolic link to '/dev/zero'"),
        (
            lambda root: os.truncate(_touch(root / "data" / "fifo.csv"), 300 << 20),  # sparse: no disk used
            r"fifo\.csv' is 300 MiB \(314,572,800 bytes\), over the 256 MiB limit for this kind of input\.$",
        ),
    ],
)
def test_hostile_scenario_csv_is_one_sentence(tmp_path, damage, message):
    root = _ours(tmp_path / "set", [_record(data_file="data/fifo.csv")])
    damage(root)
    with pytest.raises(SuiteInputError, match=message):
        exp_b_dataset(root)


def test_records_with_a_key_twice_or_nested_deep_are_refused(tmp_path):
    with pytest.raises(SuiteInputError, match=r"scenarios\.json', line 1: key 'seed' appears twice in one object"):
        load_scenarios(_write_records(tmp_path / "a", '{"seed": 1, "seed": 2, "scenarios": []}'))
    with pytest.raises(SuiteInputError, match=r"scenarios\.json', line 1: nested deeper than 100 levels"):
        load_scenarios(_write_records(tmp_path / "b", b'{"scenarios": ' + b"[" * 100_000))


def test_causalverify_data_refusals_exit_2(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    assert causalverify_data(["--out", str(tmp_path / "f")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"causalverify-data: error: Output folder '{tmp_path / 'f'}' is a file; pick a new or empty folder."
    )
    assert causalverify_data(["--out", str(tmp_path / "f" / "set")]) == 2
    assert "cannot be written (Not a directory)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        causalverify_data(["--out", str(tmp_path / "set"), "--seed", "-1"])
    assert exit_.value.code == 2 and "argument --seed: must be a whole number >= 0, got '-1'" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]
