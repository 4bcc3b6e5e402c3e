"""Mechanical authoring checks over CoBe records: the defects a careful reader finds, where a rule can find them.

Each check returns ``Finding``s (record id, check name, message); ``check_records`` runs them all. What they cover:

- ``hygiene``: doubled full stops (an ellipsis is fine), doubled blanks, a blank before punctuation, unbalanced
  brackets or double quotes, and a Story / answer / criterion / query that does not end a sentence.
- ``pieces``: the tier pieces are clauses (no final full stop); the ``Intervention`` clause is the one each query
  states; the ``Original event`` restates no must-change fact other than the record's ``Original fact`` (the
  intervened variable's own value): a downstream fact there would hand the Tier-2 E-G respondent the answer.
- ``criteria``: no sentence is both preserved and changed; a check tagged numeric names a number.
- ``graph``: recorded edges form one connected acyclic graph whose Fig. 4 type is the ``Graph type`` label.

What a rule cannot see (whether a must-stay fact could fairly change, whether the story really states an edge)
stays with the authoring checklist in the package README.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cobe_inspect.records.graphs import classify, graph_problem
from cobe_inspect.records.queries import intervention_clause
from cobe_inspect.records.schema import CobeRecord


@dataclass(frozen=True)
class Finding:
    """One defect of one record."""

    record: str
    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.record} [{self.check}] {self.message}"


# --- text hygiene -----------------------------------------------------------------------------------------------

_DOUBLE_STOP = re.compile(r"(?<!\.)\.\.(?!\.)")
_DOUBLE_BLANK = re.compile(r"\S {2,}\S")
_BLANK_BEFORE = re.compile(r"\s[.,;:!?]")
_SENTENCE_END = re.compile(r"[.!?][\"'’”)]*$")
_PAIRS = (("(", ")"), ("[", "]"), ("“", "”"))


def text_problems(text: str, sentence: bool) -> list[str]:
    """The hygiene problems of one text (``sentence``: it must end like a sentence)."""
    problems = []
    if _DOUBLE_STOP.search(text):
        problems.append("has a doubled full stop")
    if _DOUBLE_BLANK.search(text):
        problems.append("has doubled blanks")
    if _BLANK_BEFORE.search(text):
        problems.append("has a blank before punctuation")
    if text != text.strip():
        problems.append("has leading or trailing blanks")
    for left, right in _PAIRS:
        if text.count(left) != text.count(right):
            problems.append(f"has unbalanced {left}{right}")
    if text.count('"') % 2:
        problems.append('has an unbalanced "')
    if sentence and not _SENTENCE_END.search(text.strip()):
        problems.append("does not end with . ! or ?")
    return problems


def check_hygiene(record: CobeRecord) -> list[Finding]:
    texts = [
        ("Story", record.story, True),
        ("Illustrative answer", record.illustrative_answer, True),
        ("preserve criterion", record.preserve, True),
        ("change criterion", record.change, True),
    ]
    texts += [(f"query {slot}", q, True) for slot, q in record.query_slots]
    texts += [(name, value, False) for name, value in record.pieces.items()]
    return [
        Finding(record.scenario_id, "hygiene", f"{name} {problem}: {text!r}")
        for name, text, sentence in texts
        for problem in text_problems(text, sentence)
    ]


# --- tier pieces ------------------------------------------------------------------------------------------------

_STOPWORDS = frozenset(
    "a an the of to in on at for by with and or but so as from into onto than then that this these those there "
    "it its he him his she her they them their we our you your i my me is was were be been being are am has have "
    "had do does did not no all any each both also only still very more most less few one who whom which what "
    "when where while after before during over under up down out off again just about across".split()
)
_IRREGULAR = {
    "fell": "fall",
    "sold": "sell",
    "bought": "buy",
    "ran": "run",
    "won": "win",
    "lost": "lose",
    "kept": "keep",
    "took": "take",
    "taken": "take",
    "went": "go",
    "gone": "go",
    "made": "make",
    "found": "find",
    "left": "leave",
    "held": "hold",
    "broke": "break",
    "broken": "break",
    "rang": "ring",
    "rung": "ring",
    "woke": "wake",
    "got": "get",
    "told": "tell",
    "gave": "give",
    "given": "give",
    "chose": "choose",
    "chosen": "choose",
    "ate": "eat",
    "eaten": "eat",
    "spent": "spend",
    "brought": "bring",
    "caught": "catch",
    "drove": "drive",
    "driven": "drive",
    "hung": "hang",
    "met": "meet",
    "paid": "pay",
    "sat": "sit",
    "stood": "stand",
    "threw": "throw",
    "thrown": "throw",
    "began": "begin",
    "begun": "begin",
    "slept": "sleep",
    "felt": "feel",
    "led": "lead",
    "shone": "shine",
    "grew": "grow",
    "grown": "grow",
    "rose": "rise",
    "risen": "rise",
}


def _stem(word: str) -> str:
    word = _IRREGULAR.get(word, word)
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou0123456789":
        word = word[:-1]
    return word


def content_words(text: str) -> set[str]:
    """Crudely stemmed content words (numbers kept) of a text, for overlap tests."""
    words = re.findall(r"[a-z0-9]+(?:[.,][0-9]+)*", text.lower().replace("’", "'").replace("'s", ""))
    return {_stem(w) for w in words if w not in _STOPWORDS}


def sentences(text: str) -> list[str]:
    """The sentences of a criterion string (split after . ! ? followed by a blank and a capital or digit)."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"“])", text.strip())
    return [p.strip() for p in parts if p.strip()]


def _same(a: str, b: str) -> bool:
    return a.strip().rstrip(".").lower() == b.strip().rstrip(".").lower()


def restated_change(record: CobeRecord) -> list[str]:
    """Must-change facts, other than the record's ``Original fact``, that its ``Original event`` restates.

    The event restates a fact when it holds at least 60% of the fact's (crudely stemmed) content words: e.g. the
    event "80 shoppers buying gift wrap" restates "On Saturday, 80 shoppers bought gift wrap." (5 of 6 words).
    The ``Original fact`` (the intervened variable's own value, e.g. "The city closed the bridge.") is exempt.
    """
    original = record.pieces.get("Original event")
    if not original:
        return []
    event = content_words(original)
    hits = []
    for fact in sentences(record.change):
        if record.original_fact and _same(fact, record.original_fact):
            continue
        words = content_words(fact)
        if words and len(words & event) / len(words) >= 0.6:
            hits.append(fact)
    return hits


def check_pieces(record: CobeRecord) -> list[Finding]:
    found = []
    rid = record.scenario_id
    for name, value in record.pieces.items():
        if value.rstrip().endswith("."):
            found.append(Finding(rid, "pieces", f"{name} is a clause inside a template; drop its final full stop"))
    intervention = record.pieces.get("Intervention")
    if intervention:
        for slot, query in record.query_slots:
            stated = intervention_clause(query)
            if stated is not None and stated != intervention.rstrip("."):
                found.append(
                    Finding(rid, "pieces", f"query {slot} states {stated!r}, not the Intervention {intervention!r}")
                )
    if record.original_fact and not any(_same(record.original_fact, f) for f in sentences(record.change)):
        found.append(
            Finding(rid, "pieces", f"Original fact {record.original_fact!r} is not a sentence of the change criterion")
        )
    for fact in restated_change(record):
        found.append(
            Finding(
                rid,
                "pieces",
                f"Original event {record.pieces['Original event']!r} restates the "
                f"must-change fact {fact!r}; name the intervened variable's own value",
            )
        )
    return found


# --- criteria ---------------------------------------------------------------------------------------------------


def check_criteria(record: CobeRecord) -> list[Finding]:
    found = []
    rid = record.scenario_id
    both = {s.rstrip(".").lower() for s in sentences(record.preserve)} & {
        s.rstrip(".").lower() for s in sentences(record.change)
    }
    for sentence in sorted(both):
        found.append(Finding(rid, "criteria", f"{sentence!r} is both preserved and changed"))
    for check in record.numeric_checks:
        text = record.preserve if check == "E1" else record.change
        if not re.search(r"\d", text):
            found.append(Finding(rid, "criteria", f"{check} is tagged numeric but its criterion names no number"))
    return found


# --- graph ------------------------------------------------------------------------------------------------------


def check_graph(record: CobeRecord) -> list[Finding]:
    if record.graph is None:
        return []
    rid = record.scenario_id
    problem = graph_problem(record.graph.edges)
    if problem:
        return [Finding(rid, "graph", f"the recorded graph {problem}")]
    implied = classify(record.graph.edges, record.graph.latent)
    if record.graph_type is not None and implied != record.graph_type:
        edges = ", ".join(f"{a} -> {b}" for a, b in record.graph.edges)
        return [Finding(rid, "graph", f"labelled {record.graph_type} but its edges ({edges}) form a {implied}")]
    return []


CHECKS = (check_hygiene, check_pieces, check_criteria, check_graph)


def check_record(record: CobeRecord) -> list[Finding]:
    """Every finding for one record."""
    return [finding for check in CHECKS for finding in check(record)]


def check_records(records: list[CobeRecord]) -> list[Finding]:
    """Every finding for a list of records, in record order."""
    return [finding for record in records for finding in check_record(record)]
