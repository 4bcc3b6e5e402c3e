"""Where Exp B scenarios come from (paper §3, App. C.1); all three load into the same :class:`Scenario` records.

* ``None`` - the built-in set: the records committed in ``data/scenarios.json`` (written by ``causalverify-data``);
  their CSVs are regenerated deterministically from the fixed seed into the cache folder on first use and checked
  against the committed sha256 of each file.
* a folder written by ``causalverify-data --out DIR`` (``DIR/scenarios.json`` + ``DIR/data/*.csv``).
* upstream's layout: a folder holding ``experiments/exp_b/scenarios/sNN.json`` and ``experiments/exp_b/data/``;
  the canonical estimate comes from ``audit/dgp_verification.json`` when present, else from
  :func:`causalverify_inspect.scenarios.estimators.canonical_estimate`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, require
from causal_suite.files import sha256_file
from causal_suite.jsonl import read_json
from causalverify_inspect.scenarios.dgp import ensure_builtin_data
from causalverify_inspect.scenarios.estimators import canonical_estimate
from causalverify_inspect.scenarios.records import (
    DIFFICULTIES,
    DIRECTIONS,
    FAMILIES,
    RECORDS_FILE,
    UPSTREAM_RDD,
    UPSTREAM_SCENARIOS,
    UPSTREAM_VERIFICATION,
    CanonicalEstimate,
    Scenario,
    choice_field,
    data_path_within,
    iv_default_controls,
    read_records,
    read_scenario_csv,
    scenario_from_record,
)


def _load_ours(folder: Path) -> list[Scenario]:
    records_path = folder / RECORDS_FILE
    doc = read_records(records_path)
    out = []
    for i, rec in enumerate(doc["scenarios"]):
        sid = rec.get("scenario_id", f"#{i}") if isinstance(rec, dict) else f"#{i}"
        scenario = scenario_from_record(rec, folder, f"Scenario records '{records_path}', record {sid}")
        path = require_file(scenario.data_path, f"Scenario {sid}'s data file")
        if scenario.sha256 is not None and sha256_file(path) != scenario.sha256:
            raise SuiteInputError(
                f"Scenario {sid}: data file '{path}' does not match the sha256 in '{records_path}' "
                "(edited after generation?); regenerate the set with causalverify-data."
            )
        out.append(scenario)
    _check_unique(out, records_path)
    return out


def _check_unique(scenarios: list[Scenario], source: Path) -> None:
    seen: set[str] = set()
    for s in scenarios:
        if s.scenario_id in seen:
            raise SuiteInputError(f"Scenario source '{source}': scenario_id {s.scenario_id!r} occurs twice.")
        seen.add(s.scenario_id)


# ----------------------------------------------------------------------------------------------- upstream layout
def _upstream_sort_key(path: Path) -> tuple[int, str]:
    digits = "".join(ch for ch in path.stem if ch.isdigit())
    return (int(digits) if digits else 0, path.stem)


def _upstream_design(family: str, data: pd.DataFrame) -> dict:
    """Family facts of an upstream scenario, read off its realised data (upstream doc §3)."""
    design: dict[str, Any] = {"columns": list(data.columns)}
    if family == "DID":
        post = data.loc[data["treat_x_post"] == 1, "period"]
        design.update(unit="unit_id", time="period", first_post_period=int(post.min()) if len(post) else None)
    elif family == "EVENT_STUDY":
        design.update(event_day=0, post_window=[0, int(data["event_day"].max())], effect_scale="per_day_ar")
    elif family == "IV":
        levels = sorted(pd.unique(data["z"]))
        design.update(
            instrument="z",
            instrument_type="binary" if len(levels) == 2 else "continuous",
            endogenous="x",
            controls=iv_default_controls(data),
        )
    else:
        design.update(UPSTREAM_RDD)
    return design


def _load_upstream(root: Path) -> list[Scenario]:

    files = sorted((root / UPSTREAM_SCENARIOS).glob("*.json"), key=_upstream_sort_key)
    if not files:
        raise SuiteInputError(f"Upstream folder '{root}' holds no scenario JSON under {UPSTREAM_SCENARIOS}.")
    stored = _upstream_canonicals(root / UPSTREAM_VERIFICATION)
    out = []
    for path in files:
        where = f"Upstream scenario '{path}'"
        rec = read_json(path, where)
        if not isinstance(rec, dict):
            raise SuiteInputError(f"{where} should hold a JSON object, not a {type(rec).__name__}.")
        sid = require(rec, "scenario_id", where)
        where = f"Upstream scenario '{path}', record {sid}"
        family = choice_field(rec, "method_family", where, FAMILIES)
        truth = require(rec, "dgp_truth", where, dict)
        data_file = require(rec, "data_file", where)
        data_path = data_path_within(root, data_file, where)
        data = read_scenario_csv(data_path, family, sid)
        canonical = stored.get(sid) or canonical_estimate(data, family)
        if not math.isfinite(canonical.estimate):
            raise SuiteInputError(f"{where}: the canonical {family} estimate on '{data_path}' is not finite.")
        out.append(
            Scenario(
                scenario_id=sid,
                family=family,
                difficulty=choice_field(rec, "difficulty", where, DIFFICULTIES),
                title=require(rec, "title", where),
                research_question=require(rec, "research_question", where),
                data_description=require(rec, "data_description", where),
                data_path=data_path,
                data_file=data_file,
                true_effect=float(require(truth, "effect", f"{where} dgp_truth", NUMBER)),
                direction=choice_field(truth, "direction", f"{where} dgp_truth", DIRECTIONS),
                canonical=canonical,
                ground_truth=require(rec, "ground_truth", where, dict),
                design=_upstream_design(family, data),
            )
        )
    _check_unique(out, root / UPSTREAM_SCENARIOS)
    return out


def _upstream_canonicals(path: Path) -> dict[str, CanonicalEstimate]:
    """``audit/dgp_verification.json``: ``results[].estimated`` per scenario (6 dp), or {} when absent."""
    if not path.exists():
        return {}
    where = f"Upstream canonical file '{path}'"
    doc = read_json(path, where)
    if not isinstance(doc, dict):
        raise SuiteInputError(f"{where} should hold a JSON object, not a {type(doc).__name__}.")
    out = {}
    for i, r in enumerate(require(doc, "results", where, list)):
        where = f"Upstream canonical file '{path}', record {r.get('scenario_id', i) if isinstance(r, dict) else i}"
        if not isinstance(r, dict):
            raise SuiteInputError(f"{where}: a result should be an object.")
        if r.get("estimated") is None:
            continue  # upstream marks estimator errors with a null estimate; recompute those
        out[require(r, "scenario_id", where)] = CanonicalEstimate(
            estimate=float(require(r, "estimated", where, NUMBER)),
            se=float(require(r, "standard_error", where, NUMBER)),
            n=int(require(r, "n_observations", where, int)),
            spec=f"upstream dgp_verification.json: {r.get('regression_notes', '')}".strip(),
        )
    return out


def _load_builtin() -> list[Scenario]:
    folder = ensure_builtin_data()
    return _load_ours(folder)


def load_scenarios(source: str | Path | None = None) -> list[Scenario]:
    """Load Exp B scenarios from the built-in set (``None``), our folder layout or upstream's layout."""
    if source is None:
        return _load_builtin()
    root = require_file(source, "CausalVerify scenario source")
    if root.is_file():
        if root.name == RECORDS_FILE:
            return _load_ours(root.parent)
        raise SuiteInputError(f"CausalVerify scenario source '{root}' is a file; pass the folder holding it.")
    if (root / RECORDS_FILE).exists():
        return _load_ours(root)
    if (root / UPSTREAM_SCENARIOS).is_dir():
        return _load_upstream(root)
    raise SuiteInputError(
        f"CausalVerify scenario source '{root}' holds neither {RECORDS_FILE} (causalverify-data output) "
        f"nor {UPSTREAM_SCENARIOS}/ (upstream layout)."
    )
