"""Task parameters read from the task docstrings: ``causal-suite tasks`` and the generated README tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from causal_suite.errors import SuiteInputError
from causal_suite.taskdoc import TABLE_END, docstring_args, render_tables, suite_tasks, task_params

READMES = sorted(Path(__file__).resolve().parents[2].glob("src/*/README.md"))


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.parent.name)
def test_readme_parameter_tables_are_the_docstrings(readme):
    text = readme.read_text(encoding="utf-8")
    assert render_tables(text) == text, f"{readme.parent.name}/README.md: run python scripts/param_tables.py"


def test_every_benchmark_readme_has_a_generated_table():
    tables = "".join(p.read_text(encoding="utf-8") for p in READMES)
    for name in suite_tasks():
        assert f"<!-- parameters: {name} -->" in tables or name == "glass_inspect/glassmath"  # shares glassgsm's


def test_a_hand_edited_table_is_found_and_regenerated():
    readme = next(p for p in READMES if p.parent.name == "cobe_inspect").read_text(encoding="utf-8")
    edited = readme.replace("| `tier` | `int` | `1` |", "| `tier` | `int` | `2` |")
    assert edited != readme
    assert render_tables(edited) == readme


def test_every_parameter_of_every_task_has_its_type_default_and_help():
    for name, fn in suite_tasks().items():
        params = task_params(name, fn)
        assert params and all(p.type and p.default and len(p.help) > 10 for p in params), name
    [tier] = [p for p in task_params("cobe_inspect/cobe", suite_tasks()["cobe_inspect/cobe"]) if p.name == "tier"]
    assert (tier.type, tier.default) == ("int", "1") and tier.help.startswith("Prompt tier of App. E: 1")


def test_docstring_args_joins_continuation_lines_and_stops_at_the_next_section():
    doc = (
        "Summary.\n\nArgs:\n    a: First line\n        goes on.\n    b (int): Second.\n\nReturns:\n    c: not an arg\n"
    )
    assert docstring_args(doc) == {"a": "First line goes on.", "b": "Second."}


def test_an_undocumented_parameter_and_an_unknown_table_task_are_one_sentence():
    def task_fn(documented: int = 1, forgotten: str = "x") -> None:
        """A task.

        Args:
            documented: Described.
        """

    with pytest.raises(SuiteInputError, match="does not describe 'forgotten'"):
        task_params("demo/task_fn", task_fn)
    with pytest.raises(SuiteInputError, match="no suite task has that name"):
        render_tables(f"<!-- parameters: nosuch/task -->\n{TABLE_END}")
