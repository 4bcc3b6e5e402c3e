"""Judge-versus-human agreement for CoBe (App. D.4): accuracy, precision, recall and F1 with *failure* (an invalid
rewrite) as the positive class, and Cohen's kappa, from a CoBe eval log and a CSV of human labels.

Usage::

    python -m cobe_inspect.agreement LOG LABELS

``LABELS`` is either a CSV with columns ``sample_id`` (as in the log, e.g. ``317v3-A``) and ``human`` (1 = valid
rewrite, 0 = invalid), or a rater sheet (``cobe-data rater-sheet``, ``cobe_inspect.records.raters``) whose three columns
``rater_1``..``rater_3`` (Yes / No / Other) give the reference label by majority, as in the paper; then Fleiss'
kappa among the three raters is printed too. The judge verdict of a sample is its ``correct`` value (epoch 1);
beside the overall table, one per check (E0, E1, E2: the check failed vs the human label) shows which check
agrees with the raters. Samples the judge left unscored, labels with no sample in the log and rows without a
majority are counted and reported, never compared.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from causal_suite.errors import SuiteInputError, reports_input_errors, require_file
from causal_suite.jsonl import TABLE_LIMIT, read_text
from causal_suite.logs import LogReader
from causal_suite.scores import is_unscored
from cobe_inspect.records.raters import read_rater_sheet

SCORER = "cobe_judge"
HUMAN_VALUES = {"1": 1, "0": 0}


@dataclass(frozen=True)
class Agreement:
    """Confusion counts (positive = invalid rewrite) and the App. D.4 statistics over the compared samples."""

    tp: int
    fp: int
    fn: int
    tn: int
    unscored: int
    missing: int
    accuracy: float
    precision: float
    recall: float
    f1: float
    kappa: float

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def _ratio(num: int, den: int) -> float:
    return num / den if den else math.nan


def agreement(judge: dict[str, int | None], human: dict[str, int]) -> Agreement:
    """Compare judge verdicts (1 valid, 0 invalid, None unscored) with human labels on the shared sample ids."""
    pairs = [(judge[i], h) for i, h in human.items() if judge.get(i) is not None]
    unscored = sum(1 for i in human if i in judge and judge[i] is None)
    missing = sum(1 for i in human if i not in judge)
    tp = sum(1 for j, h in pairs if j == 0 and h == 0)
    fp = sum(1 for j, h in pairs if j == 0 and h == 1)
    fn = sum(1 for j, h in pairs if j == 1 and h == 0)
    tn = sum(1 for j, h in pairs if j == 1 and h == 1)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else math.nan
    if len({j for j, _ in pairs} | {h for _, h in pairs}) < 2:
        kappa = math.nan  # undefined (0/0) when both raters used one and the same label throughout
    else:
        kappa = float(cohen_kappa_score([h for _, h in pairs], [j for j, _ in pairs]))
    return Agreement(tp, fp, fn, tn, unscored, missing, _ratio(tp + tn, len(pairs)), precision, recall, f1, kappa)


def judge_scores(log_path: str | Path) -> dict[str, dict[str, int] | None]:
    """``sample_id -> {E0, E1, E2, correct}`` (None when unscored) for epoch 1 of a CoBe log."""
    verdicts: dict[str, dict[str, int] | None] = {}
    with LogReader(log_path, "Eval log") as log:
        for sample in log.samples(inputs=False):
            if sample.epoch != 1:
                continue
            score = sample.scores.get(SCORER)
            if score is None:
                raise SuiteInputError(
                    f"Eval log '{log_path}', sample {sample.id}: no '{SCORER}' score; is it a CoBe log?"
                )
            value = score.value
            if is_unscored(value) or not isinstance(value, dict):
                verdicts[str(sample.id)] = None
            else:
                verdicts[str(sample.id)] = {k: int(v) for k, v in value.items() if isinstance(v, int | float)}
    if not verdicts:
        raise SuiteInputError(f"Eval log '{log_path}' holds no samples.")
    return verdicts


def read_labels(path: str | Path) -> dict[str, int]:
    """Human labels ``sample_id -> 1 (valid) | 0 (invalid)`` from a CSV with columns ``sample_id,human``."""
    p = require_file(path, "Labels file")
    with io.StringIO(read_text(p, f"Labels file '{p}'", TABLE_LIMIT), newline="") as f:
        reader = csv.DictReader(f)
        missing = {"sample_id", "human"} - set(reader.fieldnames or [])
        if missing:
            raise SuiteInputError(f"Labels file '{p}' lacks the column(s) {', '.join(sorted(missing))}.")
        labels: dict[str, int] = {}
        for row_no, row in enumerate(reader, start=2):
            sample_id, value = (row["sample_id"] or "").strip(), (row["human"] or "").strip()
            if not sample_id:
                raise SuiteInputError(f"Labels file '{p}', row {row_no}, field 'sample_id': empty.")
            if value not in HUMAN_VALUES:
                raise SuiteInputError(
                    f"Labels file '{p}', row {row_no} ({sample_id}), field 'human': must be 1 or 0, got {value!r}."
                )
            if sample_id in labels:
                raise SuiteInputError(f"Labels file '{p}', row {row_no}, field 'sample_id': duplicate {sample_id}.")
            labels[sample_id] = HUMAN_VALUES[value]
    return labels


def per_check(scores: dict[str, dict[str, int] | None], human: dict[str, int]) -> dict[str, Agreement]:
    """For each check, its verdict (pass 1 / fail 0) against the human label: failure is the positive class."""
    return {
        check: agreement({i: None if v is None else v[check] for i, v in scores.items()}, human)
        for check in ("E0", "E1", "E2")
    }


def rater_kappa(votes: dict[str, tuple[str, str, str]]) -> float:
    """Fleiss' kappa among the three raters over every row (categories Yes, No, Other); NaN when undefined."""
    table, _ = aggregate_raters([list(v) for v in votes.values()])
    if len(votes) < 2 or table.shape[1] < 2:
        return math.nan
    return float(fleiss_kappa(table))


def format_report(result: Agreement, checks: dict[str, Agreement] | None = None) -> str:
    """The plain-text table printed by the command line (with one line per check when given)."""
    lines = [
        f"compared samples      {result.n}  "
        f"(unscored by the judge: {result.unscored}; labels not in log: {result.missing})",
        f"confusion (positive = invalid rewrite): TP {result.tp}  FP {result.fp}  FN {result.fn}  TN {result.tn}",
        f"accuracy   {result.accuracy:.3f}",
        f"precision  {result.precision:.3f}",
        f"recall     {result.recall:.3f}",
        f"F1         {result.f1:.3f}",
        f"Cohen's kappa {result.kappa:.3f}",
    ]
    if checks:
        lines.append("per check (the check failed vs the human label; positive = invalid rewrite):")
        for check, r in checks.items():
            lines.append(
                f"  {check}  TP {r.tp}  FP {r.fp}  FN {r.fn}  TN {r.tn}  precision {r.precision:.3f}  "
                f"recall {r.recall:.3f}  kappa {r.kappa:.3f}"
            )
    return "\n".join(lines)


def read_reference(path: str | Path) -> tuple[dict[str, int], list[str]]:
    """The reference labels of a labels file or a rater sheet, and the lines describing the raters (if any)."""
    p = require_file(path, "Labels file")
    header = read_text(p, f"Labels file '{p}'", TABLE_LIMIT).partition("\n")[0]
    if "rater_1" not in next(csv.reader([header]), []):
        return read_labels(p), []
    sheet = read_rater_sheet(p)
    return sheet.labels, [
        f"raters: {len(sheet.votes)} rows, {sheet.no_majority} without a Yes/No majority (left out); "
        f"Fleiss' kappa among the three raters {rater_kappa(sheet.votes):.3f}"
    ]


@reports_input_errors("python -m cobe_inspect.agreement")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cobe_inspect.agreement", description=__doc__.split("\n\n")[0])
    parser.add_argument("log", help="a CoBe eval log (.eval or .json)")
    parser.add_argument(
        "labels", help="CSV with columns sample_id,human (1 = valid rewrite), or a filled rater sheet (rater_1..3)"
    )
    args = parser.parse_args(argv)
    scores = judge_scores(args.log)
    human, rater_lines = read_reference(args.labels)
    verdicts = {i: None if v is None else v["correct"] for i, v in scores.items()}
    print("\n".join([*rater_lines, format_report(agreement(verdicts, human), per_check(scores, human))]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
