"""The upstream LabeledPair JSONL of §3.4, both ways: ``glass-build export-pairs`` writes a dose manifest as
LabeledPair rows (no solver yet: deltas empty / null), ``glass-build import-pairs`` builds a corpus from such
files (e.g. the released upstream mix files, one per dose)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.fields import NUMBER, check_range, check_type
from causal_suite.files import sha256_file, write_text_atomic
from causal_suite.jsonl import iter_jsonl
from glass_inspect.corpus.contract import (
    CORPUS_SCHEMA,
    PairRecord,
    TextRecord,
    check_out_dir,
    json_line,
    read_manifest,
    read_pool,
    write_corpus_dir,
)
from glass_inspect.corpus.sources import Problem, load_source

UPSTREAM_FAMILY = {"irrelevant_context": "math_irrelevant_context"}
_FROM_UPSTREAM = {v: k for k, v in UPSTREAM_FAMILY.items()}
_LABELED_REQUIRED = ("base_id", "twin_id", "operator", "base_text", "twin_text")
_LABELED_OPTIONAL = {"complexity_score": NUMBER, "answer": str, "category": str}  # type-checked when not null
_DOSE_IN_NAME = re.compile(r"_m(\d+)_")


def upstream_operator(operator: str, injection_size: int) -> str:
    """Our family name -> the §3.4 ``operator`` tag (distractor twins carry their injection size as ``_m{k}``)."""
    tag = UPSTREAM_FAMILY.get(operator, operator)
    return f"{tag}_m{injection_size}" if operator == "irrelevant_context" else tag


def parse_upstream_operator(tag: str) -> tuple[str, int | None]:
    """A §3.4 ``operator`` tag -> (our family, the ``_m{k}`` suffix or None)."""
    m = re.fullmatch(r"(.+?)_m(\d+)", tag)
    name, k = (m.group(1), int(m.group(2))) if m else (tag, None)
    return _FROM_UPSTREAM.get(name, name), k


def labeled_pairs(corpus: str | Path, dose: int) -> list[dict[str, Any]]:
    """The pairs of one dose manifest as §3.4 LabeledPair rows (no solver yet: deltas empty / null).

    Extra keys ``dose``, ``injection_size`` and ``answer`` make the rows round-trip into a corpus.
    """
    texts = {r.text_id: r for r in read_pool(corpus)}
    rows: list[dict[str, Any]] = []
    for p in read_manifest(corpus, dose):
        base, twin = texts[p.base_id], texts[p.twin_id]
        c = base.complexity_score
        rows.append(
            {
                "base_id": p.base_id,
                "twin_id": p.twin_id,
                "operator": upstream_operator(p.operator, p.injection_size),
                "category": base.category,
                "complexity": "low" if c < 1 / 3 else "medium" if c < 2 / 3 else "high",
                "complexity_score": c,
                "base_text": base.text,
                "twin_text": twin.text,
                "delta_per_model": {},
                "delta_mean": None,
                "d_obs": None,
                "d_wc": None,
                "y_base_mean": None,
                "dose": dose,
                "injection_size": p.injection_size,
                "answer": base.answer,
            }
        )
    return rows


def write_labeled_pairs(corpus: str | Path, dose: int, path: str | Path) -> int:
    """Write ``labeled_pairs(corpus, dose)`` as JSONL (atomically); returns the row count."""
    rows = labeled_pairs(corpus, dose)
    write_text_atomic(Path(path), map(json_line, rows))
    return len(rows)


def read_labeled_pairs(path: str | Path, dose: int | None = None) -> list[dict[str, Any]]:
    """Read a §3.4 LabeledPair JSONL; each row gets ``family``, ``injection_size`` and ``dose`` resolved.

    The dose is the row's ``dose`` key, else ``dose``, else the ``_m{k}_`` of the file name (as upstream's
    loader stamps it). A distractor twin's injection size is its ``injection_size`` key, else its tag suffix.
    """
    path = require_file(path, "LabeledPair file")
    name_dose = _DOSE_IN_NAME.search(path.name)
    rows = []
    for lineno, row in iter_jsonl(path):
        where = f"{path}, line {lineno}"
        missing = [k for k in _LABELED_REQUIRED if not isinstance(row.get(k), str)]
        if missing:
            raise SuiteInputError(f"{where}: LabeledPair lacks text field(s) {', '.join(missing)}.")
        for key, kind in _LABELED_OPTIONAL.items():
            check_type(row.get(key), key, where, (kind, type(None)))
        if row.get("complexity_score") is not None:
            check_range(row["complexity_score"], "complexity_score", where, 0, 1)
        family, k = parse_upstream_operator(row["operator"])
        row_dose = row.get("dose", dose if dose is not None else int(name_dose.group(1)) if name_dose else None)
        if row_dose is None:
            raise SuiteInputError(f"{where}: no dose (no 'dose' field, no _m<k>_ in the file name).")
        size = row.get("injection_size", k if family == "irrelevant_context" and k is not None else 0)
        check_range(check_type(size, "injection_size", where, int), "injection_size", where, 0)
        check_range(check_type(row_dose, "dose", where, int), "dose", where, 1)
        rows.append({**row, "family": family, "injection_size": size, "dose": row_dose})
    return rows


def _pair_texts(row: dict[str, Any], suite: str, answer: str, known: Problem | None) -> tuple[TextRecord, TextRecord]:
    """The pool records (base, twin) of one LabeledPair row; ``known``: the base in the answers source, if there."""
    common = dict(
        base_id=row["base_id"],
        answer=answer,
        suite=suite,
        level=known.level if known else None,
        complexity_score=float(row.get("complexity_score") or 0.0),
        category=row.get("category") or (known.category if known else suite),
    )
    base = TextRecord(
        text_id=row["base_id"], role="base", operator="base", injection_size=0, seed=0, text=row["base_text"], **common
    )
    twin = TextRecord(
        text_id=row["twin_id"],
        role="twin",
        operator=row["family"],
        injection_size=row["injection_size"],
        seed=0,
        text=row["twin_text"],
        **common,
    )
    return base, twin


def import_labeled_pairs(
    files: Sequence[str | Path],
    suite: str,
    out: str | Path,
    *,
    answers_source: str | None = None,
    overwrite: bool = False,
) -> Path:
    """A corpus from §3.4 LabeledPair JSONL files (e.g. released upstream mix files, one per dose).

    The gold answer of a base is the rows' ``answer`` key, else looked up by exact base text in
    ``answers_source`` (a GSM8K / MATH source file); a base with neither is an error naming the file and base.
    """
    lookup: dict[str, Problem] = {}
    if answers_source:
        lookup = {p.text: p for p in load_source(suite, answers_source, skip_bad_rows=True)[0]}
    texts: dict[str, TextRecord] = {}
    manifests: dict[int, list[PairRecord]] = defaultdict(list)
    for f in files:
        for row in read_labeled_pairs(f):
            answer = row.get("answer") or (lookup[row["base_text"]].answer if row["base_text"] in lookup else None)
            if answer is None:
                raise SuiteInputError(f"{f}: base '{row['base_id']}' has no 'answer' and is not in --answers.")
            base, twin = _pair_texts(row, suite, answer, lookup.get(row["base_text"]))
            texts.setdefault(base.text_id, base)
            texts.setdefault(twin.text_id, twin)
            manifests[row["dose"]].append(
                PairRecord(row["base_id"], row["twin_id"], row["family"], row["injection_size"], row["dose"])
            )
    out = check_out_dir(out, overwrite)
    pool = list(texts.values())
    info = {
        "schema": CORPUS_SCHEMA,
        "suite": suite,
        "seed": None,
        "doses": sorted(manifests),
        "audited": False,
        "source": {
            "path": ",".join(str(f) for f in files),
            "sha256": hashlib.sha256("".join(sha256_file(f) for f in files).encode()).hexdigest(),
        },
        "params": {"imported": "labeled_pairs"},
        "counts": {
            "bases": sum(r.role == "base" for r in pool),
            "pool_twins": dict(sorted(Counter(r.operator for r in pool if r.role == "twin").items())),
            "pairs": {f"m{m}": len(v) for m, v in sorted(manifests.items())},
        },
        "skipped_rows": [],
    }
    return write_corpus_dir(out, pool, dict(sorted(manifests.items())), info, overwrite)
