"""The first-name lexicon behind ``person_names`` (§3.1 ``entity_rename`` and the pronoun-gender checks of the other
operators): the US Census 1990 first names by sex that the ``names`` package ships (``dist.female.first``,
``dist.male.first``: 4,275 female and 1,219 male names with their share of each sex), a gender read from those
shares, and the English-word test (``lemminflect``'s lemma lexicon) that marks a name which is also an ordinary
word (Will, Rose, Penny, Carol)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import lemminflect

# a name is one sex's when at least this share of its bearers (census frequencies) are of that sex; else unisex
GENDER_SHARE = 0.95
# shorter census entries (Al, Jo, Ed, Ma) are too often abbreviations or syllables to read as a person
MIN_LENGTH = 3


def _frequencies(filename: str) -> dict[str, float]:
    """Name -> percentage of the sex's population, from one census file (``NAME  freq  cumulative  rank``)."""
    text = resources.files("names").joinpath(filename).read_text(encoding="utf-8")
    rows = (line.split() for line in text.splitlines() if line.strip())
    return {row[0].capitalize(): float(row[1]) for row in rows}


@lru_cache(maxsize=1)
def census_first_names() -> dict[str, str]:
    """Census first name (capitalised) -> ``"female" | "male" | "unisex"`` by the share of its bearers of each sex
    (``GENDER_SHARE``; the two populations are close in size, so percentages compare directly)."""
    female, male = _frequencies("dist.female.first"), _frequencies("dist.male.first")
    genders: dict[str, str] = {}
    for name in female.keys() | male.keys():
        if len(name) < MIN_LENGTH:
            continue
        f, m = female.get(name, 0.0), male.get(name, 0.0)
        share = f / (f + m) if f + m else 0.5
        genders[name] = "female" if share >= GENDER_SHARE else "male" if share <= 1 - GENDER_SHARE else "unisex"
    return genders


@lru_cache(maxsize=65536)
def ordinary_word(word: str) -> bool:
    """Whether ``word``, lower-cased, is an English word or an inflection of one (rose -> rise, will, penny)."""
    return bool(lemminflect.getAllLemmas(word.lower()))
