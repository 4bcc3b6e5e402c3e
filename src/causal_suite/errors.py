"""One-sentence errors for bad user input (missing files, extras, parameters)."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType


class SuiteInputError(ValueError):
    """Bad input from the user: the message says what is wrong and what to do."""


def require_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or fail with one sentence naming the extra that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise SuiteInputError(
            f"{purpose} needs the Python package '{module}', which is not installed: "
            f"run `pip install 'causal-inspect-suite[{extra}]'` (or `bash scripts/setup.sh`)."
        ) from exc


def require_file(path: str | Path, what: str) -> Path:
    """Return ``path`` as a Path if it exists, else fail with one sentence naming it."""
    p = Path(path).expanduser()
    if not p.exists():
        raise SuiteInputError(f"{what} '{p}' does not exist: check the path you passed.")
    return p
