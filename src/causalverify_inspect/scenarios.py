"""Exp B scenarios (paper §3): a story, a realised CSV and its canonical estimate (paper §4, App. C.1).

Three sources load into the same :class:`Scenario` records:

* ``None`` - the built-in set: the records committed in ``data/scenarios.json`` (written by ``causalverify-data``);
  their CSVs are regenerated deterministically from the fixed seed into the cache folder on first use and checked
  against the committed sha256 of each file.
* a folder written by ``causalverify-data --out DIR`` (``DIR/scenarios.json`` + ``DIR/data/*.csv``).
* upstream's layout: a folder holding ``experiments/exp_b/scenarios/sNN.json`` and ``experiments/exp_b/data/``;
  the canonical estimate comes from ``audit/dgp_verification.json`` when present, else from
  :func:`causalverify_inspect.estimators.canonical_estimate`.
"""

from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, check_type, require
from causal_suite.jsonl import read_json, read_text

FAMILIES = ("DID", "EVENT_STUDY", "IV", "RDD")
DIFFICULTIES = ("easy", "medium", "hard")
DIRECTIONS = ("positive", "negative")

#: Columns every CSV of a family must hold (the canonical estimator's inputs; paper App. C.1).
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "DID": ("unit_id", "period", "treat_x_post", "y"),
    "EVENT_STUDY": ("stock_id", "event_day", "ret", "mkt_ret"),
    "IV": ("y", "x", "z"),
    "RDD": ("running_var", "treated", "y"),
}

RECORDS_FILE = "scenarios.json"
#: Upstream's RDD design (upstream doc §3.5): cutoff 0.5, treated at or above it, bandwidth 0.3.
UPSTREAM_RDD: dict[str, Any] = {"cutoff": 0.5, "treated_side": "above", "bandwidth": 0.3}

UPSTREAM_SCENARIOS = Path("experiments/exp_b/scenarios")
UPSTREAM_VERIFICATION = Path("audit/dgp_verification.json")


@dataclass(frozen=True)
class CanonicalEstimate:
    """The realised-data reference estimate that L2b+ compares against (paper §4, App. C.1)."""

    estimate: float
    se: float
    n: int
    spec: str  # one-line specification

    def to_dict(self) -> dict[str, Any]:
        return {"estimate": self.estimate, "se": self.se, "n": self.n, "spec": self.spec}


@dataclass(frozen=True)
class Scenario:
    """One Exp B scenario (paper §3): what the model sees, the realised CSV and the references."""

    scenario_id: str  # upstream "s01"; ours e.g. "did_easy_01" (stable)
    family: str  # "DID" | "EVENT_STUDY" | "IV" | "RDD"
    difficulty: str  # "easy" | "medium" | "hard"
    title: str
    research_question: str
    data_description: str
    data_path: Path  # where the CSV is on the host
    data_file: str  # repo-relative path the prompt and sandbox expose
    true_effect: float  # the DGP parameter
    direction: str  # "positive" | "negative"
    canonical: CanonicalEstimate | None
    ground_truth: dict = field(default_factory=dict)  # identification_strategy, conclusion_direction, ...
    design: dict = field(default_factory=dict)  # family facts: timing, cutoff and side, instrument type, columns
    sha256: str | None = None  # of the CSV, when the source records it

    def load_data(self) -> pd.DataFrame:
        """The realised CSV, checked for the family's columns (see :func:`read_scenario_csv`)."""
        return read_scenario_csv(self.data_path, self.family, self.scenario_id)


def missing_columns(data: pd.DataFrame, family: str) -> list[str]:
    """The family's required columns (:data:`REQUIRED_COLUMNS`) that ``data`` lacks."""
    return [c for c in REQUIRED_COLUMNS[family] if c not in data.columns]


def iv_default_controls(data: pd.DataFrame) -> list[str]:
    """Upstream's IV controls: every column besides ``y``, ``x`` and ``z``."""
    return [c for c in data.columns if c not in REQUIRED_COLUMNS["IV"]]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_scenario_csv(path: Path, family: str, scenario_id: str) -> pd.DataFrame:
    """Read a scenario's CSV; a file that is not UTF-8 text or not a table, an empty file, a missing required
    column, a non-numeric column or a missing (NaN) or infinite value is an error."""
    if family not in FAMILIES:
        raise SuiteInputError(f"Scenario {scenario_id}: unknown family {family!r}; expected one of {FAMILIES}.")
    path = require_file(path, f"Scenario {scenario_id}'s data file")
    where = f"Scenario {scenario_id}: data file '{path}'"
    try:
        data = pd.read_csv(io.StringIO(read_text(path, where)))
    except pd.errors.EmptyDataError:
        raise SuiteInputError(f"{where} is empty.") from None
    except pd.errors.ParserError as exc:
        raise SuiteInputError(f"{where} is not a well-formed CSV table ({str(exc).strip()}).") from None
    if data.empty:
        raise SuiteInputError(f"{where} has a header but no rows.")
    missing = missing_columns(data, family)
    if missing:
        raise SuiteInputError(f"{where} lacks the {family} column(s) {missing} (it has {list(data.columns)}).")
    bad = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
    if bad:
        raise SuiteInputError(f"{where} has non-numeric column(s) {bad}.")
    for col in data.columns:
        finite = np.isfinite(data[col].to_numpy(dtype=float))
        if not finite.all():
            row = int(np.argmin(finite))
            raise SuiteInputError(
                f"{where}, line {row + 2}, column '{col}': {data[col].iloc[row]} is not a finite number "
                "(a scenario's data must be complete).")
    return data


def _data_path(root: Path, data_file: str, where: str) -> Path:
    """``root / data_file``, refused unless ``data_file`` is a relative path that stays inside ``root``."""
    rel = PurePosixPath(data_file)
    inside = bool(rel.parts) and not rel.is_absolute() and ".." not in rel.parts
    path = root / data_file
    if not inside or not path.resolve().is_relative_to(root.resolve()):
        raise SuiteInputError(
            f"{where}: field 'data_file' is {data_file!r}; it must be a relative path inside the scenario folder "
            f"'{root}'.")
    return path


def _choice(record: dict, key: str, where: str, allowed: tuple[str, ...]) -> str:
    value = require(record, key, where)
    if value not in allowed:
        raise SuiteInputError(f"{where}: field '{key}' is {value!r}; expected one of {allowed}.")
    return value


def _canonical_from(record: Any, where: str) -> CanonicalEstimate | None:
    if record is None:
        return None
    if not isinstance(record, dict):
        raise SuiteInputError(f"{where}: field 'canonical' should be an object, got {record!r}.")
    return CanonicalEstimate(
        estimate=float(require(record, "estimate", f"{where} canonical", NUMBER)),
        se=float(require(record, "se", f"{where} canonical", NUMBER)),
        n=int(require(record, "n", f"{where} canonical", int)),
        spec=require(record, "spec", f"{where} canonical"),
    )


def scenario_from_record(record: dict, data_root: Path, where: str) -> Scenario:
    """Build a :class:`Scenario` from one of our records (``scenarios.json``); ``where`` names file and record."""
    if not isinstance(record, dict):
        raise SuiteInputError(f"{where}: a scenario record should be an object, got {type(record).__name__}.")
    effect = float(require(record, "true_effect", where, NUMBER))
    data_file = require(record, "data_file", where)
    data_path = _data_path(data_root, data_file, where)
    return Scenario(
        scenario_id=require(record, "scenario_id", where),
        family=_choice(record, "family", where, FAMILIES),
        difficulty=_choice(record, "difficulty", where, DIFFICULTIES),
        title=require(record, "title", where),
        research_question=require(record, "research_question", where),
        data_description=require(record, "data_description", where),
        data_path=data_path,
        data_file=data_file,
        true_effect=effect,
        direction=_choice(record, "direction", where, DIRECTIONS),
        canonical=_canonical_from(record.get("canonical"), where),
        ground_truth=require(record, "ground_truth", where, dict),
        design=require(record, "design", where, dict),
        sha256=check_type(record.get("sha256"), "sha256", where, (str, type(None))),
    )


def read_records(path: Path) -> dict:
    """Our records file: ``{"generator": ..., "seed": ..., "scenarios": [...]}``."""
    path = require_file(path, "CausalVerify scenario records")
    doc = read_json(path, f"Scenario records '{path}'")
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise SuiteInputError(f"Scenario records '{path}': field 'scenarios' (a list) is missing.")
    return doc


def _load_ours(folder: Path) -> list[Scenario]:
    records_path = folder / RECORDS_FILE
    doc = read_records(records_path)
    out = []
    for i, rec in enumerate(doc["scenarios"]):
        sid = rec.get("scenario_id", f"#{i}") if isinstance(rec, dict) else f"#{i}"
        scenario = scenario_from_record(rec, folder, f"Scenario records '{records_path}', record {sid}")
        path = require_file(scenario.data_path, f"Scenario {sid}'s data file")
        if scenario.sha256 is not None and file_sha256(path) != scenario.sha256:
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
    from causalverify_inspect.estimators import canonical_estimate

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
        family = _choice(rec, "method_family", where, FAMILIES)
        truth = require(rec, "dgp_truth", where, dict)
        data_file = require(rec, "data_file", where)
        data_path = _data_path(root, data_file, where)
        data = read_scenario_csv(data_path, family, sid)
        canonical = stored.get(sid) or canonical_estimate(data, family)
        if not math.isfinite(canonical.estimate):
            raise SuiteInputError(f"{where}: the canonical {family} estimate on '{data_path}' is not finite.")
        out.append(
            Scenario(
                scenario_id=sid,
                family=family,
                difficulty=_choice(rec, "difficulty", where, DIFFICULTIES),
                title=require(rec, "title", where),
                research_question=require(rec, "research_question", where),
                data_description=require(rec, "data_description", where),
                data_path=data_path,
                data_file=data_file,
                true_effect=float(require(truth, "effect", f"{where} dgp_truth", NUMBER)),
                direction=_choice(truth, "direction", f"{where} dgp_truth", DIRECTIONS),
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


# ---------------------------------------------------------------------------------------------------- built-in
def builtin_records_path() -> Path:
    return Path(__file__).parent / "data" / RECORDS_FILE


def _load_builtin() -> list[Scenario]:
    from causalverify_inspect.dgp import ensure_builtin_data

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
