"""A hand audit you can rerun: a seeded, stratified sample of twins shown beside their bases, and the defect rates
of a verdict file with Wilson intervals (``glass-build sample`` / ``glass-build verdicts``).

``draw_sample`` takes ``per_stratum`` twins of each (family, dose) stratum of a corpus (identity twins aside:
they equal their base), drawn with a seeded ``random.Random`` from the pairs of manifest ``m{dose}``; a twin
already drawn for a smaller dose is not drawn again. ``sample_text`` prints each twin beside its base (with what
the operator changed); ``verdict_template`` writes one JSONL row per drawn twin for the reader to fill in::

    {"text_id": ..., "family": ..., "dose": m, "injection_size": k,
     "same_answer": true|false,          # does the twin keep the base's gold answer?
     "natural": true|false,              # does it read as a well-formed problem (no cosmetic defect)?
     "irrelevant": true|false|null,      # distractors only: is the injected text irrelevant to the question?
     "note": "..."}

``defect_table`` reads filled verdict files: per family (and overall) the number read, answer-changing twins
(``same_answer`` false), and twins with any defect (any of the three false), each with its 95 % Wilson interval.
Rows left at null are counted as unread. Several files pool: a twin is its id and the TWIN text its sample file
shows (so two builds' different twins under one id stay apart); when two readings of the same twin disagree, the
stricter verdict of each field stands (a false beats a true, a judgement beats a null), whatever the order of the
files, and the disagreements are counted; given the corpus the figures should describe, a row counts only when
the twin it judged (the TWIN text of its sample file ``PREFIX.sample.txt``, beside ``PREFIX.verdicts.jsonl``) is
the twin of that corpus, so readings of an earlier build never stand in for a twin that has since changed
(``verdict_rows``).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_suite.errors import SuiteInputError
from causal_suite.jsonl import iter_jsonl, read_text
from glass_inspect.corpus.contract import IDENTITY, TWIN_FAMILIES, read_corpus_info, read_manifest, read_pool


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k / n ((0, 1) when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def draw_sample(corpus: str | Path, per_stratum: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """``per_stratum`` distinct twins per (family, dose), seeded; rows carry the twin and its base record."""
    info = read_corpus_info(corpus)
    pool = {r.text_id: r for r in read_pool(corpus)}
    rng = random.Random(seed)
    taken: set[str] = set()
    rows: list[dict[str, Any]] = []
    for dose in info["doses"]:
        by_family: dict[str, dict[str, None]] = defaultdict(dict)  # insertion-ordered sets: a list's `in` was quadratic
        for p in read_manifest(corpus, dose):
            if p.operator != IDENTITY:
                by_family[p.operator][p.twin_id] = None
        for family in TWIN_FAMILIES:
            ids = sorted(i for i in by_family[family] if i not in taken)
            for twin_id in rng.sample(ids, min(per_stratum, len(ids))):
                taken.add(twin_id)
                twin = pool[twin_id]
                rows.append(
                    {"text_id": twin_id, "family": family, "dose": dose, "twin": twin, "base": pool[twin.base_id]}
                )
    return rows


def sample_text(rows: Sequence[dict[str, Any]]) -> str:
    """Each drawn twin beside its base, numbered, with the gold answer and what changed."""
    out = []
    for k, r in enumerate(rows, 1):
        twin, base = r["twin"], r["base"]
        out += [
            f"### {k}. {r['text_id']}  family={r['family']} dose=m{r['dose']} size={twin.injection_size} "
            f"gold={base.answer}",
            f"BASE: {base.text}",
            f"TWIN: {twin.text}",
            f"CHANGES: {json.dumps(twin.changes, ensure_ascii=False, sort_keys=True)}",
            "",
        ]
    return "\n".join(out)


def verdict_template(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "text_id": r["text_id"],
            "family": r["family"],
            "dose": r["dose"],
            "injection_size": r["twin"].injection_size,
            "same_answer": None,
            "natural": None,
            "irrelevant": None,
            "note": "",
        }
        for r in rows
    ]


SAMPLE_SUFFIX, VERDICTS_SUFFIX = ".sample.txt", ".verdicts.jsonl"
_TWIN_BLOCK = re.compile(r"^### \d+\. (\S+) .*?\nTWIN: (.*?)\nCHANGES: ", re.M | re.S)


def sample_twins(sample_file: str | Path) -> dict[str, str]:
    """``text_id -> twin text`` of a sample file written by ``glass-build sample``."""
    path = Path(sample_file)
    if not path.is_file():
        raise SuiteInputError(
            f"{path}: no such sample file; the verdicts beside it cannot be tied to a corpus's twins."
        )
    return {m.group(1): m.group(2) for m in _TWIN_BLOCK.finditer(read_text(path))}


_VERDICT_FIELDS = ("same_answer", "natural", "irrelevant")


@dataclass(frozen=True)
class PooledVerdicts:
    """The pooled rows of ``verdict_rows``: one per twin; how many rows were set aside because the twin they judged
    is not the corpus's twin (``superseded``); how many times a reading of a twin disagreed with an earlier one
    (``disagreed``: the stricter verdict stands)."""

    rows: list[dict[str, Any]]
    superseded: int
    disagreed: int


def _stricter(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Two readings of one twin as one: per verdict field, false over true over null; notes joined."""
    merged = dict(old)
    for field in _VERDICT_FIELDS:
        values = [v for v in (old.get(field), new.get(field)) if v is not None]
        merged[field] = False if False in values else (values[0] if values else None)
    notes = [n for n in (old.get("note"), new.get("note")) if n]
    merged["note"] = " | ".join(dict.fromkeys(notes))
    return merged


def verdict_rows(files: Sequence[str | Path], corpus: str | Path | None = None) -> PooledVerdicts:
    """The rows of ``files`` pooled, one per twin (two readings of a twin: the stricter verdict of each field,
    ``_stricter``); a twin is its id and, where the file's ``PREFIX.sample.txt`` shows it, its text, so readings
    of two builds' different twins under one id stay apart; with ``corpus``, rows whose twin is not that corpus's
    twin (absent, or its text changed) are set aside."""
    pool = {r.text_id: r.text for r in read_pool(corpus)} if corpus is not None else None
    chosen: dict[str, list[tuple[str | None, dict[str, Any]]]] = defaultdict(list)  # id -> (twin text, row)
    superseded = disagreed = 0
    for file in map(Path, files):
        named = file.name.endswith(VERDICTS_SUFFIX)
        if pool is not None and not named:
            raise SuiteInputError(
                f"{file}: a verdict file is named PREFIX{VERDICTS_SUFFIX} beside PREFIX{SAMPLE_SUFFIX}."
            )
        # the twin each row judged; without a corpus a file may stand alone (then a twin is known by its id only)
        sample = file.with_name(file.name[: -len(VERDICTS_SUFFIX)] + SAMPLE_SUFFIX) if named else None
        read = sample_twins(sample) if sample and (pool is not None or sample.is_file()) else {}
        for n, row in iter_jsonl(file):
            if "family" not in row or "same_answer" not in row or "text_id" not in row:
                raise SuiteInputError(f"{file}, record {n}: every row needs 'text_id', 'family' and 'same_answer'.")
            if pool is not None and (row["text_id"] not in read or pool.get(row["text_id"]) != read[row["text_id"]]):
                superseded += 1
                continue
            text, readings = read.get(row["text_id"]), chosen[row["text_id"]]
            # the same twin: the same text, or a reading whose text is not known
            k = next((k for k, (t, _) in enumerate(readings) if None in (t, text) or t == text), None)
            if k is None:
                readings.append((text, row))
                continue
            earlier = readings[k][1]
            disagreed += any(
                None not in (earlier.get(f), row.get(f)) and earlier.get(f) != row.get(f) for f in _VERDICT_FIELDS
            )
            readings[k] = (readings[k][0] or text, _stricter(earlier, row))
    return PooledVerdicts([row for readings in chosen.values() for _, row in readings], superseded, disagreed)


def defect_table(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per family and overall: read, answer-changing and any-defect counts with Wilson intervals."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["same_answer"] is None:
            continue
        groups[row["family"]].append(row)
        groups["all"].append(row)
    table = []
    for family in [*TWIN_FAMILIES, "all"]:
        read = groups.get(family, [])
        n = len(read)
        changed = sum(r["same_answer"] is False for r in read)
        defect = sum(any(r.get(k) is False for k in ("same_answer", "natural", "irrelevant")) for r in read)
        table.append(
            {
                "family": family,
                "read": n,
                "answer_changed": changed,
                "answer_changed_ci": wilson(changed, n),
                "any_defect": defect,
                "any_defect_ci": wilson(defect, n),
                "unread": sum(r["family"] == family or family == "all" for r in rows) - n,
            }
        )
    return table


def format_table(table: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'family':<20} {'read':>5} {'answer changed (95% CI)':>28} {'any defect (95% CI)':>28}"]
    for t in table:
        a, d = t["answer_changed_ci"], t["any_defect_ci"]
        lines.append(
            f"{t['family']:<20} {t['read']:>5} "
            f"{t['answer_changed']:>4} = {t['answer_changed'] / max(t['read'], 1):5.1%} [{a[0]:.1%}, {a[1]:.1%}]"
            f"{t['any_defect']:>5} = {t['any_defect'] / max(t['read'], 1):5.1%} [{d[0]:.1%}, {d[1]:.1%}]"
        )
    return "\n".join(lines)
