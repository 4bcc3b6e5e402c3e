"""Analysis helpers over inspect's dataframes (``inspect_ai.analysis.samples_df`` and friends).

inspect stores a dict-valued score (CoBe's E0/E1/E2/correct, Exp B's L1...L2b+) as one JSON string per sample;
:func:`expand_scores` turns each key into a numeric column so the usual pandas grouping works::

    from inspect_ai.analysis import samples_df
    from causal_suite.frames import expand_scores

    df = expand_scores(samples_df("logs/"))
    df.groupby("metadata_family")["score_exp_b_scorer_L2b_plus"].mean()
"""

from __future__ import annotations

import json
import math

import pandas as pd


def _as_dict(value: object) -> dict | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            doc = json.loads(value)
        except json.JSONDecodeError:
            return None
        return doc if isinstance(doc, dict) else None
    return None


def expand_scores(df: pd.DataFrame, prefix: str = "score_") -> pd.DataFrame:
    """``df`` with every ``score_<scorer>`` column holding dicts replaced by ``score_<scorer>_<key>`` columns.

    A row whose score is missing or not a dict (an unscored sample, another task's row) gets NaN in the new
    columns; columns of plain scores are left as they are.
    """
    out = df.copy()
    for column in [c for c in df.columns if c.startswith(prefix)]:
        # a plain list: a pandas Series of dicts may hold pd.NA for a missing score (samples_df gives pyarrow
        # strings), and the truth value of NA is undefined
        dicts = [_as_dict(v) for v in df[column].astype(object)]
        if all(d is None for d in dicts):
            continue
        keys = list(dict.fromkeys(k for d in dicts if d is not None for k in d))
        for key in keys:
            values = [_number(d.get(key)) if d is not None else math.nan for d in dicts]
            out[f"{column}_{key}"] = pd.Series(values, index=df.index, dtype=float)
        out = out.drop(columns=column)
    return out


def _number(value: object) -> float:
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, (int, float)) else math.nan
