"""The break event B, CCD π and the fragility threshold: defined once, used by the glass metrics and by Frail.

From *Fragility Is Not Reducible to Hardness: Conditional Causal Difficulty for LLMs* (arXiv:2611.02065), §1 and
§7 step 9. Y(J) is 1 when the model's (modal) answer to problem J is right, 0 otherwise; T(J) is a
meaning-preserving twin of J.

* break event ``B(J, T) = 1{Y(J) = 1 and Y(T(J)) = 0}``: the twin breaks a problem the model solved;
* break rate ``P(B = 1 | Y(J) = 1)`` over a set of (base, twin) pairs: pairs of unsolved bases are censored
  (they can neither break nor count), so the rate is over the solvable stratum only;
* CCD ``π(J) = E_T[B(J, T) | Y(J) = 1]``: the share of J's twins that break it, defined only when Y(J) = 1;
* a problem is *fragile* when ``π(J) > FRAGILE_THRESHOLD`` (0.05).

Pure functions, no inspect import. ``break_event``, ``solved``, ``is_fragile`` and ``pi_from_counts`` work
elementwise on numpy arrays and pandas Series as well as on plain numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

FRAGILE_THRESHOLD = 0.05  # §7 step 9: a base is fragile when π > 0.05


def solved(y_base: Any) -> Any:
    """Y(J) = 1: the base is in the solvable stratum."""
    return y_base == 1.0


def break_event(y_base: Any, y_twin: Any) -> Any:
    """B(J, T) = 1{Y(J) = 1 and Y(T(J)) = 0} (a bool, or a boolean array elementwise)."""
    return solved(y_base) & (y_twin == 0.0)


def break_rate(y_base: Iterable[float], y_twin: Iterable[float]) -> float:
    """P(B = 1 | Y(J) = 1) over paired outcomes; NaN when no base of the pairs is solved."""
    breaks = [bool(break_event(b, t)) for b, t in zip(y_base, y_twin, strict=False) if solved(b)]
    return sum(breaks) / len(breaks) if breaks else float("nan")


def pi_from_counts(n_breaks: Any, n_twins: Any, y_base: Any) -> Any:
    """π(J) = n_breaks / n_twins on the solvable stratum, NaN off it (numbers or arrays, elementwise)."""
    return np.where(solved(y_base), np.divide(n_breaks, n_twins), np.nan)


def ccd_pi(y_base: float, y_twins: Iterable[float]) -> float:
    """π(J) of one base from its outcome and its twins' outcomes; NaN when Y(J) = 0 or it has no twin."""
    outcomes = list(y_twins)
    if not outcomes:
        return float("nan")
    return float(pi_from_counts(sum(bool(break_event(y_base, t)) for t in outcomes), len(outcomes), y_base))


def is_fragile(pi: Any, threshold: float = FRAGILE_THRESHOLD) -> Any:
    """π(J) > threshold (0.05 by default); False for NaN (an unsolved base is never fragile)."""
    return pi > threshold
