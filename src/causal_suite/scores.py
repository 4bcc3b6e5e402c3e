"""Reading score values back: what counts as unscored.

A sample whose scorer could not decide (a judge reply that stayed unreadable, an extraction failure) is recorded
by inspect's ``Score.unscored(...)``, whose value is NaN, or by a score dict whose ``unscored`` key is set; a
missing score reads as ``None``. Such a sample is excluded from every metric and counted, never scored as wrong.
"""

from __future__ import annotations

import math
from typing import Any


def is_unscored(value: Any) -> bool:
    """True for a missing (None) or NaN score value, or a score dict that marks itself ``unscored`` (a run whose
    headline stays unknown although its other keys are known, as CausalVerify's unresolved extractions)."""
    if isinstance(value, dict):
        return bool(value.get("unscored"))
    return value is None or (isinstance(value, float) and math.isnan(value))


def as_float(value: Any) -> float | None:
    """A score value as a float; None for a missing, non-numeric or NaN (unscored) value."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out
