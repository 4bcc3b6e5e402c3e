"""§3.1 ``entity_rename`` and the person-name reading the other operators share (names, genders, pronouns)."""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from glass_inspect.corpus.operators.lexicon import census_first_names, ordinary_word
from glass_inspect.corpus.operators.text import Twin, outside_maths, segment

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
# a title + capitalised word followed by another capitalised word is a product or compound name ("Mr. Potato Head",
# "Mr. Pizza Inns") or a full name ("Dr. Hugo Grumpus"): no surname to rename there
_TITLE_COMPOUND = re.compile(r"[ \t]+[A-Z][A-Za-z'’&-]*")
# abbreviations that open a place or saint's name ("St. Paul", "Mt. Vernon") and holidays named after a person
_PLACE_ABBREVIATIONS = ("St.", "Mt.", "Ft.")
_HOLIDAY = re.compile(r"['’]s[ \t]+(?:Day|Eve)\b")
_WORD = re.compile(r"\b[A-Z][a-z]+\b")
_APOSTROPHES = "'’"


@lru_cache(maxsize=1)
def name_table() -> dict[str, Any]:
    """The name lists of ``data/names.json`` (recognised names by gender, replacement pools, surnames, and the
    person nouns of the distractor capture guard)."""
    raw = json.loads(resources.files("glass_inspect.corpus").joinpath("data/names.json").read_text(encoding="utf-8"))
    gender = {n: g for g in ("female", "male", "unisex") for n in raw[g]}
    gender.update(raw["ambiguous_gender"])
    return {
        "gender": gender,
        "ambiguous": frozenset(raw["ambiguous"]),
        "pool": {g: tuple(raw[f"pool_{g}"]) for g in ("female", "male", "unisex")},
        "surnames": tuple(raw["surnames"]),
        "person_nouns": frozenset(raw["person_nouns"]),
        "not_person_nouns": frozenset(raw["not_person_nouns"]),
        "comparative_bases": frozenset(raw["comparative_bases"]),
        "lexicon_not_persons": frozenset(raw["lexicon_not_persons"]),
    }


def first_name_gender(word: str) -> str | None:
    """``female`` / ``male`` / ``unisex`` for a first name: the listed one (``names.json``, hand-checked) first,
    else the census lexicon's (``lexicon.census_first_names``); None for a word that is neither."""
    return name_table()["gender"].get(word) or census_first_names().get(word)


# a place or a thing before the word: "in Austin", "drove to Houston", "a gold Jewell" (census first names that are
# also places, or misspelt words)
_NOT_PERSON_CONTEXT = (
    r"(?:\b(?:in|at|from|near|into|across|around|through|towards?|of|visit(?:s|ed|ing)?)"
    r"|\b(?:a|an|the|this|that|each|every|per)(?:\s+[a-z]+)?"
    r"|\b(?:go(?:es)?|went|drive[sn]?|drove|fl(?:y|ies|ew)|travel\w*|mov(?:e[sd]?|ing)|walk\w*|r(?:ide|ides|ode)|trip)"
    r"\s+(?:back\s+)?to)\s+"
)


def lexicon_name_here(plain: str, word: str) -> bool:
    """Whether a first name only the census lexicon knows (not in ``names.json``'s lists) reads as a person in
    ``plain``: no English word (``lexicon.ordinary_word``: Holly, Miles, King), no title (Miss), not a place, nation
    or holiday (``lexicon_not_persons``: India, Easter), never also written in lower case there ("colby cheese"),
    and never after a place preposition or an article ("in Austin", "drove to Dallas", "a gold Jewell")."""
    if ordinary_word(word) or word in TITLE_WORDS or word in name_table()["lexicon_not_persons"]:
        return False
    if re.search(rf"\b{re.escape(word.lower())}\b", plain):
        return False
    return not re.search(_NOT_PERSON_CONTEXT + rf"{re.escape(word)}\b", plain, re.I)


def part_of_a_word(plain: str, word: str) -> bool:
    """Whether ``word`` is glued to a longer word somewhere in ``plain`` by a hyphen or an apostrophe ("T-Rex",
    "D'Angelo", "Wei-Hwa"): the whole is a name or a thing, not the person ``word``."""
    for m in re.finditer(rf"\b{re.escape(word)}\b", plain):
        if re.search(r"[A-Za-z][-'’]$", plain[: m.start()]) or re.match(r"-[A-Za-z]", plain[m.end() :]):
            return True
    return False


def sentence_starts(text: str, tex: bool) -> set[int]:
    seg = segment(text, tex)
    starts, pos = set(), len(seg.prefix)
    for s, sep in zip(seg.sentences, seg.seps, strict=False):
        starts.add(pos)
        pos += len(s) + len(sep)
    return starts


def person_names(text: str, tex: bool = False) -> dict[str, str]:
    """Recognised person names of ``text`` -> ``"female" | "male" | "unisex" | "surname"``.

    A listed first name (``names.json``) counts anywhere; an ambiguous one (also a common word: Mark, Grace, Will)
    only if it is capitalised somewhere other than a sentence start. A name only the census lexicon knows (Travis,
    Maggie, Celine) counts where ``lexicon_name_here`` reads it as a person, with the lexicon's gender. A capitalised word after a title is a surname. Calendar
    words never count.
    """
    table = name_table()
    plain = outside_maths(text, tex)
    starts = sentence_starts(text, tex)
    found: dict[str, str] = {}
    compound: set[str] = set()
    for m in _TITLE_SURNAME.finditer(plain):
        if _TITLE_COMPOUND.match(plain, m.end()):
            compound.add(m.group(3))  # "Mr. Potato Head": a product / compound name, not "Mr. Potato"
        elif m.group(3) not in CALENDAR_WORDS:
            found[m.group(3)] = "surname"
    for word in compound:
        found.pop(word, None)  # one compound use makes every use of the word ambiguous: leave it alone
    for m in _WORD.finditer(plain):
        word = m.group(0)
        gender = None if word in CALENDAR_WORDS else first_name_gender(word)
        if word in found or word in compound or gender is None:
            continue
        if word not in table["gender"] and not lexicon_name_here(plain, word):
            continue
        if in_compound_name(plain, word) or part_of_a_word(plain, word):
            continue
        if word == "Jack" and re.search(r"\b(Queen|King|Ace|cards?|deck)\b", plain):
            continue  # a card rank, not a person
        if word in table["ambiguous"]:
            mid = any(k.start() not in starts for k in re.finditer(rf"\b{word}\b", plain))
            if not mid:
                continue
        found[word] = gender
    return found


# sentence-opening function words: "When Mary ..." is not a two-word name
OPENERS = frozenset(
    "a an the when if after before while as at in on by for from with without since because but and or so then "
    "once until unless though although every each this that these those last next today yesterday tomorrow "
    "tonight during how what which who where why whose there here all both some many most our my your his her "
    "their its one two three four five six seven eight nine ten dear suppose assume let imagine say meet help ask "
    "tell".split()
)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z'’.&-]*")


def in_compound_name(plain: str, word: str) -> bool:
    """Whether ``word`` occurs in ``plain`` as part of a multi-word proper name ("San Diego", "Jackson Street",
    "Lincoln Middle School"): right after or before another capitalised word (not a sentence-opening function
    word, not a title, not a listed first name), after a place abbreviation ("St. Paul", "Mt. Vernon"), or as a
    holiday's possessive ("St. Patrick's Day", "Valentine's Day")."""
    table = name_table()
    for m in re.finditer(rf"\b{re.escape(word)}\b", plain):
        before = re.search(r"([A-Za-z'’.&-]+) $", plain[: m.start()])
        after = re.match(r" ([A-Za-z'’&-]+)", plain[m.end() :])
        if (before and before.group(1) in _PLACE_ABBREVIATIONS) or _HOLIDAY.match(plain, m.end()):
            return True
        if before and _CAPITALISED.fullmatch(before.group(1)):
            prev = before.group(1).rstrip(".")
            if prev.lower() not in OPENERS and prev not in TITLE_WORDS and not before.group(1).endswith("."):
                if prev not in table["gender"] or prev in table["ambiguous"]:
                    return True
        if after and _CAPITALISED.fullmatch(after.group(1)) and plain[m.end() : m.end() + 1] == " ":
            nxt = after.group(1)
            if nxt not in table["gender"] and nxt not in CALENDAR_WORDS and nxt.lower() not in OPENERS:
                return True
    return False


def pronoun_gender(text: str, tex: bool) -> str | None:
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


def doubtful_lexicon_genders(text: str, tex: bool, found: dict[str, str]) -> set[str]:
    """The names of ``found`` only the census lexicon knows whose gender the text's pronouns contradict: every he /
    she of the text is of the other gender and no other found name could be its referent ("Marin and his neighbor
    Nancy": a name mostly given to women, here a man). Such a name keeps its name: its pool is unknown."""
    pronouns = pronoun_gender(text, tex)
    if pronouns is None:
        return set()
    listed = name_table()["gender"]
    referents = [n for n, g in found.items() if g in (pronouns, "unisex")]
    return {
        n for n, g in found.items() if n not in listed and g not in (pronouns, "unisex", "surname") and not referents
    }


def _one_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one substituted, inserted or deleted letter."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def misspelt_names(text: str, tex: bool, found: dict[str, str]) -> set[str]:
    """The names of ``found`` that the text also spells another way, so a rename would leave a stray spelling behind
    ("how many cars does joe remain with", "Ethel ... If Ethal has $8", "his friend Tashay ... Tasha had"): the name
    in lower case, or a capitalised word that is no found name and extends the name by one or two letters or, for
    names of four letters or more, lies one letter away."""
    plain = outside_maths(text, tex)
    words = set(re.findall(r"[A-Za-z]+", plain)) - set(found)
    misspelt = set()
    for name in found:
        capitalised = {w for w in words if w[:1].isupper()}
        extended = any(w.startswith(name) and 0 < len(w) - len(name) <= 2 for w in capitalised)
        near = len(name) >= 4 and any(_one_edit_apart(name, w) for w in capitalised)
        if name.lower() in words or extended or near:
            misspelt.add(name)
    return misspelt


def entity_rename(text: str, seed: int, *, tex: bool = False, answer: str = "") -> Twin | None:
    """§3.1 ``entity_rename``: each recognised person name -> a pool name of the same gender, consistently.

    Possessives follow the new name; nothing else in the text changes. A name inside a multi-word proper name
    ("San Diego") is not a person (``person_names``); when the text names one person, with a unisex name, and its
    he / she pronouns are all of one gender, the replacement comes from that gender's pool, so they still fit.
    A name the gold ``answer`` holds ("Who wins?" -> "devon") keeps its name, since the twin keeps the base's
    answer, and so do a lexicon name whose gender the pronouns contradict (``doubtful_lexicon_genders``) and a name
    the text also spells another way (``misspelt_names``). ``None`` when no name is left to rename.
    """
    kept = {w.lower() for w in re.findall(r"[A-Za-z]+", answer)}
    found = person_names(text, tex)
    doubtful = doubtful_lexicon_genders(text, tex, found) | misspelt_names(text, tex, found)
    names = {n: g for n, g in found.items() if n.lower() not in kept and n not in doubtful}
    if not names:
        return None
    table = name_table()
    rng = random.Random(seed)
    words_in_text = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    used: set[str] = set()
    mapping: dict[str, str] = {}
    first_names = [n for n, k in found.items() if k != "surname"]
    text_gender = pronoun_gender(text, tex) if len(first_names) == 1 else None
    for old in sorted(names):
        kind = names[old]
        if text_gender and (kind == "unisex" or sole_person(text, tex)):
            kind = text_gender  # one person, the pronouns say which pool fits (unisex name, or a list mismatch)
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


PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.I)
PLURAL_PRONOUN = re.compile(r"\b(they|them|their|theirs|themselves|it|its|itself)\b", re.I)
MALE_PRONOUN = re.compile(r"\b(he|him|his|himself)\b", re.I)
FEMALE_PRONOUN = re.compile(r"\b(she|her|hers|herself)\b", re.I)
PLAIN_OPENERS = frozenset(
    "A An The Each Every One Two Three Four Five Six Seven Eight Nine Ten There In On At For If It This That "
    "These Those Some Most All Many Half He She His Her Him They Their Them It Its We You I".split()
)


def bare_pronoun(sentence: str, tex: bool, pattern: re.Pattern = PRONOUN) -> re.Match | None:
    """The first pronoun of ``pattern`` in ``sentence`` not preceded there by a recognised name."""
    plain = outside_maths(sentence, tex)
    pron = pattern.search(plain)
    if not pron:
        return None
    gender = "male" if MALE_PRONOUN.fullmatch(pron.group(0)) else "female"
    fits = [n for n, g in person_names(sentence, tex).items() if g in (gender, "unisex", "surname")]
    return None if any(0 <= plain.find(n) < pron.start() for n in fits) else pron


def sole_person(text: str, tex: bool = False) -> tuple[str, str] | None:
    """``(name, gender)`` when ``text`` names exactly one person (a listed first name) and no other capitalised word
    away from a sentence start could be a person."""
    names = person_names(text, tex)
    if len(names) != 1:
        return None
    ((name, gender),) = names.items()
    openers = {w.capitalize() for w in OPENERS} | PLAIN_OPENERS | CALENDAR_WORDS | TITLE_WORDS
    others = {m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+\b", outside_maths(text, tex))} - {name} - openers
    return None if others else (name, gender)


# ------------------------------------------------------------------------------------------ person nouns

_AGENT_SUFFIX = ("er", "or", "ist", "ian", "eer", "man", "men", "person")
_IRREGULAR_PLURALS = {"people": "person", "children": "child", "wives": "wife", "thieves": "thief", "folks": "folk"}


@lru_cache(maxsize=65536)
def person_noun(word: str, before_than: bool = False) -> bool:
    """Whether the lower-case ``word`` names a person (singular or plural): a listed person noun (``names.json``
    ``person_nouns``: boy, aunt, nurse, juggler, blacksmith, ...) or a word with an agent suffix (-er, -or, -ist,
    -ian, -eer, -man / -men) that is neither a listed non-person (number, water, computer, median, ...) nor a
    comparative (older, bigger, easier; any -er word right before "than")."""
    table = name_table()
    w = word.lower()
    forms = [w, _IRREGULAR_PLURALS.get(w, w)]
    if w.endswith("ies"):
        forms.append(w[:-3] + "y")
    if w.endswith("es"):
        forms.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        forms.append(w[:-1])
    if any(f in table["person_nouns"] for f in forms):
        return True
    if any(f in table["not_person_nouns"] for f in forms):
        return False
    singular = forms[-1]
    if len(singular) < 5 or not singular.endswith(_AGENT_SUFFIX):
        return False
    return not _comparative(singular, before_than, table["comparative_bases"])


def _comparative(w: str, before_than: bool, bases: frozenset[str]) -> bool:
    if not w.endswith("er"):
        return False
    if before_than:
        return True
    stems = {w[:-2], w[:-1], w[:-3] + "y"}
    if len(w) > 4 and w[-3] == w[-4]:
        stems.add(w[:-3])  # bigger -> big
    return not stems.isdisjoint(bases)


_LOWER_WORD = re.compile(r"\b([a-z]+)\b(\s+than\b)?")


def person_nouns_in(sentence: str, tex: bool = False) -> list[str]:
    """The person nouns (``person_noun``) of ``sentence``, outside maths, in order."""
    plain = outside_maths(sentence, tex)
    return [m.group(1) for m in _LOWER_WORD.finditer(plain) if person_noun(m.group(1), bool(m.group(2)))]
