"""One-sentence errors for bad user input (missing files, extras, parameters)."""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from causal_suite.inspect_compat import PrerequisiteError
from causal_suite.registration import suite_parameters

F = TypeVar("F", bound=Callable[..., Any])


class SuiteInputError(PrerequisiteError, ValueError):
    """Bad input from the user: the message says what is wrong and what to do.

    A ``PrerequisiteError`` to inspect, so ``inspect eval`` prints the sentence instead of a traceback.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.message)


logger = logging.getLogger(__name__)


def strict_params(fn: F | None = None, *, hints: dict[str, str] | None = None) -> Any:
    """Make a ``@task`` function reject parameters it does not have (inspect only warns and runs on).

    Apply below ``@task`` (``@strict_params`` or ``@strict_params(hints={...})``). An unknown ``-T name=value``
    then fails with one sentence listing the valid names, unless another task of the suite takes that parameter
    (``causal_suite.registration``: the tasks each benchmark declares): then it is dropped with a warning, as inspect does, so one ``inspect eval-set`` over several suite tasks can pass
    each its own parameters (a typo still fails). ``hints`` maps a parameter the task no longer takes to the
    sentence that says what to pass instead (it fails with that sentence, even if another suite task takes it).
    """
    if fn is None:
        return functools.partial(strict_params, hints=hints)
    sig = inspect.signature(fn)
    valid = [p for p in sig.parameters if sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD]
    moved = dict(hints or {})

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name in sorted(set(kwargs) & set(moved)):
            raise SuiteInputError(f"Task '{fn.__name__}' has no parameter '{name}': {moved[name]}")
        unknown = set(kwargs) - set(valid)
        foreign = unknown & suite_parameters() if unknown else set()
        if unknown - foreign:
            raise SuiteInputError(
                f"Task '{fn.__name__}' has no parameter {', '.join(repr(u) for u in sorted(unknown - foreign))}; "
                f"its parameters are {', '.join(valid) or '(none)'} (pass them as -T name=value)."
            )
        for name in sorted(foreign):
            logger.warning(f"Task '{fn.__name__}' has no parameter '{name}' (another suite task's); it is ignored.")
        return fn(*args, **{k: v for k, v in kwargs.items() if k not in foreign})

    extra = inspect.Parameter("unknown_params", inspect.Parameter.VAR_KEYWORD)
    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), extra])  # type: ignore[attr-defined]
    return wrapper


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


def reports_input_errors(prog: str) -> Callable[[F], F]:
    """Decorate a command's ``main``: a ``SuiteInputError`` becomes one line ``<prog>: error: <sentence>`` on
    stderr and exit code 2 (argparse's own convention for bad usage), never a traceback."""

    def decorate(main: F) -> F:
        @functools.wraps(main)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return main(*args, **kwargs)
            except SuiteInputError as exc:
                print(f"{prog}: error: {exc}", file=sys.stderr)
                return 2

        return wrapper  # type: ignore[return-value]

    return decorate
