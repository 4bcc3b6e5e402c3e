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
