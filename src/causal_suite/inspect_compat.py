"""The few inspect-ai internals the suite needs, imported in this one place.

inspect-ai has no public API for these (checked against 0.3.285); should a release move one, only this module
changes. Nothing else in ``src/`` imports ``inspect_ai._...``.

- ``PrerequisiteError``: the exception inspect prints as one sentence instead of a traceback (the base of
  ``causal_suite.errors.SuiteInputError``).
- ``active_generate_config()``: the run's resolved ``GenerateConfig`` (seed, cache) inside a solver.
- ``registry_find`` / ``registry_info``: the registered tasks and their parameters (``causal-suite tasks``);
  ``registry_unqualified_name``: a registered object's name without its package (the sandbox type exp_b runs in).
- ``active_model()``: the model under evaluation, None outside an eval (CoBe's judge check at task construction).
- ``register_bare_scorers()``: the registry's own table, to add a package scorer under its bare name (below).
"""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError
from inspect_ai._util.registry import _registry, registry_find, registry_info, registry_key, registry_unqualified_name
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.model._model import active_model

__all__ = [
    "PrerequisiteError",
    "register_bare_scorers",
    "active_generate_config",
    "active_model",
    "registry_find",
    "registry_info",
    "registry_unqualified_name",
]


def register_bare_scorers(*scorers: object) -> None:
    """Also register each ``@scorer`` function of a package under its bare name (``glass_match`` beside
    ``glass_inspect/glass_match``).

    inspect records a log's scorers by their unqualified names, and ``inspect score LOG`` looks those names up as
    they are, which finds only inspect's own scorers (0.3.285: ``as_scorer_spec`` / ``registry_lookup``); with the
    bare name registered too, ``inspect score LOG`` re-creates the suite's scorers with the arguments the log
    recorded. A bare name inspect or another package already holds is left alone.
    """
    for fn in scorers:
        name = registry_unqualified_name(fn)
        key = registry_key("scorer", name)
        if key not in _registry and registry_key("scorer", f"inspect_ai/{name}") not in _registry:
            _registry[key] = fn
