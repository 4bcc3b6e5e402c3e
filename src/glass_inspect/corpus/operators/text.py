"""Shared pieces of the twin operators: seeding, the ``Twin`` record, sentence segmentation (§3.1) and the
word-level helpers (stems, content words, maths letters) the operators read problems with.

Each operator is a pure function of (problem text, seed, inputs): the same arguments give the same twin on any
machine (randomness comes from ``random.Random`` seeded by an integer derived with sha256, never ``hash()``).
A twin is a ``Twin``: its text, family, injection size, seed and a record of what changed. An operator that does
not apply to a problem (no recognised name, no admissible reordering, ...) returns ``None``.

Sentences are found by ``segment``: split after ``.``, ``!`` or ``?`` followed by white space and a capital, digit,
``$`` or quote, never inside ``$...$``, ``\\[...\\]``, ``\\(...\\)`` or ``[asy]...[/asy]``, never after a title
(``Mr.``, ``Dr.``, ...). The *query* is the last sentence holding a ``?`` (outside maths) or else the last
sentence opening with an imperative (Find, Compute, ...) or else the last sentence; it and everything after it
form the query tail, which always stays at the end. The sentences before it are the *setup*.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lemminflect import getAllLemmas

# --------------------------------------------------------------------------------------------------- seeding


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any printable parts (stable across machines and Python versions)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Twin:
    """One operator application: the twin text and what produced it."""

    text: str
    operator: str
    injection_size: int
    seed: int
    changes: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------ segmenting

# a maths or diagram span of a LaTeX text: $$...$$, $...$, \\[...\\], \\(...\\), [asy]...[/asy]; an escaped dollar
# (``\\$5``, a currency sign) neither opens nor closes a span
MATHS_SPAN = re.compile(
    r"(?<!\\)\$\$.*?(?<!\\)\$\$|(?<!\\)\$(?:\\.|[^$\\])*?(?<!\\)\$|\\\[.*?\\\]|\\\(.*?\\\)|\[asy\].*?\[/asy\]|"
    r"\\begin\{([A-Za-z]+\*?)\}.*?\\end\{\1\}",
    re.S,
)
_BOUNDARY = re.compile(r"[.!?][\"'”’)]*(\s+)(?=[A-Z0-9$\"“'(\\])")
_TITLES = ("Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "Mt", "vs", "etc", "e.g", "i.e", "No")
# instructions that belong to the task when they come right before the query ("Add 313.9 to 12.6. Express the
# result as a decimal.")
_TASK_VERBS = frozenset(
    "find compute evaluate determine simplify express calculate solve give write enter show prove factor expand "
    "rationalize round convert add subtract multiply divide".split()
)
_IMPERATIVES = {
    "find",
    "compute",
    "evaluate",
    "determine",
    "simplify",
    "express",
    "calculate",
    "solve",
    "what",
    "how",
    "which",
    "give",
    "write",
    "enter",
    "show",
    "prove",
    "factor",
    "expand",
    "rationalize",
    "round",
    "convert",
}


def _protected_spans(text: str, tex: bool) -> list[tuple[int, int]]:
    return [m.span() for m in MATHS_SPAN.finditer(text)] if tex else []


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def outside_maths(text: str, tex: bool) -> str:
    """``text`` with every maths / diagram span blanked when ``tex`` (same length, so offsets stay valid)."""
    return MATHS_SPAN.sub(lambda m: " " * len(m.group(0)), text) if tex else text


@dataclass(frozen=True)
class Segments:
    """``text == prefix + "".join(s + sep for s, sep in zip(sentences, seps))``; ``query`` starts the tail."""

    prefix: str
    sentences: tuple[str, ...]
    seps: tuple[str, ...]
    query: int

    @property
    def setup(self) -> tuple[str, ...]:
        return self.sentences[: self.query]

    def join(self, sentences: Sequence[str]) -> str:
        """Reassemble with this text's separators (slot by slot), so white space is unchanged."""
        return self.prefix + "".join(s + sep for s, sep in zip(sentences, self.seps, strict=False))


@lru_cache(maxsize=8192)
def segment(text: str, tex: bool = False) -> Segments:
    """Split a problem into sentences and locate its query (see the module docstring).

    ``tex``: the text is LaTeX (MATH), so ``$...$`` is maths; in GSM texts ``$`` is a currency sign.
    """
    spans = _protected_spans(text, tex)
    stripped = text.lstrip()
    prefix = text[: len(text) - len(stripped)]
    sentences: list[str] = []
    seps: list[str] = []
    start = len(prefix)
    for m in _BOUNDARY.finditer(text, start):
        if _inside(m.start(), spans) or m.start() < start:
            continue
        head = text[start : m.start()]
        if re.search(r"(?:^|[\s(])(?:" + "|".join(re.escape(t) for t in _TITLES) + r")$", head):
            continue
        if tex and re.search(r"(?:^|\n)[ \t]*\(?[0-9]{1,3}[a-z]?\)?$", head):
            continue  # a list label ("16. $x^3 < x < x^2$") ends no sentence
        sentences.append(text[start : m.start(1)])
        seps.append(m.group(1))
        start = m.end()
    tail = text[start:]
    body = tail.rstrip()
    sentences.append(body)
    seps.append(tail[len(body) :])
    return Segments(prefix, tuple(sentences), tuple(seps), _query_index(sentences, tex))


def _query_index(sentences: Sequence[str], tex: bool) -> int:
    plain = [outside_maths(s, tex) for s in sentences]
    query = next((i for i in range(len(plain) - 1, -1, -1) if "?" in plain[i]), None)
    if query is None:
        query = next((i for i in range(len(plain) - 1, -1, -1) if _opening_word(plain[i]) in _IMPERATIVES), None)
    if query is None:
        return len(sentences) - 1
    while query > 0 and _opening_word(plain[query - 1]) in _TASK_VERBS:  # "Add 313.9 to 12.6. Express ..."
        query -= 1
    return query


def _opening_word(plain: str) -> str:
    words = re.findall(r"[A-Za-z]+", plain)
    return words[0].lower() if words else ""


STOP_WORDS = frozenset(
    "the a an and or of to in on at for with by from as is are was were be been being has have had do does did "
    "that this these those it its he she him her his they them their there then than some any each every all "
    "how many much what which who whom whose when where why will would can could should shall may might must "
    "not no yes if so but also more less most least per one two three four five six seven eight nine ten "
    "into over under about after before up down out off same other another own only just very too again "
    "now still yet what's who's total times time day days week weeks year years hour hours minute minutes "
    "dollar dollars cent cents money cost costs price amount number".split()
)
NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|dozen"
)
# a sentence holding any number (a digit, a number word, half / double / twice)
NUMBER_TOKEN = re.compile(rf"\d|\b({NUMBER_WORDS}|half|double|twice)\b", re.I)
# one whole amount: "$1,250.50", "12", "twelve"
NUMBER_SPAN = re.compile(rf"\$?\d[\d,]*(?:\.\d+)?|\b(?:{NUMBER_WORDS})\b", re.I)


_IRREGULAR = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "knives": "knife",
    "leaves": "leaf",
}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude singular: ponies -> pony, boxes -> box, classes -> class, pieces -> piece, class -> class; an -ies
    word whose singular ends in -ie in lemminflect's noun tables keeps it (cookies -> cookie, pies -> pie)."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies"):
        return w[:-1] if w[:-1] in getAllLemmas(w, upos="NOUN").get("NOUN", ()) else w[:-3] + "y"
    if w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") else w


def content_words(sentence: str, tex: bool) -> frozenset[str]:
    """Content words of a sentence (stemmed, stop words and numbers out) plus, in LaTeX, every maths letter."""
    plain = outside_maths(sentence, tex)
    words = {stem(w) for w in re.findall(r"[A-Za-z]{3,}", plain) if w.lower() not in STOP_WORDS}
    if tex:
        words |= {f"${c}" for c in maths_letters(sentence)}
    return frozenset(words)


_TEXT_ARG = re.compile(r"\\(?:text\w*|mbox|mathrm|operatorname|label)\{[^}]*\}")


def maths_letters(text: str) -> set[str]:
    """Every letter inside the maths spans of a LaTeX text, implicit products included (``$ax+bx$`` gives a, b, x);
    command names (``\\frac``) and ``\\text{}`` arguments are ignored."""
    found: set[str] = set()
    for m in MATHS_SPAN.finditer(text):
        body = _TEXT_ARG.sub(" ", m.group(0))
        body = re.sub(r"\\[A-Za-z]+", " ", body)
        found.update(re.findall(r"[A-Za-z]", body))
    return found


# a letter standing alone in prose ("Team A", "angles A, B, and C", "n people"), not inside a word or a contraction
_LONE_LETTER = re.compile(r"(?<![\w'’\\])([A-Za-z])(?![\w'’])")
# what follows an article "A" / a pronoun "I" (a lower-case word that is not a verb of a label: "A pen", "I have")
_ARTICLE_NEXT = re.compile(r"\s+(?!(?:is|was|are|were|has|had|and|or|to|equals|lies|gets)\b)[a-z]")


def prose_letters(text: str, tex: bool) -> set[str]:
    """Letters standing alone in the prose of ``text`` (outside maths), which a reader takes for labels or
    variables as much as ``$A$``: "Team A", "angles A, B, and C", "A is 60 degrees"; the article "a" / an
    opening "A" ("A pen costs") and the pronoun "I" ("I have") are not letters."""
    plain = outside_maths(text, tex)
    found: set[str] = set()
    for m in _LONE_LETTER.finditer(plain):
        letter, head = m.group(1), plain[: m.start()].rstrip()
        opening = letter == "A" and (not head or head[-1] in '.!?:;"“(')  # "A pen", not "Team A beat"
        if letter == "a" or ((opening or letter == "I") and _ARTICLE_NEXT.match(plain, m.end())):
            continue
        found.add(letter)
    return found


def identity(text: str, seed: int = 0) -> Twin:
    """The placebo of §7 step 8: the base text unchanged (measures the re-sampling floor)."""
    return Twin(text, "identity", 0, seed, {})


# a price, a payment or an amount of money
MONEY = re.compile(
    r"[$€£]|\b(dollars?|cents?|bucks|euros?|money|cash|pric(?:e|es|ed|ing)|costs?|costing|pa(?:y|ys|id|ying)|"
    r"spen(?:d|ds|t|ding)|earn(?:s|ed|ing|ings)?|charg(?:e|es|ed|ing)|sel(?:l|ls|ling)|sold|bu(?:y|ys|ying)|bought|"
    r"salary|wages?|fees?|tips?|discount|profit|savings?|owes?|owed|budget|worth|income|rent|allowance|change|"
    r"refund|tax|taxes|loan|debt)\b",
    re.I,
)


def mentions_money(sentence: str, tex: bool = False) -> bool:
    """Whether ``sentence`` states a price, a payment or an amount of money (outside maths)."""
    return bool(MONEY.search(outside_maths(sentence, tex)))
