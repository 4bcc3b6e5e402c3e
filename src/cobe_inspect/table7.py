"""Table 7 of the paper (pass rate by prompt tier, one model, the same examples at every tier) from our logs.

Usage::

    inspect eval cobe_inspect/cobe -T tier=1 -T subset=50 -T subset_seed=7 ...   # and again with tier=2, 3, 4
    python -m cobe_inspect.compare --table7 LOG1 LOG2 LOG3 LOG4 [--paper-model gpt]

The paper runs its four tiers on one fixed subset of 500 examples. Here ``-T subset=N -T subset_seed=S`` draws the
same core examples at every tier (the draw depends only on the records, not on the tier), and the sample ids
``{core}v{variation}-{phrasing}`` keep their scenario part across tiers. The view lines the logs up on the scenarios
scored in every log: each tier's pass rate is the share of correct samples of those scenarios (all its phrasings),
with its SE clustered by core example, beside the paper's. A scenario scored in some logs only is left out and
counted, and logs drawn with different subsets, models or judges are named.
"""

from __future__ import annotations

import math
from typing import Any

from causal_suite.errors import SuiteInputError
from causal_suite.logs import LogDigest
from causal_suite.uncertainty import RateEstimate, rate
from cobe_inspect.log_view import MIN_N, SCORER, LogView, log_view, match_paper_model, unlike


def _outcomes(log: LogDigest, keep: set[str]) -> RateEstimate:
    """The pass rate over the log's scored samples whose scenario is in ``keep``, clustered by core example."""
    values, cores = [], []
    for sample in log.samples:
        score = sample.scores.get(SCORER)
        if score is None or not isinstance(score.value, dict):
            continue
        if str(sample.metadata.get("scenario_id")) in keep:
            values.append(float(score.value["correct"]))
            cores.append(sample.metadata.get("core_id"))
    return rate(values, cores)


def _scenarios(view: LogView) -> set[str]:
    return {sid for ids in view.scenarios.values() for sid in ids}


def _check_tiers(logs: list[LogDigest]) -> dict[int, tuple[LogDigest, LogView]]:
    """Tier -> the log of that tier and its view (each log read once); two logs of one tier are refused."""
    by_tier: dict[int, tuple[LogDigest, LogView]] = {}
    for log in logs:
        view = log_view(log)
        if view.tier in by_tier:
            raise SuiteInputError(
                f"Table 7 takes one log per tier, but '{by_tier[view.tier][0].location}' and '{log.location}' are "
                f"both tier {view.tier}."
            )
        by_tier[view.tier] = (log, view)
    return dict(sorted(by_tier.items()))


def _differences(logs: list[LogDigest]) -> list[str]:
    """What differs between the logs besides the tier: model, judge, data, subset."""
    notes = []
    for label, of in (
        ("models", lambda log: log.eval.model),
        ("judges", lambda log: ((log.eval.metadata or {}).get("judge") or {}).get("model")),
        ("data", lambda log: (log.eval.metadata or {}).get("data")),
        ("subsets", lambda log: str((log.eval.metadata or {}).get("subset"))),
    ):
        seen = {str(of(log)) for log in logs}
        if len(seen) > 1:
            notes.append(f"the logs differ in {label}: {', '.join(sorted(seen))}")
    return notes


def table7_rows(
    by_tier: dict[int, tuple[LogDigest, LogView]],
    common: set[str],
    key: str | None,
    paper: dict[str, Any],
    min_n: int = MIN_N,
) -> list[list[str]]:
    """One row per tier over the ``common`` scenarios: tier, phrasings, n, scenarios, cores, ours ± SE (%), paper
    (%), difference (points; ``n<min_n`` instead under ``min_n`` samples)."""
    rows = []
    for tier, (log, view) in by_tier.items():
        est = _outcomes(log, common)
        published = paper["table7_tier"].get(key or "", {}).get(str(tier))
        ours = "-" if math.isnan(est.value) else f"{100 * est.value:.1f} ± {100 * est.se:.1f}"
        if published is None or math.isnan(est.value):
            diff = "-"
        elif unlike(view):
            diff = "not like"
        else:
            diff = f"n<{min_n}" if est.n < min_n else f"{100 * est.value - published:+.1f}"
        phrasings = ",".join(sorted(view.scenarios))
        paper_text = "-" if published is None else f"{published:.1f}"
        rows.append([str(tier), phrasings, str(est.n), str(len(common)), str(est.clusters), ours, paper_text, diff])
    return rows


def table7(logs: list[LogDigest], paper: dict[str, Any], paper_model: str | None = None, min_n: int = MIN_N) -> str:
    """The Table 7 block: caveats, then the tiers lined up on the scenarios every log scored."""
    key = paper_model or match_paper_model(logs[0].eval.model, paper)
    by_tier = _check_tiers(logs)
    scenario_sets = {tier: _scenarios(view) for tier, (_, view) in by_tier.items()}
    common = set.intersection(*scenario_sets.values())
    name = paper["models"][key]["name"] if key else "no paper model matched (name one with --paper-model)"
    lines = [f"Table 7 (pass rate by tier, the same scenarios at every tier): {logs[0].eval.model} -> {name}"]
    lines += [f"  caveat: {note}" for note in _differences(logs)]
    for tier, (_, view) in by_tier.items():
        if why := unlike(view):
            lines.append(f"  caveat: tier {tier}: not like the paper's: {why} (marked 'not like')")
    for tier, ids in scenario_sets.items():
        if len(ids) > len(common):
            lines.append(
                f"  caveat: tier {tier}: {len(ids) - len(common)} scenario(s) not scored in every log, left out"
            )
    header = ["tier", "phrasings", "n", "scenarios", "cores", "ours % ± SE", "paper %", "diff (pts)"]
    rows = [header, *table7_rows(by_tier, common, key, paper, min_n)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines += [
        "  " + "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    if key and key not in paper["table7_tier"]:
        lines.append(
            f"  the paper's Table 7 has no {paper['models'][key]['name']} (only GPT-5.4-Pro, Gemini-3.1-Pro, Qwen-2.5-7B)"
        )
    return "\n".join(lines)
