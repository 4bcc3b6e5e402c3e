"""One CoBe log as the comparisons read it (``compare``, ``table7``): its metrics, tier, the scenarios each
phrasing was scored on, whether it is measured like the paper's, and the paper model its name matches."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import EvalLog

from causal_suite.errors import SuiteInputError
from causal_suite.logs import LogDigest

SCORER = "cobe_judge"
MIN_N = 30  # a cell scored on fewer samples is shown but not compared (``--min-n``)


def norm_name(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def match_paper_model(model: str, paper: dict[str, Any]) -> str | None:
    """The paper's key (``gpt``, ``llama3-8b``, ...) for an inspect model name, or None."""
    name = norm_name(model)
    hits = [key for key, info in paper["models"].items() if any(m in name for m in info["match"])]
    return hits[0] if len(hits) == 1 else None


@dataclass(frozen=True)
class LogView:
    """What a comparison needs from one log: its metrics, tier, and the scenarios each phrasing was scored on."""

    metrics: dict[str, float]
    tier: int
    scenarios: dict[str, frozenset[str]]  # phrasing -> scored scenario ids


def metrics_of(log: EvalLog | LogDigest) -> dict[str, float]:
    for score in log.results.scores if log.results else []:
        if score.name == SCORER:
            return {name: m.value for name, m in score.metrics.items()}
    raise SuiteInputError(f"Eval log '{log.location}' has no '{SCORER}' results; is it a finished CoBe log?")


def present(value: Any) -> bool:
    return isinstance(value, int | float) and not math.isnan(value)


def scored_scenarios(log: LogDigest) -> dict[str, frozenset[str]]:
    """Phrasing -> the scenario ids scored on it (samples with a dict score from the CoBe judge)."""
    found: dict[str, set[str]] = {}
    for sample in log.samples:
        score = sample.scores.get(SCORER)
        if score is not None and isinstance(score.value, dict):
            meta = sample.metadata
            found.setdefault(str(meta.get("phrasing")), set()).add(str(meta.get("scenario_id", sample.id)))
    return {p: frozenset(ids) for p, ids in found.items()}


def log_view(log: LogDigest) -> LogView:
    """The comparison's view of one CoBe log."""
    tier = int(log.eval.task_args.get("tier", (log.eval.metadata or {}).get("tier", 1)))
    return LogView(metrics_of(log), tier, scored_scenarios(log))


def unlike(view: LogView) -> str | None:
    """Why this log's overall accuracy is not the paper's like (phrasings or scenarios differ), or None."""
    paper_set = {1: ("A", "B", "C"), 2: ("D", "E", "F", "G")}.get(view.tier)
    ran = sorted(view.scenarios)
    if paper_set and tuple(ran) != paper_set:
        return f"phrasings {', '.join(ran) or 'none'} scored, where the paper's tier {view.tier} averages {'-'.join(paper_set[:: len(paper_set) - 1])}"
    if len({view.scenarios[p] for p in ran}) > 1:
        sizes = ", ".join(f"{p} {len(view.scenarios[p])}" for p in ran)
        return f"the phrasings were scored on different scenarios ({sizes}), so their mean mixes sets"
    return None
