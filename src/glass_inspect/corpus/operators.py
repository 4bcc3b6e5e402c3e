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
    "find", "compute", "evaluate", "determine", "simplify", "express", "calculate", "solve", "what", "how",
    "which", "give", "write", "enter", "show", "prove", "factor", "expand", "rationalize", "round", "convert",
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
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March",
    "April", "May", "June", "July", "August", "September", "October", "November", "December",
}
TITLE_WORDS = {"Mr", "Mrs", "Ms", "Miss", "Dr", "Prof"}
_TITLE_SURNAME = re.compile(r"\b(Mr|Mrs|Ms|Miss|Dr|Prof)(\.?)\s+([A-Z][a-z]+)\b")
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
        if word in table["ambiguous"]:
            mid = any(k.start() not in starts for k in re.finditer(rf"\b{word}\b", plain))
            if not mid:
                continue
        found[word] = table["gender"][word]
    return found


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

    Possessives follow the new name; nothing else in the text changes. ``None`` when no name is recognised.
    """
    names = person_names(text, tex)
    if not names:
        return None
    table = name_table()
    rng = random.Random(seed)
    words_in_text = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    used: set[str] = set()
    mapping: dict[str, str] = {}
    for old in sorted(names):
        kind = names[old]
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

_PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|they|them|their|theirs|himself|herself|themselves)\b", re.I)
_DEICTIC_START = {"it", "its", "this", "that", "these", "those", "such", "both", "each", "either", "neither", "there"}
_SEQUENCE = re.compile(
    r"\b(then|after that|afterwards?|later|next|finally|lastly|also|again|another|the other|others|remainder|"
    r"remaining|the rest|rest of|left|meanwhile|too|as well|additionally|in addition|moreover|however|but|so|"
    r"thus|therefore|instead|now|still|same|previous|before that|total|first|second|third|fourth|fifth|last)\b",
    re.I,
)


_EVENT = re.compile(
    r"\b(gives?|gave|buys?|bought|sells?|sold|spends?|spent|eats?|ate|loses?|lost|takes?|took|uses?|used|"
    r"receives?|received|adds?|added|removes?|removed|finds?|found|wins?|won|pays?|paid|gets?|got|"
    r"borrows?|borrowed|returns?|returned|donates?|donated|breaks?|broke|trades?|traded|puts?|drops?|dropped|"
    r"throws?|threw|shares?|shared|splits?|keeps?|kept|leaves?|left|moves?|moved|spills?|spilled|"
    r"increase[sd]?|decrease[sd]?|raise[sd]?|reduce[sd]?|rises?|rose|falls?|fell|grows?|grew|doubled|tripled|"
    r"halved|changes?|changed|discounted|went up|went down)\b",
    re.I,
)


def _people(sentence: str, tex: bool) -> set[str]:
    """Recognised names plus words capitalised away from the sentence start (unlisted names, places)."""
    plain = outside_maths(sentence, tex)
    mid = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+\b", plain) if m.start() > 0}
    return (set(person_names(sentence, tex)) | mid) - CALENDAR_WORDS - TITLE_WORDS


def back_references(setup: Sequence[str], tex: bool = False) -> dict[int, set[int]]:
    """For each setup sentence, the earlier sentences it must stay after (its back-references).

    * an event sentence (someone gives, buys, eats, loses, ... something; a price increases, a plant grows) is a
      barrier: a state described before it holds before the event, so no sentence may cross it either way;
    * a sequence / discourse marker or ordinal (then, later, the remaining, also, in total, a third, ...) ties a
      sentence to every sentence before it;
    * a personal pronoun not preceded by a name in its own sentence ties it to the nearest earlier sentence
      holding a recognised name (or to the sentence just before when none does); when the setup mentions two or
      more people, such a sentence is a barrier instead, so no other person can come between it and its
      antecedent;
    * a sentence opening with a deictic word (It, This, These, Each, ...) or a parenthesis ties it to the
      sentence just before.
    """
    deps: dict[int, set[int]] = {i: set() for i in range(len(setup))}
    named = [bool(person_names(s, tex)) for s in setup]
    crowded = len(set().union(*(_people(s, tex) for s in setup))) >= 2
    barriers = {j for j, s in enumerate(setup) if _EVENT.search(outside_maths(s, tex))}
    for j in range(1, len(setup)):
        plain = outside_maths(setup[j], tex)
        if _SEQUENCE.search(plain):
            deps[j].update(range(j))
        pron = _PRONOUN.search(plain)
        if pron and not [n for n in person_names(setup[j], tex) if plain.find(n) < pron.start()]:
            if crowded:
                barriers.add(j)
            earlier = [i for i in range(j) if named[i]]
            deps[j].add(earlier[-1] if earlier else j - 1)
        first = re.findall(r"[A-Za-z]+", plain)
        if (first and first[0].lower() in _DEICTIC_START) or plain.lstrip().startswith("("):
            deps[j].add(j - 1)
    for j in barriers:
        deps[j].update(range(j))
        for k in range(j + 1, len(setup)):
            deps[k].add(j)
    return deps


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

    Only permutations that keep every sentence after the sentences it refers back to (``back_references``) are
    drawn, so a pronoun or "the remaining" never precedes its antecedent. ``None`` when the only admissible
    order is the original one (fewer than two movable setup sentences).
    """
    seg = segment(text, tex)
    setup = seg.setup
    if len(setup) < 2:
        return None
    deps = back_references(setup, tex)
    rng = random.Random(seed)
    for _ in range(tries):
        order = _random_linear_extension(deps, rng)
        if order != list(range(len(setup))):
            break
    else:
        return None
    new = [setup[i] for i in order] + list(seg.sentences[seg.query :])
    changes = {"order": order, "back_references": {str(j): sorted(d) for j, d in deps.items() if d}}
    return Twin(seg.join(new), "sentence_reorder", 0, seed, changes)


# ------------------------------------------------------------------------------------------ distractors


def irrelevant_context(
    text: str,
    size: int,
    donors: Sequence[tuple[str, Sequence[str]]],
    seed: int,
    *,
    exclude: str | None = None,
    tex: bool = False,
    max_draws: int = 64,
) -> Twin | None:
    """§3.1 distractor injection: ``size`` setup sentences of other problems, inserted before the query.

    ``donors`` are ``(problem id, setup sentences)`` of problems of the same suite; the donor ``exclude`` (the
    target itself) is never used. Donors are drawn at random (seeded, without repetition) and each contributes
    the opening run of its setup, so its own pronouns keep their antecedents, until ``size`` sentences are
    stacked. A sentence with a ``?`` is never taken. ``None`` when ``max_draws`` draws cannot supply ``size``.
    """
    if size < 1:
        raise ValueError(f"injection size must be >= 1, got {size}")
    rng = random.Random(seed)
    taken: list[str] = []
    used: list[str] = []
    seen: set[int] = set()
    for _ in range(max_draws):
        if len(taken) == size or len(seen) == len(donors):
            break
        k = rng.randrange(len(donors))
        if k in seen:
            continue
        seen.add(k)
        donor_id, sentences = donors[k]
        run = list(itertools.takewhile(lambda s: "?" not in s, sentences))
        if donor_id == exclude or not run:
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


def identity(text: str, seed: int = 0) -> Twin:
    """The placebo of §7 step 8: the base text unchanged (measures the re-sampling floor)."""
    return Twin(text, "identity", 0, seed, {})
