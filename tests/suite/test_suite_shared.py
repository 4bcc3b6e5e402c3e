"""The shared pieces of causal_suite used by several packages: parameter lists, unscored values, file digests,
the CLI error wrapper, the fragility definitions and the task-metadata files."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import pytest

from causal_suite import fragility
from causal_suite.errors import SuiteInputError, reports_input_errors
from causal_suite.eval_meta import eval_metadata, task_version
from causal_suite.files import sha256_file
from causal_suite.params import comma_list
from causal_suite.scores import as_float, is_unscored


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1,3, 5", ["1", "3", "5"]),
        (5, ["5"]),
        ([1, 3], ["1", "3"]),
        (["a,b", " c "], ["a", "b", "c"]),
        ("A,,C,", ["A", "C"]),
        ("", []),
        (None, []),
        (("x", "x"), ["x", "x"]),
    ],
)
def test_comma_list(value, expected):
    assert comma_list(value) == expected


def test_unscored_values():
    assert is_unscored(None) and is_unscored(float("nan"))
    assert not is_unscored(0.0) and not is_unscored({"correct": 1}) and not is_unscored("C")
    assert is_unscored({"L2b": 1.0, "L2b_plus": float("nan"), "unscored": 1.0})
    assert not is_unscored({"L2b": 1.0, "L2b_plus": 0.0, "unscored": 0.0})
    assert as_float("1") == 1.0 and as_float(None) is None and as_float(float("nan")) is None
    assert as_float({"a": 1}) is None and as_float("x") is None


def test_sha256_file(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc" * 1_000_000)
    assert sha256_file(path) == hashlib.sha256(b"abc" * 1_000_000).hexdigest()


def test_reports_input_errors(capsys):
    @reports_input_errors("tool")
    def main(fail: bool) -> int:
        if fail:
            raise SuiteInputError("file 'x' does not exist: check the path you passed.")
        return 0

    assert main(False) == 0
    assert main(True) == 2
    assert capsys.readouterr().err == "tool: error: file 'x' does not exist: check the path you passed.\n"


def test_break_event_and_rates_on_numbers_and_arrays():
    assert fragility.break_event(1.0, 0.0) is True
    assert not fragility.break_event(0.0, 0.0) and not fragility.break_event(1.0, 1.0)
    yb, yt = np.array([1.0, 1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 0.0])
    assert fragility.break_event(yb, yt).tolist() == [True, False, False, True]
    assert fragility.break_event(pd.Series(yb), pd.Series(yt)).tolist() == [True, False, False, True]
    assert fragility.break_rate(yb, yt) == pytest.approx(2 / 3)  # the unsolved base's pair is censored
    assert math.isnan(fragility.break_rate([0.0], [0.0])) and math.isnan(fragility.break_rate([], []))


def test_pi_and_the_fragility_threshold():
    assert fragility.ccd_pi(1.0, [0.0, 1.0, 1.0, 1.0]) == 0.25
    assert math.isnan(fragility.ccd_pi(0.0, [0.0, 1.0])) and math.isnan(fragility.ccd_pi(1.0, []))
    pis = fragility.pi_from_counts(np.array([1.0, 0.0, 2.0]), np.array([4, 5, 2]), np.array([1.0, 1.0, 0.0]))
    assert pis[:2].tolist() == [0.25, 0.0] and math.isnan(pis[2])
    assert fragility.FRAGILE_THRESHOLD == 0.05
    assert fragility.is_fragile(0.06) and not fragility.is_fragile(0.05) and not fragility.is_fragile(float("nan"))
    assert fragility.is_fragile(np.array([0.0, 0.2])).tolist() == [False, True]


@pytest.mark.parametrize("package", ["glass_inspect", "cobe_inspect"])
def test_every_task_has_a_version_in_one_scheme(package):
    import importlib

    from causal_suite.inspect_compat import registry_find, registry_info

    importlib.import_module(f"{package}._registry")
    tasks = {
        registry_info(t).name.split("/")[-1]
        for t in registry_find(lambda i: i.type == "task")
        if registry_info(t).name.startswith(f"{package}/")
    }
    listed = {entry["name"] for entry in eval_metadata(package)["tasks"]}
    assert tasks == listed
    for name in tasks:
        major, letter = task_version(package, name).split("-")
        assert int(major) >= 1 and letter.isupper() and len(letter) == 1
    with pytest.raises(ValueError, match="no entry"):
        task_version(package, "nope")
