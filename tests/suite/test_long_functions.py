"""``scripts/long_functions.py``: which functions it lists, and how it measures them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("long_functions", REPO / "scripts" / "long_functions.py")
long_functions = importlib.util.module_from_spec(_spec)
sys.modules["long_functions"] = long_functions
_spec.loader.exec_module(long_functions)


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines (its ``def`` line included)."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 1))
    return f"{indent}def {name}():\n{body}"


def test_lists_functions_over_the_limit_with_qualified_names(tmp_path, capsys):
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "mod.py").write_text(
        "@decorator\n"
        + _function("at_limit", 60)
        + "class Holder:\n"
        + _function("over", 61, indent="    ")
        + "async "
        + _function("outer", 70).replace("    x0 = 0\n", _function("inner", 62, indent="    "), 1)
    )
    rows = long_functions.long_functions([tmp_path / "src"], 60)
    assert [(n, name) for n, _, name in rows] == [(131, "outer"), (62, "outer.inner"), (61, "Holder.over")]
    assert long_functions.main([str(tmp_path / "src")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"131 {src / 'mod.py'} outer"
    assert out[-1] == "3 functions over 60 lines"
    long_functions.main([str(src / "mod.py"), "--max", "100"])
    assert capsys.readouterr().out.splitlines()[-1] == "1 function over 100 lines"


def test_a_missing_folder_is_one_sentence(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        long_functions.main([str(tmp_path / "nowhere")])
    assert stop.value.code == 2
    assert f"no such file or folder: {tmp_path / 'nowhere'}" in capsys.readouterr().err
