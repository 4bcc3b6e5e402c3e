"""Exp B scenario tooling (paper §3, App. C.1): records, data-generating processes, canonical estimators, the
consistency audit and the scenario sources. The eval layer (dataset, scorers, tasks) imports from here; nothing
here imports the eval layer.

Modules, each importing only those above it: :mod:`.records` (types and checked readers), :mod:`.estimators`
(canonical estimates), :mod:`.consistency` (the audit), :mod:`.dgp` (our fixed-seed set), :mod:`.sources`
(built-in, ``causalverify-data`` folders, upstream's layout), :mod:`.cli` (``causalverify-data``).
"""

from causalverify_inspect.scenarios.records import (
    DIFFICULTIES,
    DIRECTIONS,
    FAMILIES,
    CanonicalEstimate,
    Scenario,
    iv_default_controls,
)
from causalverify_inspect.scenarios.sources import load_scenarios

__all__ = [
    "DIFFICULTIES",
    "DIRECTIONS",
    "FAMILIES",
    "CanonicalEstimate",
    "Scenario",
    "iv_default_controls",
    "load_scenarios",
]
