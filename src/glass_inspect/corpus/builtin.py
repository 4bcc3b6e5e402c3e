"""The built-in corpora: the GSM-style and MATH-style problems shipped in ``data/`` (written for this suite),
built with the default settings on first use and cached (``$CAUSAL_SUITE_CACHE`` or
``~/.cache/causal-inspect-suite``), keyed by a hash of the data and of the code that builds them."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from causal_suite.errors import SuiteInputError
from glass_inspect.answers import SUITES
from glass_inspect.corpus.build import build_corpus

BUILTIN_FILES = {"gsm": "data/gsm_builtin.jsonl", "math": "data/math_builtin.jsonl"}  # inside glass_inspect.corpus
# what the built corpus depends on, relative to glass_inspect: a change to any of them builds it afresh
_BUILD_INPUTS = (
    "corpus/data/names.json",
    "corpus/operators/__init__.py",
    "corpus/operators/text.py",
    "corpus/operators/names.py",
    "corpus/operators/reorder.py",
    "corpus/operators/distract.py",
    "corpus/audit.py",
    "corpus/build.py",
    "corpus/sources.py",
    "corpus/complexity.py",
    "corpus/contract.py",
    "answers.py",
)


def _code_key(suite: str) -> str:
    h = hashlib.sha256()
    pkg = resources.files("glass_inspect")
    for name in (f"corpus/{BUILTIN_FILES[suite]}", *_BUILD_INPUTS):
        h.update(name.encode() + b"\0" + pkg.joinpath(name).read_bytes())
    return h.hexdigest()[:16]


def default_corpus(suite: str) -> Path:
    """The corpus of the built-in problems of ``suite``, built on first use into the cache
    (``$CAUSAL_SUITE_CACHE`` or ``~/.cache/causal-inspect-suite``), keyed by a hash of the data and code."""
    from causal_suite.offline_model import cache_dir

    if suite not in SUITES:
        raise SuiteInputError(f"unknown suite {suite!r}: expected one of {', '.join(SUITES)}.")
    target = cache_dir() / "glass" / f"{suite}-{_code_key(suite)}"
    if (target / "corpus.json").exists():
        return target
    with resources.as_file(resources.files("glass_inspect.corpus").joinpath(BUILTIN_FILES[suite])) as src:
        try:
            build_corpus(suite, src, target, source_label=f"builtin:{BUILTIN_FILES[suite]}")
        except (SuiteInputError, OSError):
            if not (target / "corpus.json").exists():  # another process may have won the race
                raise
    return target
