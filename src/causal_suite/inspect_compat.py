"""The few inspect-ai internals the suite needs, imported in this one place.

inspect-ai has no public API for these (checked against 0.3.285); should a release move one, only this module
changes. Nothing else in ``src/`` imports ``inspect_ai._...``.

- ``PrerequisiteError``: the exception inspect prints as one sentence instead of a traceback (the base of
  ``causal_suite.errors.SuiteInputError``).
- ``active_generate_config()``: the run's resolved ``GenerateConfig`` (seed, cache) inside a solver.
- ``registry_find`` / ``registry_info``: the registered tasks and their parameters (``causal-suite tasks``);
  ``registry_unqualified_name``: a registered object's name without its package (the sandbox type exp_b runs in).
- ``active_model()``: the model under evaluation, None outside an eval (CoBe's judge check at task construction).
"""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError
from inspect_ai._util.registry import registry_find, registry_info, registry_unqualified_name
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.model._model import active_model

__all__ = [
    "PrerequisiteError",
    "active_generate_config",
    "active_model",
    "registry_find",
    "registry_info",
    "registry_unqualified_name",
]
