"""Meaning-preserving perturbation operators (MPPOs) of GlassGSM / GlassMATH (§3.1, §7 step 1, step 8).

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
import itertools
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

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

_PROTECTED = re.compile(r"\$\$.*?\$\$|\$.*?\$|\\\[.*?\\\]|\\\(.*?\\\)|\[asy\].*?\[/asy\]", re.S)
_BOUNDARY = re.compile(r"[.!?][\"'”’)]*(\s+)(?=[A-Z0-9$\"“'(\\])")
_TITLES = ("Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Prof", "Mt", "vs", "etc", "e.g", "i.e", "No")
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
    return [m.span() for m in _PROTECTED.finditer(text)] if tex else []


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def outside_maths(text: str, tex: bool) -> str:
    """``text`` with every maths / diagram span blanked when ``tex`` (same length, so offsets stay valid)."""
    return _PROTECTED.sub(lambda m: " " * len(m.group(0)), text) if tex else text


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
        return self.prefix + "".join(s + sep for s, sep in zip(sentences, self.seps))


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
    for i in range(len(plain) - 1, -1, -1):
        if "?" in plain[i]:
            return i
    for i in range(len(plain) - 1, -1, -1):
        words = re.findall(r"[A-Za-z]+", plain[i])
        if words and words[0].lower() in _IMPERATIVES:
            return i
    return len(sentences) - 1


# ---------------------------------------------------------------------------------------------------- names

CALENDAR_WORDS = {
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
}
TITLE_WORDS = {"Mr", "Mrs", "Ms", "Miss", "Dr", "Prof"}
_TITLE_SURNAME = re.compile(r"(?<![\w&'’])(Mr|Mrs|Ms|Miss|Dr|Prof)(\.?)[ \t]+([A-Z][a-z]+)\b")  # not "M&Ms. They"
_WORD = re.compile(r"\b[A-Z][a-z]+\b")
_APOSTROPHES = "'’"


@lru_cache(maxsize=1)
def name_table() -> dict[str, Any]:
    """The name lists of ``data/names.json`` (recognised names by gender, replacement pools, surnames)."""
    raw = json.loads(resources.files("glass_inspect.corpus").joinpath("data/names.json").read_text(encoding="utf-8"))
    gender = {n: g for g in ("female", "male", "unisex") for n in raw[g]}
    gender.update(raw["ambiguous_gender"])
    return {
        "gender": gender,
        "ambiguous": frozenset(raw["ambiguous"]),
        "pool": {g: tuple(raw[f"pool_{g}"]) for g in ("female", "male", "unisex")},
        "surnames": tuple(raw["surnames"]),
    }


def _sentence_starts(text: str, tex: bool) -> set[int]:
    seg = segment(text, tex)
    starts, pos = set(), len(seg.prefix)
    for s, sep in zip(seg.sentences, seg.seps):
        starts.add(pos)
        pos += len(s) + len(sep)
    return starts


def person_names(text: str, tex: bool = False) -> dict[str, str]:
    """Recognised person names of ``text`` -> ``"female" | "male" | "unisex" | "surname"``.

    A listed first name counts anywhere; an ambiguous one (also a common word: Mark, Grace, Will) only if it is
    capitalised somewhere other than a sentence start. A capitalised word after a title is a surname. Calendar
    words never count.
    """
    table = name_table()
    plain = outside_maths(text, tex)
    starts = _sentence_starts(text, tex)
    found: dict[str, str] = {}
    for m in _TITLE_SURNAME.finditer(plain):
        if m.group(3) not in CALENDAR_WORDS:
            found[m.group(3)] = "surname"
    for m in _WORD.finditer(plain):
        word = m.group(0)
        if word in found or word in CALENDAR_WORDS or word not in table["gender"]:
            continue
        if in_compound_name(plain, word):
            continue
        if word == "Jack" and re.search(r"\b(Queen|King|Ace|cards?|deck)\b", plain):
            continue  # a card rank, not a person
        if word in table["ambiguous"]:
            mid = any(k.start() not in starts for k in re.finditer(rf"\b{word}\b", plain))
            if not mid:
                continue
        found[word] = table["gender"][word]
    return found


# sentence-opening function words: "When Mary ..." is not a two-word name
_OPENERS = frozenset(
    "a an the when if after before while as at in on by for from with without since because but and or so then "
    "once until unless though although every each this that these those last next today yesterday tomorrow "
    "tonight during how what which who where why whose there here all both some many most our my your his her "
    "their its one two three four five six seven eight nine ten dear".split()
)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z'’.&-]*")


def in_compound_name(plain: str, word: str) -> bool:
    """Whether ``word`` occurs in ``plain`` as part of a multi-word proper name ("San Diego", "Jackson Street",
    "Lincoln Middle School"): right after or before another capitalised word (not a sentence-opening function
    word, not a title, not a listed first name)."""
    table = name_table()
    for m in re.finditer(rf"\b{re.escape(word)}\b", plain):
        before = re.search(r"([A-Za-z'’.&-]+) $", plain[: m.start()])
        after = re.match(r" ([A-Za-z'’&-]+)", plain[m.end() :])
        if before and _CAPITALISED.fullmatch(before.group(1)):
            prev = before.group(1).rstrip(".")
            if prev.lower() not in _OPENERS and prev not in TITLE_WORDS and not before.group(1).endswith("."):
                if prev not in table["gender"] or prev in table["ambiguous"]:
                    return True
        if after and _CAPITALISED.fullmatch(after.group(1)) and plain[m.end() : m.end() + 1] == " ":
            nxt = after.group(1)
            if nxt not in table["gender"] and nxt not in CALENDAR_WORDS and nxt.lower() not in _OPENERS:
                return True
    return False


def _pronoun_gender(text: str, tex: bool) -> str | None:
    """``male`` / ``female`` when the text's he / she pronouns are all of one gender, else None."""
    plain = outside_maths(text, tex)
    male = bool(re.search(r"\b(he|him|his|himself)\b", plain, re.I))
    female = bool(re.search(r"\b(she|her|hers|herself)\b", plain, re.I))
    return "male" if male and not female else "female" if female and not male else None


def _replace_name(text: str, old: str, new: str) -> str:
    """Replace every whole-word ``old`` by ``new``, fixing the possessive (James' -> Ruth's, Ruth's -> Jonas')."""

    def sub(m: re.Match) -> str:
        apo, s = m.group(1), m.group(2)
        if not apo:
            return new
        bare = not s and new.endswith("s")  # "Jonas'" stays bare; every other possessive is "'s"
        return new + apo + ("" if bare else "s")

    return re.sub(rf"\b{re.escape(old)}\b(?:([{_APOSTROPHES}])(s\b)?)?", sub, text)


def entity_rename(text: str, seed: int, *, tex: bool = False) -> Twin | None:
    """§3.1 ``entity_rename``: each recognised person name -> a pool name of the same gender, consistently.

    Possessives follow the new name; nothing else in the text changes. A name inside a multi-word proper name
    ("San Diego") is not a person (``person_names``); when the text names one person, with a unisex name, and its
    he / she pronouns are all of one gender, the replacement comes from that gender's pool, so they still fit.
    ``None`` when no name is recognised.
    """
    names = person_names(text, tex)
    if not names:
        return None
    table = name_table()
    rng = random.Random(seed)
    words_in_text = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    used: set[str] = set()
    mapping: dict[str, str] = {}
    first_names = [n for n, k in names.items() if k != "surname"]
    pronoun_gender = _pronoun_gender(text, tex) if len(first_names) == 1 else None
    for old in sorted(names):
        kind = names[old]
        if pronoun_gender and (kind == "unisex" or sole_person(text, tex, any_gender=True)):
            kind = pronoun_gender  # one person, the pronouns say which pool fits (unisex name, or a list mismatch)
        pool = table["surnames"] if kind == "surname" else table["pool"][kind]
        choices = [n for n in pool if n.lower() not in words_in_text and n not in used]
        if not choices:
            return None
        mapping[old] = rng.choice(choices)
        used.add(mapping[old])
    out = text
    # longest first so that "Ann" never touches "Anna"; whole-word matching makes the order otherwise irrelevant
    for old in sorted(mapping, key=lambda n: (-len(n), n)):
        out = _replace_name(out, old, mapping[old])
    return Twin(out, "entity_rename", 0, seed, {"names": mapping})


# ----------------------------------------------------------------------------------------------- reordering
#
# The constraint graph of a setup: sentence j must stay after sentence i (i < j) when j refers back to i. The
# reorder operator draws a random order compatible with the graph, so only sentences that are independent of
# each other trade places. The rules (``back_references``) err on the side of an edge: a missing edge can change
# the answer, a spurious one only costs coverage.

_PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.I)
_PLURAL_PRONOUN = re.compile(r"\b(they|them|their|theirs|themselves|it|its|itself)\b", re.I)
_MALE_PRONOUN = re.compile(r"\b(he|him|his|himself)\b", re.I)
_FEMALE_PRONOUN = re.compile(r"\b(she|her|hers|herself)\b", re.I)
# words that tie a sentence to everything before it: anaphora, sequence and discourse markers, remainders,
# increments, totals and ordinals
_BACK_MARKER = re.compile(
    r"\b(that many|that much|this many|this much|the rest|rest of|remain\w*|left|leftover|then|after|afterwards?|"
    r"later|next|finally|lastly|also|too|as well|another|other|others|again|instead|otherwise|if not|if so|"
    r"same|now|still|this|these|those|such|both|either|neither|of them|of those|of these|meanwhile|however|"
    r"but|so|thus|therefore|hence|in addition|additionally|besides|more|less|fewer|extra|additional|total|"
    r"totals?|altogether|combined|together|whole|entire|last|previous|"
    r"before|already|yet|originally|initially|new|each of|all of|one of|some of|none of|rest|difference|"
    r"the same|its|it|they|them|their|different|final|ended up|end up|than that|in kind|likewise|similarly|"
    r"of (?:that|this|those|these|it|them)|that(?=\s*[.,;!?]|$)(?:did|do|does|doing|done|like|after|before|for|with|all|is|was) that|"
    r"that (?:amount|number|long|time|price|rate|distance|speed|sum|figure|cost|size|weight|age|day|week|month|"
    r"year|point|way|one|is))\b",
    re.I,
)
# comparisons and fractions of another quantity
_COMPARATIVE = re.compile(
    r"\b(twice|thrice|double|triple|half|halves|times|than|as many|as much|as long|as old|as fast|percent|"
    r"quarter|fraction|ratio|older|younger|taller|shorter|longer|heavier|lighter|faster|slower|"
    r"cheaper|bigger|smaller)\b|%",
    re.I,
)
_EVENT = re.compile(
    r"\b(gives?|gave|buys?|bought|sells?|sold|spends?|spent|eats?|ate|loses?|lost|takes?|took|uses?|used|"
    r"receives?|received|adds?|added|removes?|removed|finds?|found|wins?|won|pays?|paid|gets?|got|"
    r"borrows?|borrowed|returns?|returned|donates?|donated|breaks?|broke|trades?|traded|puts?|drops?|dropped|"
    r"throws?|threw|shares?|shared|splits?|keeps?|kept|leaves?|moves?|moved|spills?|spilled|"
    r"increase[sd]?|decrease[sd]?|raise[sd]?|reduce[sd]?|rises?|rose|falls?|fell|grows?|grew|doubled|tripled|"
    r"halved|changes?|changed|discounted|went up|went down|picks?|picked|collects?|collected|makes?|made|"
    r"saves?|saved|earns?|earned|invests?|invested|plants?|planted|bakes?|baked|catches?|caught|charged?|"
    r"charges|orders?|ordered|rents?|rented|invited|hired|deposits?|deposited|withdr\w+|lends?|lent|sends?|sent|"
    r"ships?|shipped|giving|buying|selling|spending|eating|losing|taking|using|receiving|adding|removing|"
    r"finding|winning|paying|getting|borrowing|returning|donating|breaking|trading|putting|dropping|throwing|"
    r"sharing|splitting|keeping|leaving|moving|spilling|picking|collecting|making|saving|earning|charging|"
    r"ordering|renting|sending|cuts?|cutting|pass(?:es|ed)?|hands?|handed|fills?|filled|pours?|poured|"
    r"opens?|opened|starts?|started|finish(?:es|ed)?|visits?|visited|arrives?|arrived|beats?|serves?|served|"
    r"feeds?|fed|wash(?:es|ed)|cleans?|cleaned|packs?|packed|delivers?|delivered|ships?|mails?|mailed)\b",
    re.I,
)
# a timeless definition ("Each box holds 6 pens", "A ticket costs $5", "There are 7 days in a week")
_DEFINITION = re.compile(
    r"^\s*(?:(?:each|every|one|a|an)\s+(?:\w+\s+){0,2}?(?:costs?|holds?|contains?|weighs?|has|is|takes?|needs?|"
    r"lasts?|measures?|sells? for|is worth|can hold|can carry)\b|there (?:are|is) \S+ \w+ (?:in|per) (?:a|an|each|every)\b)",
    re.I,
)
_STOP = frozenset(
    "the a an and or of to in on at for with by from as is are was were be been being has have had do does did "
    "that this these those it its he she him her his they them their there then than some any each every all "
    "how many much what which who whom whose when where why will would can could should shall may might must "
    "not no yes if so but also more less most least per one two three four five six seven eight nine ten "
    "into over under about after before up down out off same other another own only just very too again "
    "now still yet what's who's total times time day days week weeks year years hour hours minute minutes "
    "dollar dollars cent cents money cost costs price amount number".split()
)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b", re.I)
_NUMBER_TOKEN = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|dozen|half|double|twice)\b",
    re.I,
)


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


def _stem(word: str) -> str:
    """A crude singular: ponies -> pony, boxes -> box, classes -> class, pieces -> piece, class -> class."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    return w[:-1] if w.endswith("s") else w


def _content(sentence: str, tex: bool) -> frozenset[str]:
    """Content words of a sentence (stemmed, stop words and numbers out) plus, in LaTeX, every maths letter."""
    plain = outside_maths(sentence, tex)
    words = {_stem(w) for w in re.findall(r"[A-Za-z]{3,}", plain) if w.lower() not in _STOP}
    if tex:
        words |= {f"${c}" for c in maths_letters(sentence)}
    return frozenset(words)


_MATHS_SPAN = re.compile(r"\$\$.*?\$\$|\$.*?\$|\\\[.*?\\\]|\\\(.*?\\\)|\[asy\].*?\[/asy\]", re.S)
_TEXT_ARG = re.compile(r"\\(?:text\w*|mbox|mathrm|operatorname|label)\{[^}]*\}")


def maths_letters(text: str) -> set[str]:
    """Every letter inside the maths spans of a LaTeX text, implicit products included (``$ax+bx$`` gives a, b, x);
    command names (``\\frac``) and ``\\text{}`` arguments are ignored."""
    found: set[str] = set()
    for m in _MATHS_SPAN.finditer(text):
        body = _TEXT_ARG.sub(" ", m.group(0))
        body = re.sub(r"\\[A-Za-z]+", " ", body)
        found.update(re.findall(r"[A-Za-z]", body))
    return found


def _bare_pronoun(sentence: str, tex: bool, pattern: re.Pattern = _PRONOUN) -> re.Match | None:
    """The first pronoun of ``pattern`` in ``sentence`` not preceded there by a recognised name."""
    plain = outside_maths(sentence, tex)
    pron = pattern.search(plain)
    if not pron:
        return None
    gender = "male" if _MALE_PRONOUN.fullmatch(pron.group(0)) else "female"
    fits = [n for n, g in person_names(sentence, tex).items() if g in (gender, "unisex", "surname")]
    return None if any(0 <= plain.find(n) < pron.start() for n in fits) else pron


def back_references(
    setup: Sequence[str], tex: bool = False, *, person: str | None = None, query: str = ""
) -> dict[int, set[int]]:
    """The constraint graph of a setup: for each sentence, the earlier sentences it must stay after.

    * **opening scene**: a first sentence stating no number ("Janet runs a bakery.") stays first;
    * **markers** (that many, the rest, remaining, then, also, another, more, total, this / these, if not,
      ordinals, it / they ...) tie a sentence to every sentence before it;
    * **he / she** not preceded by a name in its own sentence: after the nearest earlier sentence naming a
      person of that gender (every earlier sentence when none does, or when two people of that gender appear);
    * **comparisons** (twice, half, than, as many as, percent, ...): after every earlier sentence sharing a
      content word or name;
    * **ordinals** (the first, the second, ...): after every earlier sentence holding an ordinal;
    * **events** (gives, buys, sells, ...): after every earlier event, and after every earlier sentence sharing a
      content word (names aside) unless that one is a timeless definition ("Each box holds 6 pens"); a later
      non-definition sentence sharing a content word with an event stays after it (it may describe the state
      after the event);
    * **definite reference**: "the teacher", "the first child" after any earlier sentence holding that noun;
    * **conditions**: a setup sentence opening with If / When / Unless / Assuming stays where it is;
    * **ellipsis**: a number with no noun after it ("eats three for breakfast"), or a sentence led by a bare
      number or quantifier ("One says 80.", "3 were orange", "The first needs ..."), refers to an earlier noun:
      after every earlier sentence;
    * **time**: sentences placed in time (On Friday, One weekend, In the afternoon, the next day, ...) keep
      their order among themselves;
    * **the query**: when it refers to the last event ("after that", "then", "this", ...), the last setup sentence
      stays last;
    * **LaTeX**: a sentence sharing a maths letter or content word with an earlier one stays after it (a
      definition is used later), so only independent statements move.

    ``person``: the one person of a text naming nobody else (``sole_person``); then a he / she edge is left out,
    because ``sentence_reorder`` repairs the pronoun (the first mention becomes the name).
    """
    n = len(setup)
    deps: dict[int, set[int]] = {i: set() for i in range(n)}
    if n < 2:
        return deps
    plains = [outside_maths(s, tex) for s in setup]
    content = [_content(s, tex) for s in setup]
    names = [person_names(s, tex) for s in setup]
    nouns = [c - {_stem(n) for n in found} for c, found in zip(content, names)]  # content words, names out
    genders: dict[str, set[str]] = {"male": set(), "female": set()}
    for found in names:
        for name, g in found.items():
            if g in genders:
                genders[g].add(name)
    events = [bool(_EVENT.search(p)) and not _DEFINITION.search(p) for p in plains]
    if_barriers: set[int] = set()
    defs = [bool(_DEFINITION.search(p)) for p in plains]
    if not _NUMBER_TOKEN.search(plains[0]) and not (tex and maths_letters(setup[0])):
        for j in range(1, n):
            deps[j].add(0)
    for j in range(1, n):
        plain = plains[j]
        shared = {i for i in range(j) if content[i] & content[j]}
        if _BACK_MARKER.search(plain) or _PLURAL_PRONOUN.search(plain) or plain.lstrip().startswith("("):
            deps[j].update(range(j))
        pron = _bare_pronoun(setup[j], tex)
        if _ELLIPSIS.search(plain) or _QUANTIFIER_LED.search(plain):
            deps[j].update(range(j))
        if _TEMPORAL.search(plain):
            deps[j].update(i for i in range(j) if _TEMPORAL.search(plains[i]))
        if pron and person is None:
            g = "male" if _MALE_PRONOUN.fullmatch(pron.group(0)) else "female"
            earlier = [i for i in range(j) if any(v in (g, "unisex") for v in names[i].values())]
            if earlier and len(genders[g]) <= 1:
                deps[j].add(earlier[-1])
            else:
                deps[j].update(range(j))
        if _COMPARATIVE.search(plain):
            deps[j].update(shared)
        if _ORDINAL.search(plain):
            deps[j].update(i for i in range(j) if _ORDINAL.search(plains[i]))
        things = {i for i in range(j) if nouns[i] & nouns[j]}
        if events[j]:
            deps[j].update(i for i in range(j) if events[i] or (i in things and not defs[i]))
        definite = {
            _stem(w.lower())
            for m in re.finditer(r"\b(?:the|each|every)\s+(\w+)(?:\s+(\w+))?", plain, re.I)
            for w in m.groups()
            if w and len(w) > 2
        } - {"same", "rest", "other"}
        deps[j].update(i for i in range(j) if definite & nouns[i])
        opening = re.match(r"\W*the\s+(?:\w+\s+)?([A-Za-z]{3,})", plain, re.I)
        if opening and not any(_stem(opening.group(1)) in nouns[i] for i in range(j)):
            deps[j].update(range(j))  # "The walls are 1 inch thick.": a bridging reference to what came before
        if re.match(r"\W*(if|when|unless|assuming)\b", plain, re.I):
            if_barriers.add(j)
        if not defs[j]:
            deps[j].update(i for i in things if events[i])
        if tex:
            deps[j].update(shared)
    if _QUERY_BACK.search(outside_maths(query, tex)):
        deps[n - 1].update(range(n - 1))
    for j in if_barriers:  # a condition ("If the chair is 3 feet wide.") stays where it is
        deps[j].update(range(j))
        for k in range(j + 1, n):
            deps[k].add(j)
    return deps


# a sentence led by a bare number or quantifier ("One says 80.", "3 were orange", "The first needs ...")
_QUANTIFIER_LED = re.compile(
    r"^\W*(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|some|most|half|all|many|several|none|few|each one|"
    r"the (?:first|second|third|fourth|fifth|last|other|others|rest))\s+(?:is|was|are|were|has|had|says|said|"
    r"needs?|wants?|costs?|gets?|got|takes?|took|can|will|would|should|must|did|does|do|of|also|each|weighs?|"
    r"holds?|goes|went|makes?|made|buys?|bought|sells?|sold|eats?|ate|gives?|gave)\b",
    re.I,
)
# a sentence placed in time ("On Friday morning", "One weekend", "In the afternoon"): such sentences keep their order
_TEMPORAL = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|morning|afternoon|evening|night|today|"
    r"tonight|yesterday|tomorrow|january|february|march|april|june|july|august|september|october|november|"
    r"december|spring|summer|autumn|fall|winter|(?:first|second|third|fourth|fifth|last|next|previous|following)"
    r" (?:day|week|month|year|hour|time|round|game|season))\b",
    re.I,
)
# a number with no noun after it: "eats three for breakfast", "with four", "gives 2 to Ann"
_ELLIPSIS = re.compile(
    r"(?<![$\d.,])\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|several|some|many)"
    r"\b(?!\d|[.,]\d|\s*percent)%?\s*(?:[,.;!]|$|\b(?:for|with|to|at|in|on|of|and|or|from|into|each|apiece|more|less|"
    r"fewer|times|than|back|away|left|too|as)\b)",
    re.I,
)
_QUERY_BACK = re.compile(r"\b(after that|then|this|that|these|those|afterwards?|at that|by then|at this)\b", re.I)
_OBJECT_VERBS = frozenset(
    "told tell tells gave give gives asked ask asks paid pay pays sent send sends help helps helped let lets make "
    "makes made show shows bought buy buys offer offers owe owes owed charge charges lend lends lent taught teach "
    "teaches call calls took take takes".split()
)
_POSSESSIVE_HER_NEXT = frozenset(
    "to for with at in on and or from into by about a an the some that this these those . , ; ! ? up down out "
    "off over back away".split()
)


def sole_person(text: str, tex: bool = False, *, any_gender: bool = False) -> tuple[str, str] | None:
    """``(name, gender)`` when ``text`` names exactly one person (a listed first name), no other capitalised word
    away from a sentence start could be a person, and every he / she pronoun has that person's gender."""
    names = person_names(text, tex)
    if len(names) != 1:
        return None
    ((name, gender),) = names.items()
    if any_gender:  # only whether nobody else is named: the caller trusts the pronouns over the name list
        openers = {w.capitalize() for w in _OPENERS} | _PLAIN_OPENERS | CALENDAR_WORDS | TITLE_WORDS
        others = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+\b", outside_maths(text, tex))} - {name} - openers
        return None if others else (name, gender)
    if gender not in ("male", "female"):
        return None
    plain = outside_maths(text, tex)
    openers = {w.capitalize() for w in _OPENERS} | _PLAIN_OPENERS | CALENDAR_WORDS | TITLE_WORDS
    others = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+\b", plain)} - {name} - openers
    if others or _pronoun_gender(text, tex) not in (gender, None):
        return None
    if re.search(r"\b(himself|herself)\b", plain, re.I):
        return None
    return name, gender


def _name_first(sentences: list[str], name: str, tex: bool) -> list[str] | None:
    """Make the first mention of the sole person a name: the first he / she / him / his / her of the first
    sentence mentioning them becomes ``name`` (``name's`` for a possessive). None when that is not sure."""
    out = list(sentences)
    for k, s in enumerate(out):
        plain = outside_maths(s, tex)
        at_name = re.search(rf"\b{re.escape(name)}\b", plain)
        pron = _PRONOUN.search(plain)
        if not pron and not at_name:
            continue
        if at_name and (not pron or at_name.start() < pron.start()):
            return out
        word = pron.group(0).lower()
        if word in ("himself", "herself", "hers"):
            return None
        if word == "his":
            new = name + "'s"
        elif word == "her":
            nxt = re.match(r"\s*([A-Za-z]+|[.,;!?])", plain[pron.end() :])
            prev = re.search(r"([A-Za-z]+)\s*$", plain[: pron.start()])
            after_verb = prev is not None and (prev.group(1).lower() in _OBJECT_VERBS or prev.group(1).endswith("ed"))
            if after_verb or nxt is None or nxt.group(1).lower() in _POSSESSIVE_HER_NEXT:
                new = name
            else:
                new = name + "'s"
        else:
            new = name
        out[k] = s[: pron.start()] + new + s[pron.end() :]
        return out
    return out


_ADJACENT = re.compile(
    r"\b(that (?:many|much|amount|number|long|time|price|rate|distance|speed|sum|figure|cost|size|weight|age|way)|"
    r"this (?:many|much|amount|number)|than that|this|these|those|such|it|its|they|them|their|the rest|in kind|"
    r"likewise|similarly|of (?:that|this|those|these|it|them)|that(?=\s*[.,;!?]|$)(?:did|do|does|doing|done|like|after|before|for|with|all|is|was) that|"
    r"the remaining|the remainder|the others?)\b",
    re.I,
)


def glued(setup: Sequence[str], tex: bool = False) -> set[int]:
    """Sentences that must stay right after the sentence before them: those whose referent is most likely that
    sentence (that amount, this, it / they, a bare number or quantifier: "3 were orange", an opening
    parenthesis), so no other sentence may come between them."""
    out = set()
    for j in range(1, len(setup)):
        plain = outside_maths(setup[j], tex)
        pointed = {_stem(w) for w in re.findall(r"\b(?:the|each|every)\s+([A-Za-z]{3,})", plain, re.I)}
        if pointed & _content(setup[j - 1], tex):  # "Each class ..." right after the sentence with the classes
            out.add(j)
        elif (
            _ADJACENT.search(plain)
            or _QUANTIFIER_LED.search(plain)
            or _ELLIPSIS.search(plain)
            or plain.lstrip().startswith("(")
        ):
            out.add(j)
    return out


def _block_order(deps: dict[int, set[int]], glue: set[int], rng: random.Random) -> list[int]:
    """A random order compatible with ``deps`` in which every glued sentence follows its predecessor directly."""
    blocks: list[list[int]] = []
    for i in sorted(deps):
        if i in glue and blocks:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    where = {i: b for b, members in enumerate(blocks) for i in members}
    block_deps = {b: {where[d] for i in members for d in deps[i]} - {b} for b, members in enumerate(blocks)}
    return [i for b in _random_linear_extension(block_deps, rng) for i in blocks[b]]


def _random_linear_extension(deps: dict[int, set[int]], rng: random.Random) -> list[int]:
    remaining = dict(deps)
    order: list[int] = []
    while remaining:
        ready = sorted(i for i, d in remaining.items() if d <= set(order))
        pick = rng.choice(ready)
        order.append(pick)
        del remaining[pick]
    return order


def sentence_reorder(text: str, seed: int, *, tex: bool = False, tries: int = 12) -> Twin | None:
    """§3.1 ``sentence_reorder``: permute the setup sentences; the query tail stays last, unchanged.

    Only orders compatible with the constraint graph (``back_references``) are drawn, so a sentence never moves
    before one it refers back to, and a sentence whose referent is the one just before it (``glued``) keeps
    that neighbour. In a text about one person (``sole_person``) a he / she sentence may move before
    the sentence naming them; its pronoun then becomes the name, so the person is introduced by name first
    (``changes["named"]``). ``None`` when the only admissible order is the original one.
    """
    seg = segment(text, tex)
    setup = seg.setup
    if len(setup) < 2:
        return None
    tail = list(seg.sentences[seg.query :])
    query = " ".join(tail)
    person = sole_person(text, tex)
    graphs = ([back_references(setup, tex, person=person[0], query=query)] if person else []) + [
        back_references(setup, tex, query=query)
    ]
    rng = random.Random(seed)
    glue = glued(setup, tex)
    for deps in graphs:
        for _ in range(tries):
            order = _block_order(deps, glue, rng)
            if order == list(range(len(setup))):
                continue
            new = [setup[i] for i in order]
            named = False
            if person and deps is graphs[0]:
                repaired = _name_first(new, person[0], tex)
                if repaired is None:
                    continue
                named, new = repaired != new, repaired
            changes = {"order": order, "back_references": {str(j): sorted(d) for j, d in deps.items() if d}}
            if named:
                changes["named"] = person[0]
            return Twin(seg.join(new + tail), "sentence_reorder", 0, seed, changes)
    return None


# a donor sentence must be setup and nothing else: no question, instruction, figure, "the answer", blank to fill
_NOT_SETUP = re.compile(
    r"\?|\[asy\]|\b(find|compute|evaluate|determine|simplify|express|calculate|solve|rationalize|enter|prove|"
    r"show that|factor|expand|round|convert|answer|answers|figure|diagram|shown|pictured|picture|graph below|"
    r"below|above|following|as follows|table|chart|exercise|problem|question|assume|suppose|let|what|how|which|"
    r"who|why|where|when|whose|whom)\b",
    re.I,
)
_REFERS_BACK_START = re.compile(
    r"^\W*(he|she|it|its|they|them|their|his|her|this|that|these|those|such|then|also|if|but|so|and|or|each of|"
    r"both|either|neither|another|the other|the rest|after|later|next|finally|however|therefore|thus|hence)\b",
    re.I,
)


@lru_cache(maxsize=65536)
def setup_sentence(sentence: str, tex: bool = False) -> bool:
    """Whether ``sentence`` can serve as a distractor: a statement of setup only (no question, instruction,
    reference to a figure, table or "the answer", no assumption to adopt), at most 40 words, holding a number
    (so it reads as problem context) and, in LaTeX, at most one short maths span."""
    plain = outside_maths(sentence, tex)
    if _NOT_SETUP.search(plain) or "\n" in sentence.strip() or len(plain.split()) > 40:
        return False
    if tex:
        spans = _MATHS_SPAN.findall(sentence)
        if len(spans) > 1 or any(len(s) > 24 or s.startswith(("$$", "\\[")) for s in spans) or "\\" in plain:
            return False
    return bool(_NUMBER_TOKEN.search(sentence))


def donor_run(setup: Sequence[str], tex: bool = False) -> tuple[str, ...]:
    """The distractor sentences a problem can lend: the opening run of its setup sentences that pass
    ``setup_sentence`` (a later sentence may lean on an earlier one, so the run stops at the first failure), and
    never a run whose first sentence opens by referring back."""
    run: list[str] = []
    for s in setup:
        if not setup_sentence(s, tex) or (not run and _REFERS_BACK_START.search(outside_maths(s, tex))):
            break
        run.append(s)
    return tuple(run)


def irrelevant_context(
    text: str,
    size: int,
    donors: Sequence[tuple[str, Sequence[str]]],
    seed: int,
    *,
    exclude: str | None = None,
    tex: bool = False,
    max_draws: int = 256,
    accept: Any = None,
) -> Twin | None:
    """§3.1 distractor injection: ``size`` setup sentences of other problems, inserted before the query.

    ``donors`` are ``(problem id, sentences)`` of the donor problems (``donor_run`` of their setups); the donor
    ``exclude`` (the target itself) is never used. Donors are drawn at random (seeded, without repetition) and
    each contributes the opening run of its sentences (so its own pronouns keep their antecedents) that
    ``accept(sentence)`` admits (every sentence without a ``?`` when ``accept`` is None), until ``size``
    sentences are stacked. ``None`` when ``max_draws`` draws cannot supply ``size``.
    """
    if size < 1:
        raise ValueError(f"injection size must be >= 1, got {size}")
    rng = random.Random(seed)
    taken: list[str] = []
    used: list[str] = []
    seen: set[int] = set()
    ok = accept or (lambda s: "?" not in s)
    for _ in range(max_draws):
        if len(taken) == size or len(seen) == len(donors):
            break
        k = rng.randrange(len(donors))
        if k in seen:
            continue
        seen.add(k)
        donor_id, sentences = donors[k]
        if donor_id == exclude:
            continue
        run = list(itertools.takewhile(ok, sentences))
        if not run:
            continue
        taken.extend(run[: size - len(taken)])
        used.append(donor_id)
    if len(taken) < size:
        return None
    seg = segment(text, tex)
    q = seg.query
    inserted = " ".join(taken)
    if q == 0:
        new_text = seg.prefix + inserted + " " + text[len(seg.prefix) :]
    else:
        before = list(seg.sentences[: q - 1]) + [seg.sentences[q - 1] + seg.seps[q - 1] + inserted]
        new_text = seg.join(before + list(seg.sentences[q:]))
    changes = {"donors": used, "inserted": taken, "position": q}
    return Twin(new_text, "irrelevant_context", size, seed, changes)


def capture_risk(text: str, tex: bool = False) -> set[str]:
    """Genders (``male`` / ``female``) of the he / she pronouns of the query tail that no name precedes in their
    own sentence: a distractor naming a person of such a gender, placed just before the query, could capture
    the pronoun."""
    seg = segment(text, tex)
    risk: set[str] = set()
    for s in seg.sentences[seg.query :]:
        if _bare_pronoun(s, tex, _MALE_PRONOUN):
            risk.add("male")
        if _bare_pronoun(s, tex, _FEMALE_PRONOUN):
            risk.add("female")
    return risk


_PERSON_NOUN = re.compile(
    r"\b(man|men|woman|women|boy|girl|guy|lady|person|kid|child|friend|brother|sister|mother|father|mom|dad|son|"
    r"daughter|uncle|aunt|grandma|grandpa|grandmother|grandfather|husband|wife|boyfriend|girlfriend|nephew|niece|"
    r"cousin|teacher|farmer|trader|salesman|saleswoman|merchant|baker|chef|driver|worker|owner|student|player|"
    r"customer|shopkeeper|manager|doctor|nurse|seller|buyer|vendor|clerk|king|queen|keeper|zookeeper|florist|"
    r"mechanic|carpenter|painter|plumber|gardener|waiter|waitress|coach|boss|employee|author|artist|tailor|"
    r"butcher|cashier|pilot|captain|officer|writer|singer|dancer|runner|swimmer|athlete|scientist|cook)s?\b",
    re.I,
)
_PLAIN_OPENERS = frozenset(
    "A An The Each Every One Two Three Four Five Six Seven Eight Nine Ten There In On At For If It This That "
    "These Those Some Most All Many Half He She His Her Him They Their Them It Its We You I".split()
)


def mentions_gender(sentence: str, genders: set[str] | frozenset[str], tex: bool = False) -> bool:
    """Whether ``sentence`` could offer an antecedent to a bare he / she of one of ``genders``: any he / she
    pronoun, any capitalised word other than a plain sentence opener (a name the lists may miss), or a person
    noun (a trader, the farmer, her brother). Always False when ``genders`` is empty."""
    return bool(genders) and _personal(sentence, tex)


@lru_cache(maxsize=65536)
def _personal(sentence: str, tex: bool) -> bool:
    plain = outside_maths(sentence, tex)
    if _PRONOUN.search(plain) or _PERSON_NOUN.search(plain):
        return True
    words = re.findall(r"\b[A-Z][A-Za-z]+\b", plain)
    return any(w not in _PLAIN_OPENERS and w not in CALENDAR_WORDS for w in words)


_DETERMINED = re.compile(r"\b(?:the|a|an|each|every|his|her|their|this|that|these|those|per|its)\s+([a-z]{3,})\b")


def query_nouns(text: str, tex: bool = False) -> frozenset[str]:
    """Nouns the query tail points at with a determiner ("the farmer", "each tray"), stemmed: a distractor
    mentioning one could redirect the question."""
    seg = segment(text, tex)
    tail = outside_maths(" ".join(seg.sentences[seg.query :]), tex).lower()
    return frozenset(_stem(w) for w in _DETERMINED.findall(tail) if w not in _STOP)


def mentions_any(sentence: str, nouns: frozenset[str], tex: bool = False) -> bool:
    return bool(nouns) and not nouns.isdisjoint(_stems(sentence, tex))


@lru_cache(maxsize=65536)
def _stems(sentence: str, tex: bool) -> frozenset[str]:
    return frozenset(_stem(w) for w in re.findall(r"[A-Za-z]{3,}", outside_maths(sentence, tex)))


def identity(text: str, seed: int = 0) -> Twin:
    """The placebo of §7 step 8: the base text unchanged (measures the re-sampling floor)."""
    return Twin(text, "identity", 0, seed, {})
