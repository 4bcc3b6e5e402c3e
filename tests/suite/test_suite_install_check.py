"""The collection-time check that pytest runs today's code (tests/conftest.py ``stale_install``)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path


def _copy_of_imported(tmp_path: Path) -> Path:
    """A src/ folder holding exactly the suite packages Python imports."""
    src = tmp_path / "src"
    for name in ("causal_suite", "cobe_inspect", "glass_inspect", "causalverify_inspect", "frail"):
        origin = Path(importlib.util.find_spec(name).origin).parent
        shutil.copytree(origin, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    return src


def test_a_src_equal_to_the_imported_copy_is_not_stale(tmp_path, install_check):
    assert install_check(_copy_of_imported(tmp_path)) is None


def test_an_edited_module_is_named(tmp_path, install_check):
    src = _copy_of_imported(tmp_path)
    target = src / "glass_inspect" / "scorers.py"
    target.write_text(target.read_text() + "\n# edited\n")
    assert install_check(src) == "src/glass_inspect/scorers.py differs from the installed copy"


def test_a_new_module_and_a_deleted_module_are_named(tmp_path, install_check):
    src = _copy_of_imported(tmp_path)
    (src / "frail" / "brand_new.py").write_text("x = 1\n")
    assert install_check(src) == "src/frail/brand_new.py differs from the installed copy"
    (src / "frail" / "brand_new.py").unlink()
    (src / "frail" / "pairs.py").unlink()
    assert install_check(src) == "src/frail/pairs.py is installed but no longer in src/"


def test_an_edited_data_file_is_named(tmp_path, install_check):
    src = _copy_of_imported(tmp_path)
    data = next(p for p in sorted((src / "cobe_inspect" / "data").rglob("*")) if p.is_file())
    data.write_bytes(data.read_bytes() + b" ")
    assert install_check(src) == f"src/{data.relative_to(src).as_posix()} differs from the installed copy"
