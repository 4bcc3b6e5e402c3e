"""Labeled-pair observations: one (base, twin, dose) row, in the upstream LabeledPair layout (§3.4) plus the dose.

A row records the scoring model's outcomes on a base problem J and on one twin T(J) drawn at dose m. The upstream
files carry the dose as an ``_m{k}`` suffix on ``operator``; legacy m=1 rows lack it and take the dose from the
file name (``..._m1_...``), as §3.4 and §11 prescribe. Rows written by Frail carry ``dose`` explicitly as well.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, check_range, check_type
from causal_suite.files import write_text_atomic
from causal_suite.jsonl import iter_jsonl

_SUFFIX = re.compile(r"^(?P<family>.+?)_m(?P<dose>\d+)$")
_FILE_DOSE = re.compile(r"_m(\d+)(?=[_.])")


@dataclass
class PairObservation:
    """One (base J, twin T(J), dose m) observation with the scoring model's outcomes Y(J) and Y(T(J))."""

    base_id: str
    twin_id: str
    operator: str  # family + "_m{dose}" (upstream layout)
    family: str
    dose: int
    complexity_score: float  # declared complexity C (§1, CRD)
    base_text: str
    twin_text: str
    y_base: float  # Y(J)
    y_twin: float  # Y(T(J))
    category: str = ""
    injection_size: int = 0
    solver: str = ""
    y_base_epoch_mean: float | None = None  # fraction of epochs correct on the base (a Y(J) baseline), if known
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def delta(self) -> float:
        """Delta(J, T) = Y(J) - Y(T(J)) (§1)."""
        return self.y_base - self.y_twin

    def to_labeled_pair(self, d_obs: float, d_wc: float) -> dict[str, Any]:
        """The upstream LabeledPair fields (§3.4) plus Frail's explicit ``dose``, ``y_twin`` and ``solver``."""
        solver = self.solver or "solver"
        row = {
            "base_id": self.base_id,
            "twin_id": self.twin_id,
            "operator": self.operator,
            "category": self.category,
            "complexity": complexity_label(self.complexity_score),
            "complexity_score": self.complexity_score,
            "base_text": self.base_text,
            "twin_text": self.twin_text,
            "delta_per_model": {solver: self.delta},
            "delta_mean": self.delta,
            "d_obs": d_obs,
            "d_wc": d_wc,
            "y_base_mean": self.y_base,
            "dose": self.dose,
            "family": self.family,
            "injection_size": self.injection_size,
            "y_twin": self.y_twin,
            "solver": solver,
            "y_base_epoch_mean": self.y_base_epoch_mean,
        }
        row.update(self.extra)
        return row


def complexity_label(score: float) -> str:
    """The coarse upstream ``complexity`` label of a score in [0, 1]."""
    return "low" if score < 1 / 3 else ("medium" if score < 2 / 3 else "high")


def operator_with_dose(family: str, dose: int) -> str:
    return f"{family}_m{dose}"


def write_pairs(path: str | Path, rows: list[PairObservation]) -> None:
    """Write observations as LabeledPair JSONL atomically, with per-job d_obs / d_wc over exactly these rows."""
    by_job: dict[str, list[float]] = {}
    for r in rows:
        by_job.setdefault(r.base_id, []).append(r.delta)
    lines = []
    for r in rows:
        deltas = by_job[r.base_id]
        lines.append(json.dumps(r.to_labeled_pair(sum(deltas) / len(deltas), max(deltas)), ensure_ascii=False) + "\n")
    write_text_atomic(path, "".join(lines))


def _dose_of(raw: dict[str, Any], path: Path, where: str) -> tuple[str, int]:
    operator = raw["operator"]
    match = _SUFFIX.match(operator)
    family = match.group("family") if match else operator
    if raw.get("dose") is not None:
        return family, raw["dose"]
    if match:
        return family, int(match.group("dose"))
    from_name = _FILE_DOSE.findall(path.name)
    if from_name:
        return family, int(from_name[0])
    raise SuiteInputError(
        f"{where}: field 'operator' ({operator!r}) has no _m{{k}} dose suffix, the row has no 'dose' "
        "and the file name carries no _m{k}_ dose to stamp."
    )


def _outcomes(raw: dict[str, Any], where: str) -> tuple[float, float, str]:
    y_base = float(raw["y_base_mean"])
    per_model = raw.get("delta_per_model") or {}
    if raw.get("y_twin") is not None:
        y_twin = float(raw["y_twin"])
    elif raw.get("delta_mean") is not None:
        y_twin = y_base - raw["delta_mean"]
    else:
        raise SuiteInputError(f"{where}: record lacks 'delta_mean' (and 'y_twin').")
    if not (0.0 <= y_base <= 1.0 and -1e-9 <= y_twin <= 1.0 + 1e-9):
        raise SuiteInputError(
            f"{where}: fields 'y_base_mean' / 'delta_mean' give scores outside [0, 1] "
            f"(Y(J)={y_base}, Y(T(J))={y_twin})."
        )
    solver = raw.get("solver") or (next(iter(per_model)) if len(per_model) == 1 else "")
    return y_base, min(1.0, max(0.0, y_twin)), solver


#: The JSON type of each field read: required (not null) and optional (type-checked when present and not null).
_REQUIRED: dict[str, type | tuple] = {
    "base_id": (str, int),
    "twin_id": (str, int),
    "operator": str,
    "base_text": str,
    "twin_text": str,
    "complexity_score": NUMBER,
    "y_base_mean": NUMBER,
}
_OPTIONAL: dict[str, type | tuple] = {
    "y_twin": NUMBER,
    "delta_mean": NUMBER,
    "dose": int,
    "injection_size": int,
    "category": str,
    "solver": str,
    "y_base_epoch_mean": NUMBER,
    "delta_per_model": dict,
}
_RANGES = {"complexity_score": (0, 1), "dose": (1, math.inf), "injection_size": (0, math.inf)}


def _check_row(raw: dict[str, Any], where: str) -> None:
    missing = [k for k in _REQUIRED if raw.get(k) is None]
    if missing:
        raise SuiteInputError(f"{where}: record lacks field(s) {', '.join(missing)}.")
    for key, kind in (_REQUIRED | _OPTIONAL).items():
        if raw.get(key) is not None:
            check_type(raw[key], key, where, kind)
            if key in _RANGES:
                check_range(raw[key], key, where, *_RANGES[key])


def read_pairs(path: str | Path) -> list[PairObservation]:
    """Read one LabeledPair JSONL (upstream or Frail-written); a malformed row fails naming file, line and field."""
    p = require_file(path, "labeled-pair file")
    rows: list[PairObservation] = []
    for lineno, raw in iter_jsonl(p):
        where = f"{p}, line {lineno}"
        _check_row(raw, where)
        family, dose = _dose_of(raw, p, where)
        y_base, y_twin, solver = _outcomes(raw, where)
        epoch_mean = raw.get("y_base_epoch_mean")
        rows.append(
            PairObservation(
                base_id=str(raw["base_id"]),
                twin_id=str(raw["twin_id"]),
                operator=operator_with_dose(family, dose),
                family=family,
                dose=dose,
                complexity_score=float(raw["complexity_score"]),
                base_text=raw["base_text"],
                twin_text=raw["twin_text"],
                y_base=y_base,
                y_twin=y_twin,
                category=raw.get("category") or "",
                injection_size=raw.get("injection_size") or 0,
                solver=solver,
                y_base_epoch_mean=None if epoch_mean is None else float(epoch_mean),
            )
        )
    if not rows:
        raise SuiteInputError(f"labeled-pair file '{p}' holds no rows.")
    return rows


def read_pair_files(paths: Iterable[str | Path]) -> list[PairObservation]:
    """Concatenate several pair files (e.g. the five dose files of a pooled run)."""
    rows: list[PairObservation] = []
    for path in paths:
        rows.extend(read_pairs(path))
    return require_one_solver(rows)


def require_one_solver(rows: list[PairObservation]) -> list[PairObservation]:
    """Refuse observations of several scoring models: the solvable stratum, hence CCD, is defined per solver."""
    solvers = sorted({r.solver for r in rows if r.solver})
    if len(solvers) > 1:
        raise SuiteInputError(
            f"the pairs mix scoring models ({', '.join(solvers)}): CCD is defined per solver, pass one solver's data."
        )
    return rows
