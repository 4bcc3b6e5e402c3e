"""The built-in corpora: the GSM-style and MATH-style problems shipped in ``data/`` (written for this suite),
built with the default settings on first use and cached (``$CAUSAL_SUITE_CACHE`` or
``~/.cache/causal-inspect-suite``), keyed by a hash of the data and of the code that builds them.

Distractor donors follow the full builds' recommendation (GlassGSM / GlassMATH README, "Twins that keep the
answer"): the GSM corpus lends its own setup sentences; the MATH corpus takes its distractors from the built-in
GSM problems only (``gsm:`` donors, ``own_donors=False``), as a MATH build from the test set takes them from GSM8K
train, and corpus.json records that donor file (name, sha256, problems) under ``counts.donors.extra_sources``."""

from __future__ import annotations

import hashlib
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

from causal_suite.errors import SuiteInputError
from glass_inspect.answers import SUITES
from glass_inspect.corpus.build import build_corpus

BUILTIN_FILES = {"gsm": "data/gsm_builtin.jsonl", "math": "data/math_builtin.jsonl"}  # inside glass_inspect.corpus
# the donor files of each built-in corpus (suite, file) and whether its own problems lend distractors too
BUILTIN_DONORS = {"gsm": (), "math": (("gsm", BUILTIN_FILES["gsm"]),)}
BUILTIN_OWN_DONORS = {"gsm": True, "math": False}
# what the built corpus depends on, relative to glass_inspect: a change to any of them builds it afresh
_BUILD_INPUTS = (
    "corpus/data/names.json",
    "corpus/operators/__init__.py",
    "corpus/operators/text.py",
    "corpus/operators/names.py",
    "corpus/operators/reorder.py",
    "corpus/operators/adjudicated.py",
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
    donors = tuple(f"corpus/{path}" for _, path in BUILTIN_DONORS[suite])
    for name in (f"corpus/{BUILTIN_FILES[suite]}", *donors, *_BUILD_INPUTS):
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
    try:
        build_builtin(suite, target)
    except (SuiteInputError, OSError):
        if not (target / "corpus.json").exists():  # another process may have won the race
            raise
    return target


def build_builtin(suite: str, out: str | Path, **kwargs) -> Path:
    """Build the built-in corpus of ``suite`` into ``out`` with its donors (``BUILTIN_DONORS``); ``kwargs`` go
    to ``build_corpus`` (seed, doses, overwrite, ...)."""
    pkg = resources.files("glass_inspect.corpus")
    with ExitStack() as stack:
        src = stack.enter_context(resources.as_file(pkg.joinpath(BUILTIN_FILES[suite])))
        donors = [
            f"{donor_suite}:{stack.enter_context(resources.as_file(pkg.joinpath(path)))}"
            for donor_suite, path in BUILTIN_DONORS[suite]
        ]
        return build_corpus(
            suite,
            src,
            out,
            source_label=f"builtin:{BUILTIN_FILES[suite]}",
            donor_sources=donors,
            own_donors=BUILTIN_OWN_DONORS[suite],
            **kwargs,
        )
