"""Exp B scenario records (paper §3): a story, a realised CSV and its canonical estimate (paper §4, App. C.1).

The types every other module of :mod:`causalverify_inspect.scenarios` builds on: :class:`Scenario`,
:class:`CanonicalEstimate`, the families and their required columns, and the checked readers of one record and
one scenario CSV. Where scenarios come from is :mod:`.sources`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, check_type, require
from causal_suite.jsonl import TABLE_LIMIT, read_json, read_text

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


def read_scenario_csv(path: Path, family: str, scenario_id: str) -> pd.DataFrame:
    """Read a scenario's CSV; a file that is not UTF-8 text or not a table, an empty file, a missing required
    column, a non-numeric column or a missing (NaN) or infinite value is an error."""
    if family not in FAMILIES:
        raise SuiteInputError(f"Scenario {scenario_id}: unknown family {family!r}; expected one of {FAMILIES}.")
    path = require_file(path, f"Scenario {scenario_id}'s data file")
    where = f"Scenario {scenario_id}: data file '{path}'"
    try:
        data = pd.read_csv(io.StringIO(read_text(path, where, TABLE_LIMIT)))
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
                "(a scenario's data must be complete)."
            )
    return data


def data_path_within(root: Path, data_file: str, where: str) -> Path:
    """``root / data_file``, refused unless ``data_file`` is a relative path that stays inside ``root`` and the file
    there is not a link to a file outside ``root`` (each refusal says which of the two it is)."""
    rel = PurePosixPath(data_file)
    path = root / data_file
    if not rel.parts or rel.is_absolute() or ".." in rel.parts:
        raise SuiteInputError(
            f"{where}: field 'data_file' is {data_file!r}; it must be a relative path inside the scenario folder "
            f"'{root}'."
        )
    target = path.resolve()
    if not target.is_relative_to(root.resolve()):
        raise SuiteInputError(
            f"{where}: field 'data_file' {data_file!r} is a symbolic link to '{target}', outside the scenario folder "
            f"'{root}'; copy the file into the folder instead of linking it."
        )
    return path


def choice_field(record: dict, key: str, where: str, allowed: tuple[str, ...]) -> str:
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
    data_path = data_path_within(data_root, data_file, where)
    return Scenario(
        scenario_id=require(record, "scenario_id", where),
        family=choice_field(record, "family", where, FAMILIES),
        difficulty=choice_field(record, "difficulty", where, DIFFICULTIES),
        title=require(record, "title", where),
        research_question=require(record, "research_question", where),
        data_description=require(record, "data_description", where),
        data_path=data_path,
        data_file=data_file,
        true_effect=effect,
        direction=choice_field(record, "direction", where, DIRECTIONS),
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


# ---------------------------------------------------------------------------------------------------- built-in
def builtin_records_path() -> Path:
    return Path(__file__).parent.parent / "data" / RECORDS_FILE
