"""The human-agreement protocol of App. D.4: a rater sheet drawn from one model's responses, and the labels read
back from three rater columns by majority vote.

Usage::

    cobe-data rater-sheet LOG --n 250 --seed 0 -o sheet.csv     # also writes sheet.rubric.txt beside it
    python -m cobe_inspect.agreement LOG sheet.csv               # once three raters filled rater_1..rater_3

The paper drew 250 responses of one model at random, had three expert raters judge each from the story, the
query and the response (never the record's ``Evaluation criteria``) with a general rubric, two worked examples
and an "Other" option, and took the majority label as the reference. The sheet holds ``sample_id``, ``story``,
``query`` (the rewrite request), ``response`` and empty ``rater_1``..``rater_3`` and ``comments`` columns; a rater
writes ``Yes`` (a valid counterfactual rewrite), ``No`` or ``Other``. The rubric file is our wording of the
paper's rubric. A response's reference label is the answer at least two raters gave (Yes or No); one with no such
majority (e.g. Yes, No, Other) is counted and left out.
"""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.files import write_text_atomic
from causal_suite.jsonl import TABLE_LIMIT, read_text
from causal_suite.logs import LogReader

RATERS = ("rater_1", "rater_2", "rater_3")
SHEET_COLUMNS = ("sample_id", "story", "query", "response", *RATERS, "comments")
ANSWERS = {"yes": "Yes", "no": "No", "other": "Other"}

RUBRIC = """\
CoBe rater rubric (our wording of the paper's App. D.4 protocol)

Each row shows a short story, a request to rewrite it as if one event had been different (the query), and a
model's rewrite (the response). Judge whether the response is a valid counterfactual version of the story.

Answer Yes when the response
  (a) agrees with every fact of the story that the change does not touch,
  (b) carries out the change the query asks for,
  (c) updates what follows from that change, and leaves alone what came before it or does not depend on it,
  (d) keeps the story's causal links right (no "because of X" where X now works against the outcome).
Answer No when any of these fails, or when the response is incoherent or invents facts.
Answer Other only when neither fits, and say why in the comments column.

Worked example 1 (Yes)
  Story: The storm closed the roads, so the delivery van stayed at the depot and the shop ran out of bread.
  Query: Rewrite the story as it would read had the roads stayed open.
  Response: Despite the storm, the roads stayed open, so the delivery van reached the shop and it had bread.
  Why: the storm is kept, the change is made, and its consequences follow.

Worked example 2 (No)
  Story: The hot weather ripened the apples early, so the orchard sold them at the August market.
  Query: Rewrite the story as it would read had the orchard missed the August market.
  Response: The cool weather kept the apples unripe, so the orchard missed the August market.
  Why: the weather, which came before the change and does not depend on it, was altered to explain it.

Write one of Yes, No or Other in your own rater column (rater_1, rater_2 or rater_3); leave the others alone.
"""


def _responses(log_path: str | Path) -> tuple[str, list[list[str]]]:
    """The log's model and one row (id, story, query, response) per epoch-1 sample with a response."""
    rows = []
    with LogReader(log_path, "Eval log") as log:
        model = log.header.eval.model
        for index in range(log.sample_count()):
            sample = log.full_sample(index)
            completion = sample.output.completion if sample.output else ""
            if sample.epoch != 1 or not completion.strip():
                continue
            meta = sample.metadata or {}
            if "story" not in meta:
                raise SuiteInputError(f"Eval log '{log_path}', sample {sample.id}: no story; is it a CoBe log?")
            query = meta.get("request") or str(sample.input)
            rows.append([str(sample.id), meta["story"], query, completion.strip()])
    return model, rows


def write_rater_sheet(log_path: str | Path, out: str | Path, n: int, seed: int) -> tuple[Path, int, str]:
    """Draw ``n`` responses of the log's model with ``seed`` into a CSV rater sheet plus its rubric file; returns
    the sheet's path, the rows written and the model."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SuiteInputError(f"--n must be a whole number >= 1, got {n!r}.")
    model, rows = _responses(log_path)
    if len(rows) < n:
        raise SuiteInputError(f"Eval log '{log_path}' has {len(rows)} responses, fewer than --n {n}.")
    drawn = random.Random(seed).sample(rows, n)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(SHEET_COLUMNS)
    writer.writerows(row + [""] * (len(SHEET_COLUMNS) - len(row)) for row in drawn)
    sheet = write_text_atomic(Path(out), buffer.getvalue())
    write_text_atomic(sheet.with_suffix(".rubric.txt"), RUBRIC)
    return sheet, n, model


@dataclass(frozen=True)
class RaterLabels:
    """Reference labels (1 valid, 0 invalid) by majority of three raters, with what was left out and the votes."""

    labels: dict[str, int]
    no_majority: int
    votes: dict[str, tuple[str, str, str]]


def _answer(value: str, where: str) -> str:
    answer = ANSWERS.get(value.strip().lower())
    if answer is None:
        raise SuiteInputError(f"{where}: must be Yes, No or Other, got {value!r}.")
    return answer


def majority(votes: tuple[str, ...]) -> int | None:
    """1 when at least two raters said Yes, 0 when at least two said No, else None (no majority)."""
    counts = Counter(votes)
    return 1 if counts["Yes"] >= 2 else 0 if counts["No"] >= 2 else None


def read_rater_sheet(path: str | Path) -> RaterLabels:
    """The majority labels of a filled rater sheet (columns ``sample_id`` and ``rater_1``..``rater_3``)."""
    p = require_file(path, "Rater sheet")
    with io.StringIO(read_text(p, f"Rater sheet '{p}'", TABLE_LIMIT), newline="") as f:
        reader = csv.DictReader(f)
        absent = [c for c in ("sample_id", *RATERS) if c not in (reader.fieldnames or [])]
        if absent:
            raise SuiteInputError(f"Rater sheet '{p}' lacks the column(s) {', '.join(absent)}.")
        labels: dict[str, int] = {}
        votes: dict[str, tuple[str, str, str]] = {}
        for row_no, row in enumerate(reader, start=2):
            sample_id = (row["sample_id"] or "").strip()
            if not sample_id or sample_id in votes:
                problem = "empty" if not sample_id else f"duplicate {sample_id}"
                raise SuiteInputError(f"Rater sheet '{p}', row {row_no}, field 'sample_id': {problem}.")
            where = f"Rater sheet '{p}', row {row_no} ({sample_id})"
            vote = tuple(_answer(row[c] or "", f"{where}, field '{c}'") for c in RATERS)
            votes[sample_id] = vote  # type: ignore[assignment]
            label = majority(vote)
            if label is not None:
                labels[sample_id] = label
    return RaterLabels(labels, len(votes) - len(labels), votes)
