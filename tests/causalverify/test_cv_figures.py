"""Exp B's report figures count each run in the rates its score knows: a run whose estimate stayed unknown (its
score dict marked ``unscored``, L2b+ and the sweep NaN) counts in L1..L2b and is out of L2b+ and the sweep, as in
the log's own metrics (``causalverify_inspect.metrics``)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from inspect_ai.scorer import Score

from causal_suite.figures import ReportOptions
from causal_suite.logs import LogSample
from causalverify_inspect.figures import exp_b_figures
from causalverify_inspect.metrics import SWEEP, sweep_key


def _run(sample_id: str, passed: float, unscored: bool = False) -> LogSample:
    value = {"L1": 1.0, "L2a": 1.0, "L2b": 1.0, "L2b_plus": math.nan if unscored else passed}
    value |= {sweep_key(t): value["L2b_plus"] for t in SWEEP} | {"unscored": float(unscored)}
    return LogSample(sample_id, 1, None, None, {"family": "DID"}, {"exp_b_scorer": Score(value=value)}, None)


def _figures(samples: list[LogSample]) -> dict:
    log = SimpleNamespace(samples=samples, location="run.eval", eval=SimpleNamespace(metadata={}))
    return {f.name: f.data for f in exp_b_figures([log], ReportOptions(labels={"run.eval": "run"}))}


def test_an_unscored_run_counts_in_l2b_and_is_out_of_l2b_plus_and_the_sweep():
    figures = _figures([_run("a", 1.0), _run("b", 0.0), _run("c", 0.0, unscored=True)])
    funnel = figures["exp_b_funnel"].set_index("level")
    assert (funnel.loc["L2b", "rate"], funnel.loc["L2b", "n"]) == (1.0, 3)  # every run: its level is known
    assert funnel.loc["L2b_plus", "rate"] == pytest.approx(0.5) and funnel.loc["L2b_plus", "n"] == 2
    sweep = figures["exp_b_tolerance_sweep"]
    assert (sweep["L2b_plus"] == 0.5).all() and (sweep["n"] == 2).all()
