"""Clear one-sentence errors for missing files and missing extras."""

from __future__ import annotations

import pytest

from causal_suite.errors import SuiteInputError, require_extra, require_file


def test_require_file_names_the_missing_path(tmp_path):
    with pytest.raises(SuiteInputError, match=r"scenario file '.*nope.json' does not exist"):
        require_file(tmp_path / "nope.json", "scenario file")
    assert require_file(tmp_path, "folder") == tmp_path


def test_require_extra_names_the_extra_to_install():
    with pytest.raises(SuiteInputError, match=r"causal-inspect-suite\[local\]"):
        require_extra("surely_not_an_installed_module_xyz", "local", "The offline default model")


def test_strict_params_rejects_unknown_task_parameter_with_one_sentence():
    from causal_suite.errors import strict_params

    @strict_params
    def my_task(tier: int = 1, data: str | None = None) -> tuple[int, str | None]:
        return tier, data

    assert my_task(tier=2) == (2, None)
    with pytest.raises(SuiteInputError) as err:
        my_task(teir=2)
    assert str(err.value) == (
        "Task 'my_task' has no parameter 'teir'; its parameters are tier, data (pass them as -T name=value)."
    )


def test_suite_input_error_is_an_inspect_prerequisite_error():
    """inspect prints PrerequisiteError messages without a traceback."""
    from inspect_ai._util.error import PrerequisiteError

    err = SuiteInputError("file 'x' does not exist")
    assert isinstance(err, PrerequisiteError) and isinstance(err, ValueError)
    assert str(err) == "file 'x' does not exist"
