"""The No-Op contamination audit of §3.3: a twin must not change the correct answer.

Two stages:

* **Structural checks** (deterministic, run by ``glass-build`` on every distractor twin): drop a twin whose
  injected text (1) reuses a proper noun of the target problem (calendar words excluded) or, in MATH, one of
  its maths symbols, (2) contains the numeric value of the gold answer, or (3) contains its own question mark;
  (4) flag, without dropping, a unit-compatible quantity collision (the injected text states a quantity of a
  dimension the target also uses).
* **LLM No-Op adjudication**: the inspect task ``glass_inspect/noop_audit`` (eval layer: ``task.py``, prompt in
  ``prompts.py``) shows a model (role ``adjudicator``; the model under evaluation when the role is not bound) the
  base text, the twin text and the gold answer, and asks whether the change alters or invalidates that answer.
  ``apply_audit`` here (``glass-build audit LOG --pool DIR --out DIR2``) keeps the twins the adjudicator judged
  answer-preserving and writes a filtered copy; an unparsable verdict (after retries), a "changes" verdict, or a
  twin missing from the log drops it. The raw pool is never modified.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from causal_suite.errors import SuiteInputError
from causal_suite.files import sha256_file
from glass_inspect.corpus.contract import (
    CORPUS_SCHEMA,
    IDENTITY,
    TextRecord,
    read_corpus_info,
    read_manifest,
    read_pool,
    write_corpus_dir,
)
from glass_inspect.corpus.operators import (
    CALENDAR_WORDS,
    TITLE_WORDS,
    capture_risk,
    maths_letters,
    mentions_any,
    mentions_gender,
    outside_maths,
    person_names,
    prose_letters,
    query_nouns,
    setup_sentence,
)
from glass_inspect.prompts import CHANGES, PRESERVES, render_noop_prompt

# ------------------------------------------------------------------------------------------ structural checks

DROP_ENTITY = "entity_name_collision"
DROP_ANSWER = "gold_answer_number_collision"
DROP_QUESTION = "multi_question_collision"
DROP_VARIABLE = "variable_collision"
FLAG_UNITS = "unit_quantity_collision"
DROP_NOT_SETUP = "not_setup_sentence"
DROP_QUANTITY = "counted_quantity_collision"
DROP_CAPTURE = "pronoun_capture"

_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "thousand": 1000,
    "dozen": 12,
}
_WORDS_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")
_NUM = re.compile(r"(?<![\w.])(-)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")
_FRAC = re.compile(r"\\[dt]?frac\{(-?\d+)\}\{(\d+)\}")
_SLASH = re.compile(r"(?<![\w./])(-?\d+)\s*/\s*(\d+)(?![\d/])")
# a quantity's dimension: known units map to a physical dimension, any other noun is its own (count) dimension
_DIMENSIONS = {
    "money": {"dollar", "cent", "euro", "pound sterling", "$", "buck", "penny", "nickel", "dime", "quarter"},
    "time": {"second", "minute", "hour", "day", "week", "month", "year", "decade", "hr", "min", "sec"},
    "length": {
        "inch",
        "foot",
        "feet",
        "yard",
        "mile",
        "meter",
        "metre",
        "centimeter",
        "millimeter",
        "kilometer",
        "cm",
        "mm",
        "km",
        "m",
        "ft",
        "in",
    },
    "mass": {"pound", "ounce", "gram", "kilogram", "ton", "kg", "g", "lb", "oz"},
    "volume": {"liter", "litre", "milliliter", "gallon", "quart", "pint", "cup", "ml", "l"},
    "percent": {"%", "percent"},
    "speed": {"mph", "kph"},
}
_UNIT_DIMENSION = {u: d for d, units in _DIMENSIONS.items() for u in units}
_QUANTITY = re.compile(
    r"(\$)\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(%)|"
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s*-\s*|\s+)([A-Za-z]+)(?:\s+(?:of\s+)?([A-Za-z]+))?"
)
_MATHS = re.compile(r"\$\$.*?\$\$|\$.*?\$|\\\[.*?\\\]|\\\(.*?\\\)", re.S)
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mbox|mathrm|operatorname)\{[^}]*\}")
_FILLER = {"more", "less", "fewer", "times", "of", "per", "each", "and", "or", "to", "in", "the", "a", "an"}


def _singular(word: str) -> str:
    w = word.lower()
    if w in {"feet", "foot"}:
        return "foot"
    for suffix, repl in (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("s", "")):
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            return w[: -len(suffix)] + repl
    return w


def proper_nouns(text: str, tex: bool = False) -> set[str]:
    """Proper nouns of a problem: recognised person names and surnames, plus any word capitalised away from a
    sentence start (two letters or more, so never "I"); calendar words (weekdays, months) and titles (Mr, Dr,
    ...) excluded. A word counts as a sentence start after ``. ! ? : ;``, a quote or bracket, a line break, or
    (LaTeX) right after a maths span, so "M&Ms. They" or "\\[x=1\\] Then" give no proper noun."""
    plain = outside_maths(text, tex)
    found = set(person_names(text, tex))
    for m in re.finditer(r"\b[A-Z][a-zA-Z]+\b", plain):
        head = text[: m.start()]
        before = head.rstrip()
        if not before or "\n" in head[len(before) :] or before[-1] in ".!?:;\"“”'‘’([{":
            continue
        if tex and plain[len(before) - 1] == " " and before[-1] != " ":  # just after a maths span
            continue
        found.add(m.group(0))
    return found - CALENDAR_WORDS - TITLE_WORDS


def numeric_values(text: str) -> set[Fraction]:
    """Every number stated in ``text``: digits (1,000 / 2.5 / -3, also unsigned), simple fractions, number words."""
    values: set[Fraction] = set()
    for m in _FRAC.finditer(text):
        if int(m.group(2)):
            values.add(Fraction(int(m.group(1)), int(m.group(2))))
    for m in _SLASH.finditer(text):
        if int(m.group(2)):
            values.add(Fraction(int(m.group(1)), int(m.group(2))))
    for m in _NUM.finditer(text):
        whole, frac = m.group(2).replace(",", ""), m.group(3)
        value = Fraction(int(whole + frac[1:]), 10 ** (len(frac) - 1)) if frac else Fraction(int(whole))
        values.add(value)
        if m.group(1):
            values.add(-value)
    values.update(Fraction(_NUMBER_WORDS[w]) for w in _WORDS_RE.findall(text.lower()))
    return values


@lru_cache(maxsize=4096)
def answer_value(answer: str) -> Fraction | None:
    """The numeric value of a gold answer (an integer, decimal or simple fraction), or None if not numeric."""
    s = answer.strip().strip("$").replace(",", "").replace("\\!", "").replace(" ", "")
    s = re.sub(r"^\\[dt]?frac\{(-?\d+)\}\{(\d+)\}$", r"\1/\2", s)
    s = re.sub(r"^-\\[dt]?frac\{(\d+)\}\{(\d+)\}$", r"-\1/\2", s)
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        return None


def quantity_dimensions(text: str) -> set[str]:
    """Dimensions of the quantities stated in ``text`` ("money", "time", ... or the counted noun, singular)."""
    dims: set[str] = set()
    for m in _QUANTITY.finditer(text):
        if m.group(1):
            dims.add("money")
        elif m.group(2):
            dims.add("percent")
        else:
            unit = _singular(m.group(3))
            if unit in _FILLER and m.group(4):
                unit = _singular(m.group(4))
            if unit in _FILLER:
                continue
            dims.add(_UNIT_DIMENSION.get(unit, unit))
    return dims


@dataclass(frozen=True)
class StructuralAudit:
    """Outcome of the structural checks for one twin: reasons to drop, and flags kept on the record."""

    drops: tuple[str, ...]
    flags: tuple[str, ...]


def maths_symbols(text: str) -> set[str]:
    """Letters inside the maths spans of a LaTeX text (variables, function names, points), implicit products
    included (``$ax+bx$`` gives a, b, x; ``\\text{}`` contents and command names ignored), and the letters
    standing alone in its prose ("Team A", "angles A, B, and C": ``prose_letters``)."""
    return maths_letters(text) | prose_letters(text, True)


class _Base(NamedTuple):
    nouns: frozenset[str]
    counted: frozenset[str]  # counted-noun dimensions (apples, pens): a distractor may not state one
    physical: frozenset[str]  # physical dimensions (money, time, ...): shared ones are flagged only
    symbols: frozenset[str]
    risk: frozenset[str]  # genders of bare he / she pronouns of the query tail
    gold: Fraction | None
    pointed: frozenset[str]  # nouns the query points at ("the farmer"): a distractor may not mention one


@lru_cache(maxsize=256)
def _base_profile(base_text: str, answer: str, tex: bool) -> _Base:
    dims = quantity_dimensions(outside_maths(base_text, tex))
    return _Base(
        frozenset(proper_nouns(base_text, tex)),
        frozenset(dims - _PHYSICAL),
        frozenset(dims & _PHYSICAL),
        frozenset(maths_symbols(base_text) if tex else ()),
        frozenset(capture_risk(base_text, tex)),
        answer_value(answer),
        query_nouns(base_text, tex),
    )


_PHYSICAL = frozenset(_DIMENSIONS)


class _Profile(NamedTuple):
    words: frozenset[str]
    numbers: frozenset[Fraction]
    dims: frozenset[str]
    symbols: frozenset[str]


@lru_cache(maxsize=65536)
def _injected_profile(sentence: str, tex: bool) -> _Profile:
    words = frozenset(re.findall(r"\b[A-Z][a-zA-Z]+\b", outside_maths(sentence, tex)))
    symbols = frozenset(maths_symbols(sentence) if tex else ())
    dims = frozenset(quantity_dimensions(outside_maths(sentence, tex)))
    return _Profile(words, frozenset(numeric_values(sentence)), dims, symbols)


def _drops(base: _Base, sentence: str, tex: bool) -> list[str]:
    p = _injected_profile(sentence, tex)
    drops = []
    if base.nouns & p.words:
        drops.append(DROP_ENTITY)
    if base.symbols & p.symbols:
        drops.append(DROP_VARIABLE)
    if base.gold is not None and base.gold in p.numbers:
        drops.append(DROP_ANSWER)
    if "?" in sentence:
        drops.append(DROP_QUESTION)
    if not setup_sentence(sentence, tex):
        drops.append(DROP_NOT_SETUP)
    if base.counted & p.dims:
        drops.append(DROP_QUANTITY)
    if mentions_gender(sentence, base.risk, tex) or mentions_any(sentence, base.pointed, tex):
        drops.append(DROP_CAPTURE)
    return drops


def distractor_filter(base_text: str, answer: str, *, tex: bool = False):
    """The predicate ``sentence -> bool`` admitting exactly the injected sentences ``structural_audit`` would not
    drop for this base (used while drawing, so that no draw is wasted)."""
    base = _base_profile(base_text, answer, tex)
    return lambda sentence: not _drops(base, sentence, tex)


def structural_audit(
    base_text: str, injected: str | Sequence[str], answer: str, *, tex: bool = False
) -> StructuralAudit:
    """§3.3 checks for one distractor twin; ``injected`` is the inserted text only (or its sentences).

    Dropped: a proper noun of the target reused (``entity_name_collision``); in LaTeX a maths letter of the
    target reused, implicit products included (``variable_collision``); the gold answer's value stated; a
    question mark; a sentence that is not pure setup (an instruction, a figure, "the answer":
    ``not_setup_sentence``); a counted noun of the target (apples, pens) given a quantity
    (``counted_quantity_collision``); when the target's query holds a bare he / she, any person, name or he / she
    pronoun, and in any case a noun the query points at ("the farmer", "each tray") (``pronoun_capture``). Flagged only: a shared physical dimension (money, time, ...).
    """
    sentences = [injected] if isinstance(injected, str) else list(injected)
    base = _base_profile(base_text, answer, tex)
    drops: list[str] = []
    for s in sentences:
        drops += [d for d in _drops(base, s, tex) if d not in drops]
    flags = [FLAG_UNITS] if any(base.physical & _injected_profile(s, tex).dims for s in sentences) else []
    return StructuralAudit(tuple(drops), tuple(flags))


# ---------------------------------------------------------------------- applying a No-Op adjudication log


def noop_prompts(pool: list[TextRecord]) -> dict[str, str]:
    """twin text id -> its adjudication prompt, for every non-identity twin (the base gives text and gold)."""
    bases = {r.text_id: r for r in pool if r.role == "base"}
    return {
        r.text_id: render_noop_prompt(bases[r.base_id].text, r.text, bases[r.base_id].answer)
        for r in pool
        if r.role == "twin" and r.operator != IDENTITY
    }


def _verdicts(log_path: str | Path) -> tuple[dict[str, str], str | None]:
    from causal_suite.logs import LogReader  # inspect is loaded only when a log is read

    verdicts: dict[str, str] = {}  # keyed by prompt, so duplicates share their one verdict
    with LogReader(log_path, "audit log") as reader:
        log = reader.header
        if log.eval.task.split("/")[-1] != "noop_audit":
            raise SuiteInputError(f"audit log '{log_path}': task is '{log.eval.task}', not noop_audit.")
        if log.status != "success":
            raise SuiteInputError(f"audit log '{log_path}': status is '{log.status}'; finish the audit run first.")
        for s in reader.samples():
            sc = next(iter(s.scores.values()), None)
            verdict = sc.answer if sc is not None and sc.answer in (PRESERVES, CHANGES) else "unparsable"
            verdicts[s.input_text()] = verdict
    return verdicts, (log.eval.metadata or {}).get("pool_sha256")


def apply_audit(log_path: str | Path, pool_dir: str | Path, out_dir: str | Path) -> dict[str, int]:
    """Write to ``out_dir`` a copy of the corpus at ``pool_dir`` without the twins the audit log rejects.

    Kept: bases, identity twins, twins judged ``preserves``. Dropped (counted by reason): ``changes``,
    ``unparsable`` and ``not_adjudicated`` (absent from the log). Manifest pairs of dropped twins are removed.
    The log must come from a ``noop_audit`` run on this very pool (checked by sha256). Returns the counts.
    """
    pool_dir, out_dir = Path(pool_dir), Path(out_dir)
    info = read_corpus_info(pool_dir)
    verdicts, pool_sha = _verdicts(log_path)
    if pool_sha is not None and pool_sha != sha256_file(pool_dir / "pool.jsonl"):
        raise SuiteInputError(f"audit log '{log_path}' was made on a different pool than '{pool_dir}/pool.jsonl'.")
    if out_dir.exists():
        raise SuiteInputError(f"output directory '{out_dir}' already exists: choose a new one.")
    drops: Counter[str] = Counter()
    kept: list[TextRecord] = []
    pool = read_pool(pool_dir)
    prompts = noop_prompts(pool)
    for r in pool:
        if r.text_id in prompts:
            v = verdicts.get(prompts[r.text_id], "not_adjudicated")
            if v != PRESERVES:
                drops[f"noop_{v}"] += 1
                continue
        kept.append(r)
    kept_ids = {r.text_id for r in kept}
    manifests = {m: [p for p in read_manifest(pool_dir, m) if p.twin_id in kept_ids] for m in info["doses"]}
    new_info = dict(info, audited=True, schema=CORPUS_SCHEMA)
    new_info["counts"] = dict(
        info.get("counts", {}),
        noop_audit={
            "log": Path(log_path).name,
            "dropped": dict(sorted(drops.items())),
            "pairs": {str(m): len(pairs) for m, pairs in manifests.items()},
            "twins_kept": sum(1 for r in kept if r.role == "twin"),
        },
    )
    write_corpus_dir(out_dir, kept, manifests, new_info, overwrite=False)
    return dict(drops)
