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


def test_a_parameter_of_another_suite_task_is_dropped_with_a_warning(caplog):
    """inspect eval-set over glass and exp_b with -T sandbox=confined: glass ignores 'sandbox', a typo still fails."""
    import logging

    import pytest

    from causal_suite.errors import SuiteInputError
    from glass_inspect.task import glassgsm

    with caplog.at_level(logging.WARNING):
        task = glassgsm(sandbox="confined", doses="1")
    assert task is not None
    assert "has no parameter 'sandbox' (another suite task's)" in caplog.text
    with pytest.raises(SuiteInputError, match="has no parameter 'sandbx'"):
        glassgsm(sandbx="confined")


@pytest.mark.needs_r
@pytest.mark.needs_bwrap
def test_eval_set_over_glass_and_exp_b_with_one_sandbox_parameter(tmp_path, scripted):
    from inspect_ai import eval_set

    success, logs = eval_set(
        ["glass_inspect/glassgsm", "causalverify_inspect/exp_b"],
        log_dir=str(tmp_path),
        model=scripted("The answer is 3."),
        task_args={"sandbox": "confined", "ids": "did_easy_01"},
        limit=2,
        epochs=1,
        display="none",
        retry_attempts=0,
    )
    assert success and len(logs) == 2
