"""§3.1 ``sentence_reorder``: setup sentences permuted within a constraint graph; the query stays last."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lemminflect import getAllLemmas

from glass_inspect.corpus.operators.names import (
    CALENDAR_WORDS,
    FEMALE_PRONOUN,
    MALE_PRONOUN,
    OPENERS,
    PLAIN_OPENERS,
    PLURAL_PRONOUN,
    PRONOUN,
    TITLE_WORDS,
    bare_pronoun,
    person_names,
    person_noun,
    person_nouns_in,
    pronoun_gender,
    sentence_starts,
)
from glass_inspect.corpus.operators.text import (
    NUMBER_SPAN,
    NUMBER_TOKEN,
    STOP_WORDS,
    Segments,
    Twin,
    content_words,
    maths_letters,
    mentions_money,
    outside_maths,
    segment,
    stem,
)

# ----------------------------------------------------------------------------------------------- reordering
#
# The constraint graph of a setup: sentence j must stay after sentence i (i < j) when j refers back to i. The
# reorder operator draws a random order compatible with the graph, so only sentences that are independent of
# each other trade places. The rules (``back_references``) err on the side of an edge: a missing edge can change
# the answer, a spurious one only costs coverage.

# words that tie a sentence to everything before it: anaphora, sequence and discourse markers, remainders,
# increments, ordinals and place adverbs ("walks there and back")
_BACK_MARKER = re.compile(
    r"\b(that many|that much|this many|this much|the rest|rest of|remain\w*|left|leftover|after|afterwards?|"
    r"later|next|finally|lastly|another|other|others|again|instead|otherwise|if not|if so|"
    r"same|now|still|this|these|those|such|both|either|neither|of them|of those|of these|meanwhile|"
    r"in addition|additionally|besides|whole|entire|the last|last one|previous|"
    r"before|originally|initially|each of(?!\s+\d)|all of|one of|some of|none of|rest|difference|"
    r"different|final|(?:the|his|her|their|its|my|your|our) new|ended up|end up|than that|in kind|likewise|similarly|here|"
    r"there(?!\s+(?:is|are|was|were|will|would|has|have|had|must|should|can|could|may|might|used|seems?|seemed|"
    r"exists?|remains?|lives?|lived)\b|['’]s\b)|"
    r"of (?:that|this|those|these|it|them)|(?:did|do|does|doing|done|like|after|before|for|with|all|is|was) that|"
    r"the (?:money|profit|profits|change|savings|earnings|proceeds|remainder|result|difference)|"
    r"the (?:cost|price|sum|amount|total|number)(?!\s+of\s+(?!(?:the|them|it|this|that|these|those|his|her|their|its|"
    r"my|your|our|each|all|both)\b)[a-z])|"
    r"that (?:amount|number|long|time|price|rate|distance|speed|sum|figure|cost(?!\s*\$|\s+\d)|size|weight|age|day|week|month|"
    r"year|point|way|one|is))\b|"
    r"^\W*(?:so|however|thus|therefore|hence|yet|or|plus|though|although|except|but|that \w+)\b|"
    r"\b(?:the|his|her|their|its|\w+'s|\w+’s)\s+(?:first|second|third|fourth|fifth|last)\b"
    r"(?!\s+(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few)\s+)?"
    r"(?:day|week|weekend|month|year|hour|minute|morning|night|round|half|game|season|semester|quarter)s?\b)|"
    r"^\W*one\s+(?!day|week|weekend|morning|afternoon|evening|night|time|year|month|hour)[a-z]+\s+(?:is|was|has|had)\b",
    re.I,
)
# "also", ", too", "as well": additive to an earlier statement; a sentence holding one may still move first, and
# then loses the word (``_drop_additive``)
_ADDITIVE = re.compile(r"\s+also\b|,?\s+too(?=\s*[.!;,])|,?\s+as well(?=\s*[.!;,])", re.I)
# an increment with no standard ("buys 2 more", "has 3 fewer"): "5 more than Ann" names its standard
_INCREMENT = re.compile(r"\b(more|less|fewer)\b(?!(?:\s+[\w$.,'’]+){0,4}?\s+than\b)", re.I)
# a comparison whose standard is left out ("has twice as many.", "runs 3 times as fast"): it leans on the
# sentence before; one that names its standard ("twice as many as Ann", "half Steve's time") is a timeless fact
_ELLIPTICAL_COMPARISON = re.compile(
    r"\b(?:as\s+(?:many|much|long|old|fast|far|big|tall|heavy|often|large|high|wide)|more|fewer|less|longer|"
    r"older|younger|taller|shorter|heavier|lighter|faster|slower|cheaper|bigger|smaller|twice|thrice|double|"
    r"triple|half)\s*(?:[.,;!]|$|\b(?:in|on|at|for|to|now|today|during|when|while|if)\b)",
    re.I,
)
# events: a verb whose lemma (lemminflect's English lemma tables, so every inflection counts: completes,
# completing, withdrew) names a change of what someone has, or a few fixed past forms and phrases
_EVENT_LEMMAS = frozenset(
    "give buy sell spend eat lose take use receive add remove find win pay get borrow return donate break trade "
    "put drop throw share split keep leave move spill increase decrease raise reduce rise fall grow change pick "
    "collect make save earn invest plant bake catch charge order rent invite hire deposit withdraw lend send ship "
    "cut pass hand fill pour open start finish complete visit arrive beat serve feed wash clean pack deliver "
    "mail read".split()
)
# past forms whose other forms are comparisons or nouns ("double the number", "a 30% discount")
_EVENT_PHRASE = re.compile(r"\b(?:doubled|tripled|halved|discounted|went up|went down)\b", re.I)
_WORD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=8192)
def _event_word(word: str) -> bool:
    """Whether ``word`` is a form of one of the event verbs."""
    return not _EVENT_LEMMAS.isdisjoint(getAllLemmas(word.lower(), upos="VERB").get("VERB", ()))


def event_verbs(plain: str) -> list[re.Match[str]]:
    """The event verbs of a sentence's prose, in order."""
    found = [m for m in _WORD.finditer(plain) if _event_word(m.group(0))] + list(_EVENT_PHRASE.finditer(plain))
    return sorted(found, key=lambda m: m.start())


# a timeless definition ("Each box holds 6 pens", "A ticket costs $5", "There are 7 days in a week")
_DEFINITION = re.compile(
    r"^\s*(?:(?:each|every|one|a|an)\s+(?:\w+\s+){0,4}?(?:costs?|holds?|contains?|weighs?|has|is|takes?|needs?|"
    r"lasts?|measures?|sells? for|is worth|can hold|can carry)\b|there (?:are|is) \S+ \w+ (?:in|per) (?:a|an|each|every)\b)",
    re.I,
)
# what a recipe makes or needs ("Her recipe makes 1 dozen cookies", "The recipe calls for 3 cups of flour"): a
# standing fact about the recipe, like a definition
_RECIPE = re.compile(r"\b(?:recipe|batch)\s+(?:makes|yields|produces|calls for|requires|needs)\b", re.I)
# a rate: a number followed within a few words by "per", "an hour", "each", "a day", "apiece" ...
_RATE_UNIT = (
    r"(?:hour|day|week|month|year|minute|second|night|pound|ounce|gallon|liter|litre|mile|foot|inch|meter|kilogram|"
    r"dozen|piece|box|pack|bag|item|unit|person|game|lesson|session|page|visit|class|shift|trip|time)s?"
)
_RATE_AFTER = re.compile(
    r"^(?:\s*(?!for\b|and\b|or\b|to\b|with\b)[A-Za-z'’-]+){0,5}?\s*\b(?:per|each|every|apiece|an? "
    + _RATE_UNIT
    + r"|in (?:an?|one|two|three|four|five|six|\d+(?:\.\d+)?) "
    + _RATE_UNIT
    + r")\b",
    re.I,
)
# an ability ("can make", "could hold"): true wherever it stands, like a rate
_ABILITY = re.compile(r"\b(?:can|could)\s+(?:\w+\s+)?$", re.I)
# an initial state ("Ted starts with $200", "At first, ...") stays where it is, like a condition
_INITIAL = re.compile(
    r"\b(starts? (?:off |out )?with|started (?:off |out )?with|begins? with|began with|at first|at the (?:start|beginning)|"
    r"initially|originally|to begin with|in the beginning)\b",
    re.I,
)
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b", re.I)


def _timeless(plain: str) -> bool:
    """A definition ("Each box holds 6 pens", "Her recipe makes 1 dozen cookies") or a sentence whose every
    number is a rate ("He earns $10 an hour", "It costs $2 per box") and that spans no stretch of the story ("for
    a year", "the following year"): true wherever it stands in the story."""
    if _DEFINITION.search(plain) or _RECIPE.search(plain):
        return True
    numbers = list(NUMBER_SPAN.finditer(plain))
    if numbers and all(_RATE_AFTER.match(plain[m.end() : m.end() + 64]) for m in numbers):
        return not _EPISODE.search(plain)  # "buys 1 game per month for a year, then ...": a stretch of the story
    verbs = event_verbs(plain)
    return bool(verbs) and all(_ABILITY.search(plain[: m.start()]) for m in verbs)


# a rate over a stretch of the story ("for a year", "the following year"), not a standing fact
_EPISODE = re.compile(
    r"\bfor an? (?:day|week|month|year)\b|\b(?:following|next|previous) (?:day|week|month|year)\b", re.I
)


_SPECIFIC_START = re.compile(
    r"^\W*(?:each|every|the|that|this|these|those|one|his|her|their|its|my|our|your|some|all|both|either|neither|"
    r"most|half|another|other|\d)\b",
    re.I,
)


# what a kind of thing costs, weighs or holds ("A pen costs as much as a pencil"); "A certain company ..." is a
# particular one
_MEASURE_FACT = re.compile(
    r"^\W*an?\s+(?!certain\b)(?:\w+\s+){0,3}?(?:costs?|weighs?|holds?|contains?|measures?|lasts?|is worth|sells? for)\b",
    re.I,
)


def _general_measure(plain: str, names: dict[str, str]) -> bool:
    """A fact about a kind of thing, true in any story: what one costs, weighs or holds ("A pen costs as much as a
    pencil and eraser combined"), of no person (no name, no he / she). A number-free first sentence of this kind
    sets no scene."""
    return bool(_MEASURE_FACT.match(plain)) and not names and not PRONOUN.search(plain)


def _owned_by(plain: str, people: dict[str, str]) -> bool:
    """Whether ``plain`` opens on his / her of a person of ``people`` ("Her job pays $8 an hour."): a pronoun the
    pronoun rule governs, which becomes "Lori's" if the sentence moves first, not something specific."""
    opening = re.match(r"\W*(his|her)\b", plain, re.I)
    if opening is None:
        return False
    return ("male" if opening.group(1).lower() == "his" else "female") in people


def repairable_people(text: str, tex: bool = False) -> dict[str, str]:
    """``gender -> name`` for each gender with exactly one named person in ``text``, when the text names no
    other possible person (a capitalised word the lists miss, a person noun such as "her sister", "the
    teacher") and no reflexive pronoun but those bound in their sentence (``_reflexives_bound``): a bare he / she
    of that gender can only mean that person, so a sentence holding one may move before the person's
    introduction once its first pronoun becomes the name. A text that names nobody the lists know but one person
    they miss (``unlisted_person``) is about that person."""
    names = person_names(text, tex)
    plain = outside_maths(text, tex)
    by_gender: dict[str, list[str]] = {"male": [], "female": []}
    for name, g in names.items():
        if g == "unisex" and len(names) == 1:
            g = pronoun_gender(text, tex) or g  # one person: the pronouns say which
        if g not in by_gender:
            return {}
        by_gender[g].append(name)
    others = _other_capitalised(text, tex, names)
    if any(stem(w) == w for w in person_nouns_in(plain)) or not _reflexives_bound(text, tex):
        return {}
    if _ANIMAL.search(plain):  # "Nate's dog can dig six holes a day. He digs for 14 days": a pet is a he / she too
        return {}
    if not names:
        unlisted = unlisted_person(text, tex)
        return {unlisted[1]: unlisted[0]} if unlisted else {}
    if others:
        return {}
    return {g: found[0] for g, found in by_gender.items() if len(found) == 1}


def _reflexives_bound(text: str, tex: bool) -> bool:
    """Whether every himself / herself of ``text`` has a he / his / name of its gender before it in its own
    sentence ("Sara wants to buy herself a jacket", "he bought cones for himself"): bound there, it moves with its
    sentence and never becomes anyone's first mention."""
    for sentence in segment(text, tex).sentences:
        plain = outside_maths(sentence, tex)
        for reflexive in re.finditer(r"\b(himself|herself)\b", plain, re.I):
            gender = "male" if reflexive.group(1).lower() == "himself" else "female"
            before = plain[: reflexive.start()]
            pattern = MALE_PRONOUN if gender == "male" else FEMALE_PRONOUN
            named = [n for n, g in person_names(sentence, tex).items() if g in (gender, "unisex") and n in before]
            if not (pattern.search(before) or named):
                return False
    return True


def _other_capitalised(text: str, tex: bool, names: dict[str, str]) -> set[str]:
    """The capitalised words of ``text`` that are not ``names``, sentence openers ("Unfortunately", "Together"),
    titles or calendar words: possible people the name lists miss."""
    plain = outside_maths(text, tex)
    starts = sentence_starts(text, tex)
    openers = {w.capitalize() for w in OPENERS} | PLAIN_OPENERS | CALENDAR_WORDS | TITLE_WORDS
    others = (
        {
            m.group(0)
            for m in re.finditer(r"\b[A-Z][a-z]+\b", plain)
            if not (
                m.start() in starts and (_ADVERB_OPENER.fullmatch(m.group(0)) or plain[m.end() : m.end() + 1] == ",")
            )
        }
        - set(names)
        - openers
    )
    return {w for w in others if w.rstrip("s") not in CALENDAR_WORDS}  # "Sundays"


def unlisted_person(text: str, tex: bool = False) -> tuple[str, str] | None:
    """``(name, gender)`` of a person the name lists miss: the text names nobody they know, repeats one other
    capitalised word (or gives it a possessive, or opens on it as the subject) and has he / she pronouns of one
    gender only ("Watson works ... He earns ... Watson's pay", "Nani is 8 years old. His brother ... Nani's
    sister", "Charisma works for 8 hours every day. She has a timer ...": a name that is also a word)."""
    if person_names(text, tex):
        return None
    others = _other_capitalised(text, tex, {})
    if len(others) != 1:
        return None
    (word,) = others
    plain = outside_maths(text, tex)
    gender = pronoun_gender(text, tex)
    repeated = len(re.findall(rf"\b{word}\b", plain)) >= 2 or re.search(rf"\b{word}['’]", plain)
    # "Bob spends $270 ... He can buy": the story's subject (not a participle: "Making a drum a day, ...")
    opening = not word.endswith("ing") and re.match(rf"\W*{word}\s+(?!(?:a|an|the|of|to|in|on|at|for)\b)[a-z]", plain)
    return (word, gender) if gender and (repeated or opening) else None


_ANIMAL = re.compile(
    r"\b(dog|puppy|cat|kitten|horse|pony|cow|bull|pig|goat|sheep|lamb|chicken|hen|rooster|duck|goose|bird|parrot|"
    r"fish|hamster|rabbit|bunny|mouse|rat|snake|turtle|tortoise|lizard|frog|monkey|gorilla|chimpanzee|ape|elephant|"
    r"lion|tiger|bear|wolf|fox|deer|camel|donkey|mule|squirrel|owl|eagle|hawk|spider|bee|ant|whale|dolphin|shark|"
    r"seal|penguin|giraffe|zebra|kangaroo|koala|panda|dragon|pet|animal|calf|foal|piglet|chick|ferret|guinea pig)\b",
    re.I,
)
# sentence openers that are not people: "Unfortunately, ...", "Together they ...", "Calculate ..."
_ADVERB_OPENER = re.compile(
    r"[A-Z][a-z]+ly|To|Over|Calculate|Find|Together|Now|Later|Compared|Starting|According|Feeling|Finally|"
    r"Altogether|Meanwhile|Overall|During|Within|Including|Besides|Instead|Afterwards|Yesterday|Today|Tomorrow",
)


def back_references(
    setup: Sequence[str], tex: bool = False, *, people: dict[str, str] | None = None, query: str = ""
) -> dict[int, set[int]]:
    """The constraint graph of a setup: for each sentence, the earlier sentences it must stay after.

    * **opening scene**: a first sentence stating no number ("Janet runs a bakery."; not a general measure: "A
      pen costs as much as a pencil and eraser combined", ``_general_measure``), naming two or more people,
      opening on a count of people ("Four students ...") or on a place ("At a fair, ...") stays first
      (``introduces_cast``);
    * **markers** (that many, the rest, remaining, then, another, this / these, if not, it / they, there,
      a sentence opening with So, "2 more" with no "than") tie a sentence to every sentence before it; an
      opening But / And / Also is read away (``_prose``) and goes when the sentence moves, unless an "only" keeps
      the contrast ("But she was only able to ...": ``_CONTRAST_ONLY``);
    * **he / she** not preceded by a name in its own sentence: after the nearest earlier sentence naming a
      person of that gender (a person the name lists miss counts: ``unlisted_person``; every earlier sentence
      when none does, or when two people of that gender appear), unless ``people`` (``repairable_people``)
      names the only person of that gender;
    * **comparisons**: one whose standard is left out ("twice as many.") leans on every earlier sentence; one
      that names it ("twice as many as Ann") is a fact, ordered only against events (below);
    * **ordinals** (the first, the second, ...): after every earlier sentence holding an ordinal;
    * **events** (gives, buys, sells, ...) keep their order when they share a noun, or both touch money, or
      they concern the same person (or a person of a comparison); a sentence that is not timeless (a
      definition or a rate: "earns $10 an hour") keeps its order with an event sharing a noun or a person of
      a comparison (it may describe the state before or after the event); two parallel statements about two
      subjects ("Ellen bought ..." / "Lani bought ...", ``parallel``) keep no order;
    * **definite reference**: "the teacher", "the first child" after the earlier sentences that introduce that
      noun (name it outside a definite phrase: ``_introduced``), or after every earlier sentence holding it when
      no sentence introduces it ("each child" is generic and may come first);
    * **conditions**: a setup sentence opening with If / When / Unless / Assuming stays where it is;
    * **ellipsis**: a number with no noun after it ("eats three for breakfast"), or a sentence led by a bare
      number or quantifier ("One says 80.", "3 were orange", "The first needs ...", "A 2 x 4 costs $4"), refers
      to an earlier noun: after every earlier sentence;
    * **time**: sentences placed in time (On Friday, One weekend, In the afternoon, the next day, ...) keep
      their order among themselves; "the first 3 weeks", "in the two hours" stay after the sentences naming
      weeks / hours;
    * **the query**: when it refers to the last event ("after that", "then", "this", ...; not a relative "a bike
      that costs $300"), the last setup sentence stays last;
    * **LaTeX**: a sentence sharing a maths letter or content word with an earlier one stays after it (a
      definition is used later), so only independent statements move.
    """
    rules = reference_rules(setup, tex, people=people, query=query)
    return {j: set().union(*by_rule.values()) for j, by_rule in rules.items()}


# the rule families of ``reference_rules``, in the order of ``back_references``'s docstring
RULES = ("opening", "marker", "pronoun", "sequence", "event", "definite", "maths", "query", "condition")


def reference_rules(
    setup: Sequence[str], tex: bool = False, *, people: dict[str, str] | None = None, query: str = ""
) -> dict[int, dict[str, set[int]]]:
    """``back_references`` by rule: for each sentence, each rule family of ``RULES`` (the opening scene, back
    markers, pronouns, time and ordinals, events, definite reference, shared maths letters, the query pointing
    back, conditions and initial states) -> the earlier sentences that rule keeps it after (so a blocked setup
    can be told which rules block it: ``benchmarks/glass_reorder_blockers.py``)."""
    n = len(setup)
    rules: dict[int, dict[str, set[int]]] = {j: {rule: set() for rule in RULES} for j in range(n)}
    if n < 2:
        return rules
    facts = _SetupFacts.of(setup, tex)
    plains = facts.plains
    asked = content_words(query, tex)  # "Each rose needs 1 pound. ... how many roses?": the rose is the question's
    scene = (opening_scene(setup, tex) and not _general_measure(plains[0], facts.names[0])) or introduces_cast(
        setup[0], tex
    )
    for j in range(1, n):
        plain, rule = plains[j], rules[j]
        if scene or (_SPECIFIC_START.match(plain) and not _owned_by(plain, people or {})):
            rule["opening"].add(0)  # the opening sets the scene: only a general fact ("Eggs are 75 calories") precedes
        if back_marker(plain) is not None:
            rule["marker"].update(range(j))
        elif PLURAL_PRONOUN.search(plain):
            rule["pronoun"].update({0} if _opener_pronoun(plains, j) else range(j))
        rule["pronoun"] |= pronoun_antecedents(setup, j, tex, people or {}, facts.names, facts.genders)
        rule["sequence"] |= _sequence_deps(plains, j)
        rule["event"] |= _event_deps(facts, j)
        rule["definite"] |= _definite_deps(facts, j, asked)
        if tex:
            rule["maths"].update(i for i in range(j) if facts.content[i] & facts.content[j])
    if query_points_back(query, tex):
        rules[n - 1]["query"].update(range(n - 1))
    for j, held in _held_conditions(plains).items():
        rules[j]["condition"] |= held
    return rules


def _held_conditions(plains: Sequence[str]) -> dict[int, set[int]]:
    """A condition ("If the chair is 3 feet wide.") or an initial state ("starts with $200") stays where it is:
    after every sentence before it, before every sentence after it."""
    n = len(plains)
    held: dict[int, set[int]] = {j: set() for j in range(n)}
    for j, plain in enumerate(plains):
        if _INITIAL.search(plain) or (j > 0 and re.match(r"\W*(if|when|unless|assuming)\b", plain, re.I)):
            held[j].update(range(j))
            for k in range(j + 1, n):
                held[k].add(j)
    return held


@dataclass(frozen=True)
class _SetupFacts:
    """What the rules of ``back_references`` read off each setup sentence: its prose, content words, named
    people, things (content words less names and event verbs), the people it may speak of (names and the names
    its he / she may mean), whether it touches money, is timeless, or is an event."""

    plains: list[str]
    content: list[frozenset[str]]
    names: list[dict[str, str]]
    genders: dict[str, set[str]]
    nouns: list[frozenset[str]]
    who: list[set[str]]
    money: list[bool]
    timeless: list[bool]
    events: list[bool]
    introduced: list[frozenset[str]]

    @classmethod
    def of(cls, setup: Sequence[str], tex: bool) -> _SetupFacts:
        plains = [_prose(s, tex) for s in setup]
        content = [content_words(s, tex) for s in setup]
        names = [person_names(s, tex) for s in setup]
        unlisted = unlisted_person(" ".join(setup), tex)
        if unlisted:  # "Nani is 8 years old. His brother ...": a person the lists miss is a person for the rules
            word, gender = unlisted
            names = [
                found | {word: gender} if re.search(rf"\b{word}\b", p) else found
                for found, p in zip(names, plains, strict=True)
            ]
        genders = named_genders(names)
        timeless = [_timeless(p) for p in plains]
        return cls(
            plains=plains,
            content=content,
            names=names,
            genders=genders,
            nouns=[_things(c, found, p) for c, found, p in zip(content, names, plains, strict=True)],
            who=[set(found) | _pronoun_people(p, genders) for p, found in zip(plains, names, strict=False)],
            money=[mentions_money(p) for p in plains],
            timeless=timeless,
            events=[bool(event_verbs(p)) and not timeless[i] for i, p in enumerate(plains)],
            introduced=[_introduced(s, tex) for s in setup],
        )


def _sequence_deps(plains: Sequence[str], j: int) -> set[int]:
    """Sentences placed in time keep their order among themselves, and so do sentences holding an ordinal; an
    ordinal or counted definite time phrase ("the first 3 weeks", "in the two hours") stays after every sentence
    naming its unit (the period it cuts or repeats)."""
    out: set[int] = set()
    for marker in (_TEMPORAL, _ORDINAL):
        if marker.search(plains[j]):
            out.update(i for i in range(j) if marker.search(plains[i]))
    for unit in {u.lower() for u in _ORDINAL_TIME.findall(plains[j])}:
        out.update(i for i in range(j) if re.search(rf"\b{unit}s?\b", plains[i], re.I))
    return out


_COUNT = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few)"
# a period cut out of a stated one: "the first 3 weeks", "the next day", "in the two hours"
_ORDINAL_TIME = re.compile(
    rf"\b(?:(?:first|second|third|fourth|fifth|last|next)\s+(?:{_COUNT}\s+)?|the\s+{_COUNT}\s+)"
    r"(day|week|month|year|hour|minute|round|game|season)s?\b",
    re.I,
)


def _event_deps(facts: _SetupFacts, j: int) -> set[int]:
    """The earlier sentences whose order an event rule keeps with sentence ``j``: two events sharing a thing,
    money or a person; an event and a state that is not timeless sharing a thing or a person. Two parallel
    statements (``parallel``) keep no order."""
    out: set[int] = set()
    for i in range(j):
        if parallel(facts.plains[i], facts.plains[j]):
            continue
        share_noun = bool(facts.nouns[i] & facts.nouns[j])
        share_who = bool(facts.who[i] & facts.who[j]) or "*" in facts.who[i] or "*" in facts.who[j]
        if facts.events[i] and facts.events[j]:  # same thing, money, or the same person's story: keep the order
            if share_noun or (facts.money[i] and facts.money[j]) or share_who:
                out.add(i)
        elif facts.events[i] or facts.events[j]:
            state = j if facts.events[i] else i
            if not facts.timeless[state] and (share_noun or share_who):
                out.add(i)
    return out


# a definite or distributive noun phrase: "the teacher", "each child", "the number of pens", "the first 2 hours"
_DEFINITE = re.compile(
    r"\b(?:the|each|every)\s+(?:(?:number|amount|total|cost|price|sum) of\s+)?"
    r"(?:(?:first|second|third|fourth|fifth|last|next)\s+)?(?:\d+\s+)?(\w+)(?:\s+(\w+))?",
    re.I,
)


# "each place", "the number of shoplifters": a bridging reference when no other sentence names the thing
_BRIDGING = re.compile(r"\b(?:each|every|the (?:cost|price|sum|amount|total|number) of)\s+([A-Za-z]{3,})", re.I)


_EACH_OPENING = re.compile(r"\W*(?:each|every)\s+([A-Za-z]{3,})", re.I)


def _definite_deps(facts: _SetupFacts, j: int, asked: frozenset[str]) -> set[int]:
    """Definite and bridging references of sentence ``j``: "the teacher" after every earlier sentence holding
    that noun; a comparison whose standard is a thing's ("twice as long as Tuesday's night class") after the
    earlier sentences naming its owner (a person's, "as big as Zack's locker", keeps no order); a definition
    opening on "Each X" ("Each cookie costs 10 cents") is a fact about every X and stays after the sentence
    introducing X only; an opening "the X" or an "each X" that no other sentence (nor
    the question) names bridges to what came before, so it stays after every earlier sentence; so does "the
    number of X" when nothing else names X."""
    plain, nouns = facts.plains[j], facts.nouns
    definite = {stem(w.lower()) for m in _DEFINITE.finditer(plain) for w in m.groups() if w and len(w) > 2} - {
        "same",
        "rest",
        "other",
    }
    general = _EACH_OPENING.match(plain) if facts.timeless[j] else None
    out: set[int] = set()
    for word in definite:
        holders = [i for i in range(j) if word in nouns[i] and not parallel(facts.plains[i], plain)]
        if any(word in facts.introduced[i] for i in range(len(nouns)) if i != j):
            holders = [i for i in holders if word in facts.introduced[i]]  # "the X" leans on X's introduction
        out.update(holders[:1] if general and word == stem(general.group(1)) else holders)
    opening = re.match(r"\W*the\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", plain, re.I)
    if opening and not any(stem(w) in nouns[i] for w in opening.groups() if w for i in range(j)):
        out.update(range(j))  # "The walls are 1 inch thick.": a bridging reference to what came before
    bridged = {stem(w) for w in _BRIDGING.findall(plain)} - STOP_WORDS
    if any(not any(w in nouns[i] for i in range(len(nouns)) if i != j) and w not in asked for w in bridged):
        out.update(range(j))  # "from each place": a bridging reference to what came before
    for owner in _THING_STANDARD.findall(plain):  # "twice as long as Tuesday's night class": after the Tuesdays
        if not person_names(owner) and not person_noun(owner.lower()):
            out.update(i for i in range(j) if stem(owner.lower()) in nouns[i])
    return out


# a comparison whose standard is something's thing ("as long as Tuesday's night class", "than the day's sales"):
# the owner is named before; a person's thing ("as big as Zack's locker") is a standard like the person
_THING_STANDARD = re.compile(r"\b(?:than|as\s+[a-z]+(?:\s+[a-z]+){0,3}?\s+as)\s+(?:the\s+)?([A-Za-z]+)['’]s\b", re.I)


def parallel(first: str, second: str) -> bool:
    """Whether two sentences are parallel statements about two different subjects ("Ellen bought a pair of
    leggings for $100." / "Lani bought a pair of sunglasses at $30.", "The baseball coach bought 9 new baseballs"
    / "The basketball coach bought 8 new basketballs", "Xavier was 4 feet tall" / "Cole was 50 inches tall"): both
    open on a subject of one to four words, then the same event or state verb; the subjects differ in a word that
    the other sentence never mentions; neither subject is a pronoun and neither sentence compares with or leans
    on anything (``_COMPARISON``, ``back_marker``). Each tells its own subject's part of the story, so the two may
    trade places."""
    parts = [_subject_and_verb(first), _subject_and_verb(second)]
    if None in parts:
        return False
    (subject_a, verb_a), (subject_b, verb_b) = parts  # type: ignore[misc]
    if verb_a != verb_b or subject_a == subject_b:
        return False
    own_a, own_b = subject_a - subject_b, subject_b - subject_a
    words_a, words_b = _words(first), _words(second)
    return bool(own_a and own_b) and not (own_a & words_b or own_b & words_a)


_SUBJECT_PRONOUNS = frozenset("he she it they we you i his her its their our your my one each every".split())


def _subject_and_verb(plain: str) -> tuple[frozenset[str], str] | None:
    """A sentence's opening subject (its lower-cased words) and the lemma of the event or state verb right after
    it, or None (no such verb after one to four words, a pronoun subject, a comparison, a back marker)."""
    verbs = [*event_verbs(plain), *_STATE_VERB.finditer(plain)]
    if not verbs or _COMPARISON.search(plain) or back_marker(plain) is not None:
        return None
    verb = min(verbs, key=lambda m: m.start())
    head = _WORD.findall(plain[: verb.start()])
    if not 1 <= len(head) <= 4 or re.search(r"[,;:]", plain[: verb.start()]):
        return None
    words = frozenset(w.lower() for w in head) - {"the", "a", "an"}
    if not words or words & _SUBJECT_PRONOUNS:
        return None
    said = verb.group(0).lower()
    return words, getAllLemmas(said, upos="VERB").get("VERB", getAllLemmas(said).get("AUX", (said,)))[0]


# "Xavier was 4 feet tall ..." / "Cole was 50 inches tall ...": a state said of two subjects in parallel (not an
# auxiliary: "is making", "are needed")
_STATE_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had)\b(?!\s+[a-z]+(?:ing|ed)\b)", re.I)


def _words(plain: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(plain)}


def _introduced(sentence: str, tex: bool) -> frozenset[str]:
    """The content words a sentence names outside a definite phrase ("10 dress pants", not "the dress pants"; "the
    price of small animals" names small animals): what it may introduce for a later "the X" to lean on."""
    plain = re.sub(
        r"\b(?:the|each|every)\s+(?:number|amount|total|cost|price|sum) of\b", " ", _prose(sentence, tex), flags=re.I
    )
    return content_words(_DEFINITE_PHRASE.sub(" ", plain), False)


# a definite phrase of at most two words that never swallows the next one's article ("$750 each and the dress
# pants": "each and", then "the dress pants")
_DEFINITE_PHRASE = re.compile(
    r"\b(?:the|each|every)\s+(?:(?:first|second|third|fourth|fifth|last|next)\s+)?(?:\d+\s+)?[A-Za-z]+"
    r"(?:\s+(?!(?:the|each|every|a|an|and|or|of)\b)[A-Za-z]+)?",
    re.I,
)


def named_genders(names: Sequence[dict[str, str]]) -> dict[str, set[str]]:
    """``male`` / ``female`` -> the names of that gender over the sentences' ``person_names``."""
    genders: dict[str, set[str]] = {"male": set(), "female": set()}
    for found in names:
        for name, g in found.items():
            if g in genders:
                genders[g].add(name)
    return genders


def query_points_back(query: str, tex: bool) -> bool:
    """Whether the query refers to the last event ("after that", "then", "this"): the last setup sentence stays
    last."""
    return bool(_QUERY_BACK.search(outside_maths(query, tex)))


_COMPARISON = re.compile(r"\b(?:than|times|twice|half|as\s+\w+(?:\s+\w+)?\s+as)\b", re.I)
# an opening place phrase: "At a restaurant, ...", "In the park, ..."
_PLACE_OPENING = re.compile(r"^\W*(?:at|in|on|inside)\s+(?:a|an|the)\s+[^,.]{1,40},", re.I)


def introduces_cast(first: str, tex: bool) -> bool:
    """Whether a first sentence that states numbers still sets the scene and stays first: it names two or more
    people ("Tabitha agreed to pay John and Jill $10 an hour", "Blake and Kelly are having a contest ...") and
    compares none of them ("Lucy has three times as many as Adam" is a fact; a pair of capitalised words as
    its subject counts as two people even when the lists miss one: "Gabriel and Luri each own ..."), opens on
    a count of people ("Four students scored a total of 251 points": the cast the other sentences name one by
    one), or opens on a place ("At a restaurant, ...")."""
    plain = outside_maths(first, tex)
    people = [n for n, kind in person_names(first, tex).items() if kind != "surname"]
    pair = _SUBJECT_PAIR.match(plain)
    cast = len(people) >= 2 or bool(pair and set(pair.groups()) & set(people))
    counted = _COUNTED_CAST.match(plain)
    return (
        (cast and not _COMPARISON.search(plain))
        or bool(counted and any(w and person_noun(w.lower()) for w in counted.groups()))
        or bool(_PLACE_OPENING.match(plain))
    )


# an opening subject of two capitalised words ("Gabriel and Luri each own ...")
_SUBJECT_PAIR = re.compile(r"\W*([A-Z][a-z]+) and ([A-Z][a-z]+)\b")
# an opening count of people ("Four students", "3 customers", "Two sports coaches", "A group of 5 friends")
_COUNTED_CAST = re.compile(
    r"^\W*(?:a (?:group|team|family|class|couple|pair) of )?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|several|a few)\s+(?:([a-z]+)\s+)?([a-z]+)\b",
    re.I,
)


def opening_scene(setup: Sequence[str], tex: bool) -> bool:
    """Whether the first sentence sets the scene and stays first: it states no number ("Janet runs a bakery.";
    in LaTeX: it holds no maths letter)."""
    return not maths_letters(setup[0]) if tex else not NUMBER_TOKEN.search(outside_maths(setup[0], tex))


def pronoun_antecedents(
    setup: Sequence[str],
    j: int,
    tex: bool,
    people: dict[str, str],
    names: Sequence[dict[str, str]],
    genders: dict[str, set[str]],
) -> set[int]:
    """The earlier sentences a bare he / she of sentence ``j`` may mean: the nearest one naming a person of that
    gender when that person is the only one, every earlier sentence when none or several are; none when
    ``people`` names the only person of that gender (the pronoun is repaired if it moves first)."""
    pron = bare_pronoun(setup[j], tex)
    if not pron:
        return set()
    g = "male" if MALE_PRONOUN.fullmatch(pron.group(0)) else "female"
    if g in people:
        return set()
    earlier = [i for i in range(j) if any(v in (g, "unisex") for v in names[i].values())]
    return {earlier[-1]} if earlier and len(genders[g]) <= 1 else set(range(j))


def _pronoun_people(plain: str, genders: dict[str, set[str]]) -> set[str]:
    """The people a sentence's he / she pronouns may mean: the named people of that gender (``*`` when none)."""
    out: set[str] = set()
    for pattern, g in ((MALE_PRONOUN, "male"), (FEMALE_PRONOUN, "female")):
        if pattern.search(plain):
            out |= genders[g] or {"*"}
    return out


def _things(content: frozenset[str], names: dict[str, str], plain: str) -> frozenset[str]:
    """The words through which two sentences speak of the same thing: content words without names, event verbs
    and words that are only verbs ("Ann buys 3 pens. Bob buys 2 cups.", "Each box weighs 8 ounces. Each pen
    weighs 1 ounce." share no thing; units stay: "She scooped up 2 pounds" is taffy)."""
    verbs = {m.group(0) for m in event_verbs(plain)} | {w for w in _WORD.findall(plain) if _only_verb(w)}
    return content - {stem(n) for n in names} - {stem(v.lower()) for v in verbs}


@lru_cache(maxsize=8192)
def _only_verb(word: str) -> bool:
    """Whether ``word`` is a verb form and nothing else in lemminflect's tables ("weighs", "knows"; not "costs")."""
    kinds = set(getAllLemmas(word.lower()))
    return bool(kinds) and kinds <= {"VERB", "AUX"}


def back_marker(plain: str) -> str | None:
    """The words through which a sentence leans on everything before it, or None: a back marker, an increment or
    a comparison without its standard, an opening "then" ("She then sells ..."; a "then" inside the sentence joins
    its own clauses), a part of a whole ("2 pieces of the fruit"), "additional X" / "extra X" when no X precedes
    it in the sentence, an opening parenthesis, an ellipsis (not an age: "Deanna is 26.") or a number-led
    sentence, a person who "is open" (their business: "He is open every day" leans on "Josh runs a car shop")."""
    for pattern in (_BACK_MARKER, _INCREMENT, _ELLIPTICAL_COMPARISON, _OPENING_THEN, _PARTITIVE, _OPEN_FOR_BUSINESS):
        if found := pattern.search(plain):
            return found.group(0).strip()
    for added in _ADDED.finditer(plain):
        if not re.search(rf"\b{re.escape(added.group(2))}", plain[: added.start()], re.I):
            return added.group(0)
    if plain.lstrip().startswith("("):
        return "("
    found = _ellipsis(plain) or _QUANTIFIER_LED.search(plain)
    return found.group(0).strip() if found else None


# a part of a whole named before: "ate 2 pieces of the fruit", "three slices of her pizza"
_PARTITIVE = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|some)\s+(?:[a-z]+\s+)?of\s+"
    r"(?:the|his|her|their)\s+[a-z]",
    re.I,
)
# "He is open every day", "she was closed on Monday": the person stands for a business named before
_OPEN_FOR_BUSINESS = re.compile(r"\b(?:he|she|they|we)\s+(?:is|are|was|were)\s+(?:open|closed)\b", re.I)
_OPENING_THEN = re.compile(r"^\W*(?:[\w'’]+\s+){0,2}then\b", re.I)
_ADDED = re.compile(r"\b(additional|extra)\s+(?:\d+\s+)?([a-z]{3,})", re.I)
_SUBJECT_PRONOUN = re.compile(r"^\W*(it|its|they|their)\b", re.I)


def _opener_pronoun(plains: Sequence[str], j: int) -> bool:
    """Whether the it / they of sentence ``j`` can only mean the opening sentence's subject ("A bakery sells 30
    cakes. Each cake costs $5. It also sells 20 pies."): its one plural pronoun is its subject, and every
    sentence between opens on the same pronoun or is about "each" / "every" thing (so names no other antecedent)."""
    pron = _SUBJECT_PRONOUN.match(plains[j])
    if not pron or len(PLURAL_PRONOUN.findall(plains[j])) != 1:
        return False
    family = {"it", "its"} if pron.group(1).lower() in ("it", "its") else {"they", "their"}
    for plain in plains[1:j]:
        between = _SUBJECT_PRONOUN.match(plain)
        if not (between and between.group(1).lower() in family) and not re.match(r"\W*(each|every)\b", plain, re.I):
            return False
    return True


# a sentence led by a bare number or quantifier ("One says 80.", "3 were orange", "The first needs ...", "A 2 x 4
# costs $4": the noun is left out)
_QUANTIFIER_LED = re.compile(
    r"^\W*(?:(?:(?:a|an|the|each)\s+)?\d+(?:\s*(?:x|by)\s*\d+)?|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|some|most|half|all|many|several|none|few|each one|"
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
    r" (?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few) )?"
    r"(?:day|week|month|year|hour|minute|time|round|game|season)s?)\b",
    re.I,
)
# a number with no noun after it: "eats three for breakfast", "with four", "gives 2 to Ann", "68 of the points"
# (an increment "2 more" and a comparison "3 times as many" have rules of their own)
_ELLIPSIS = re.compile(
    r"(?<![$\d.,])\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|several|some|many)"
    r"\b(?!\d|[.,]\d|\s*percent)%?\s*(?:[,.;!]|$|\b(?:for|with|to|at|in|on|and|or|from|into|each|apiece|back|away|"
    r"left|too|of (?:the|them|those|these|his|her|their|its|it|which))\b)",
    re.I,
)
# a person's age, the noun left out by custom ("Deanna is 26."): no ellipsis of an earlier noun
_AGE = re.compile(r"^\W*([A-Z][a-z]+)\s+(?:is|was)\s+(?:now\s+)?\d+\s*\.?\s*$")


def _ellipsis(plain: str) -> re.Match[str] | None:
    """A number with no noun after it (``_ELLIPSIS``), unless the sentence states a named person's age, whose
    noun is left out by custom ("Deanna is 26.")."""
    age = _AGE.match(plain)
    return None if age and person_names(age.group(1)) else _ELLIPSIS.search(plain)


# "that" as a relative pronoun ("a bike that costs $300") points at nothing before the query
_QUERY_BACK = re.compile(
    r"\b(after that|then|this|that(?!\s+(?:is|are|was|were|will|would|can|could|costs?|holds?|contains?|weighs?|"
    r"sells?|takes?|needs?|makes?|has|have|had)\b)|these|those|afterwards?|at that|by then|at this)\b",
    re.I,
)
_OBJECT_VERBS = frozenset(
    "told tell tells gave give gives asked ask asks paid pay pays sent send sends help helps helped let lets make "
    "makes made show shows bought buy buys offer offers owe owes owed charge charges lend lends lent taught teach "
    "teaches call calls took take takes".split()
)
_POSSESSIVE_HER_NEXT = frozenset(
    "to for with at in on and or from into by about a an the some that this these those . , ; ! ? up down out "
    "off over back away".split()
)


def _name_first(sentences: list[str], name: str, gender: str, tex: bool) -> list[str] | None:
    """Make the first mention of ``name`` a name: the first he / him / his (she / her) of the first sentence
    mentioning them becomes ``name`` (``name's`` for a possessive). None when that is not sure."""
    pattern = MALE_PRONOUN if gender == "male" else FEMALE_PRONOUN
    out = list(sentences)
    for k, s in enumerate(out):
        plain = outside_maths(s, tex)
        at_name = re.search(rf"\b{re.escape(name)}\b", plain)
        pron = pattern.search(plain)
        if not pron and not at_name:
            continue
        if at_name and (not pron or at_name.start() < pron.start()):
            return out
        assert pron is not None  # a name without a pronoun before it returned above
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


def _pronoun_later(sentences: list[str], name: str, gender: str, tex: bool) -> list[str]:
    """Once ``_name_first`` has named ``name`` where a pronoun stood, the next sentence that names them and opens
    on the name as its subject ("Ken walks ...", "Ken's dog ...") calls them he / she ("He walks ...", "His dog
    ..."), as the base did the other way round: the person is named once, then spoken of. A name that is not the
    opening subject, comes twice in that sentence, or heads a pair ("Ken and Ann") stays a name."""
    pronoun, possessive = ("He", "His") if gender == "male" else ("She", "Her")
    mentioning = [k for k, s in enumerate(sentences) if re.search(rf"\b{re.escape(name)}\b", outside_maths(s, tex))]
    if len(mentioning) < 2:
        return sentences
    k = mentioning[1]
    plain = outside_maths(sentences[k], tex)
    opening = re.match(rf"(\W*){re.escape(name)}(['’]s)?(?=\s+(?!(?:and|or)\b)[a-z])", plain)
    if not opening or len(re.findall(rf"\b{re.escape(name)}\b", plain)) > 1:
        return sentences
    out = list(sentences)
    out[k] = (
        sentences[k][: opening.end(1)] + (possessive if opening.group(2) else pronoun) + sentences[k][opening.end() :]
    )
    return out


_ADJACENT = re.compile(
    r"\b(that (?:many|much|amount|number|long|time|price|rate|distance|speed|sum|figure|cost|size|weight|age|way)|"
    r"this (?:many|much|amount|number)|than that|this|these|those|such|it|its|they|them|their|the rest|in kind|"
    r"likewise|similarly|of (?:that|this|those|these|it|them)|that(?=\s*[.,;!?]|$)(?:did|do|does|doing|done|like|after|before|for|with|all|is|was) that|"
    r"the remaining|the remainder|the others?)\b",
    re.I,
)


# "That feature costs an extra $500.": a demonstrative opening points at the sentence just before
_POINTING_START = re.compile(r"\W*(?:that|this|these|those|such)\s+[a-z]", re.I)


def glued(setup: Sequence[str], tex: bool = False) -> set[int]:
    """Sentences that must stay right after the sentence before them: those whose referent is most likely that
    sentence (that amount, this, it / they, a bare number or quantifier: "3 were orange", an opening
    parenthesis; "the X" after a sentence naming X, unless that sentence too says "the X" and another one
    introduces X; "Each X" right after one of the sentences introducing the X of different people: "Ali teaches
    one class. John has two classes. Each class ..."), so no other sentence may come between them."""
    out = set()
    introduced = [_introduced(s, tex) for s in setup]
    for j in range(1, len(setup)):
        plain = _prose(setup[j], tex)
        pointed = {stem(w) for w in re.findall(r"\bthe\s+([A-Za-z]{3,})", plain, re.I)}
        if (each := _EACH_OPENING.match(plain)) and _owners_differ(setup, introduced, j, stem(each.group(1)), tex):
            pointed.add(stem(each.group(1)))
        # "The class ..." right after the sentence with the classes, unless that sentence too says "the class"
        # and another sentence introduces the class
        before = {
            w for w in content_words(setup[j - 1], tex) if w in introduced[j - 1] or not any(w in i for i in introduced)
        }
        if pointed & before:
            out.add(j)
        elif (
            _ADJACENT.search(plain)
            or _POINTING_START.match(plain)
            or _QUANTIFIER_LED.search(plain)
            or _ellipsis(plain)
            or plain.lstrip().startswith("(")
        ):
            out.add(j)
    return out


def _owners_differ(setup: Sequence[str], introduced: Sequence[frozenset[str]], j: int, word: str, tex: bool) -> bool:
    """Whether the sentences other than ``j`` introducing ``word`` name different people (so "Each X" means the
    X of the sentence it follows); a sentence naming nobody ("Each bag holds 9 plums") owns no X of its own."""
    owners = {frozenset(person_names(s, tex)) for i, s in enumerate(setup) if i != j and word in introduced[i]}
    return len(owners - {frozenset()}) > 1


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


def leans_on_neighbour(sentence: str, tex: bool = False) -> bool:
    """Whether ``sentence`` leans on the sentence before it, so that nothing may come between them without taking
    over the reference: a he / she with no name before it, it / they / them, this / these / those / that,
    adverbial "there", we / our / us, "such", "the rest", "then", "the same", "the resulting", "the other", "the
    third side" / "the first one", an opening
    ordinal, partitive or "another" ("A third says 25", "One of the boxes", "Another says 20 more than the first
    one"), or a sentence led by a bare number ("3 of the albums")."""
    plain = outside_maths(sentence, tex)
    return bool(
        bare_pronoun(sentence, tex)
        or PLURAL_PRONOUN.search(plain)
        or _POINTING.search(plain)
        or _LEANS_BACK.search(plain)
        or _QUANTIFIER_LED.search(plain)
        or plain.lstrip().startswith("(")
    )


_POINTING = re.compile(
    r"\b(this|these|those|that(?!\s+(?:is|was|are|were|will|would|can|could|has|have|had)\b)|"
    r"there(?!\s+(?:is|are|was|were|will|would|has|have|had|must|should|can|could|may|might)\b))\b",
    re.I,
)
_LEANS_BACK = re.compile(
    r"\b(?:we|our|us|then|such|the rest|rest of|the remaining|the same|the resulting|the other|"
    r"the (?:first|second|third|fourth|fifth|last) (?:one|side|term|number|part))\b|"
    r"^\W*(?:a|the|one)\s+(?:half|third|quarter|fourth|fifth|sixth|tenth|second|other)\b|^\W*(?:one of|another)\b",
    re.I,
)


# "But she was only able to make 18": the "only" keeps the contrast with what came before, so the "But" is no
# connective to read away (``_prose``) but a back marker
_CONTRAST_ONLY = re.compile(r"^\W*but\b[^.;!?]*\bonly\b", re.I)
# a connective that only joins a sentence to the one before ("But he has ...", "And she ...", "Also, ..."): the
# sentence is read without it, and loses it when it leaves that sentence (``_drop_additive``)
_OPENING_CONNECTIVE = re.compile(r"^(\W*)(?:but|and|also)\b,?\s*(?=\S)", re.I)


# an expletive "it" ("It takes 10 minutes to clean each room", "It costs $3 a year to feed the tree"): it stands
# for the "to" clause after it, not for anything said before
_EXPLETIVE_IT = re.compile(
    r"^\W*it\s+(?=(?:takes|took|costs|cost|will take|will cost|would take|would cost)\b[^.;!?]*?\bto\s+[a-z])", re.I
)


def _prose(sentence: str, tex: bool) -> str:
    """A sentence's prose (``outside_maths``) as the rules read it: without an opening connective (but a "But"
    whose contrast an "only" keeps: ``_CONTRAST_ONLY``, which then leans back), nor an opening expletive "it" ("It
    takes 10 minutes to clean each room": ``_EXPLETIVE_IT``)."""
    plain = outside_maths(sentence, tex)
    opener = _OPENING_CONNECTIVE.match(plain)
    plain = plain[opener.end() :] if opener and not _CONTRAST_ONLY.match(plain) else plain
    expletive = _EXPLETIVE_IT.match(plain)
    return plain[expletive.end() :] if expletive else plain


def _detached(sentence: str, left: bool) -> str | None:
    """``sentence`` without the words that tie it to what it followed: when it ``left`` its neighbour, an opening
    But / And (the next word capitalised); always an opening "Also," and an "also" / "too" / "as well" inside.
    None when such a word cannot go cleanly (a sentence opening with "Too" or "As well")."""
    opener = _OPENING_CONNECTIVE.match(sentence)
    if opener and (left or re.match(r"\W*also\b", sentence, re.I)):
        rest = sentence[opener.end() :]
        sentence = opener.group(1) + rest[:1].upper() + rest[1:]
    if _ADDITIVE.search(sentence) and re.match(r"\W*(too|as well)\b", sentence, re.I):
        return None
    return _ADDITIVE.sub("", sentence)


def _drop_additive(setup: Sequence[str], order: list[int]) -> list[str] | None:
    """The setup in ``order``, where a sentence that no longer follows the sentence it followed loses its
    connective and additive words (``_detached``: "But he also has a job" -> "He has a job"): they join it to
    the statement just before it; one that keeps its neighbour but now comes before another sentence that
    preceded it ("Ann also runs" ahead of what Ann did first) loses its additive words, which added to that
    sentence. None when a word cannot go cleanly."""
    out: list[str] = []
    for k, i in enumerate(order):
        left = i > 0 and (k == 0 or order[k - 1] != i - 1)
        overtaken = not set(range(i)) <= set(order[:k])
        sentence = _detached(setup[i], left) if left or overtaken else setup[i]
        if sentence is None:
            return None
        out.append(sentence)
    return out


def sentence_reorder(text: str, seed: int, *, tex: bool = False, tries: int = 12) -> Twin | None:
    """§3.1 ``sentence_reorder``: permute the setup sentences; the query tail stays last, unchanged.

    Only orders compatible with the constraint graph (``back_references``) are drawn, so a sentence never moves
    before one it refers back to, and a sentence whose referent is the one just before it (``glued``) keeps
    that neighbour. A he / she sentence may move before the sentence naming the only person of that gender
    (``repairable_people``); its pronoun then becomes the name, so the person is introduced by name first
    (``changes["named"]``), and the sentence that introduced them calls them he / she when it opens on the name
    (``_pronoun_later``). ``None`` when the only admissible order is the original one.
    """
    seg = segment(text, tex)
    setup = seg.setup
    if len(setup) < 2:
        return None
    tail = list(seg.sentences[seg.query :])
    people = repairable_people(text, tex)
    deps = back_references(setup, tex, people=people, query=" ".join(tail))
    return permuted_twin(seg, deps, glued(setup, tex), people, seed, tex=tex, tries=tries)


def permuted_twin(
    seg: Segments,
    deps: dict[int, set[int]],
    glue: set[int],
    people: dict[str, str],
    seed: int,
    *,
    tex: bool,
    tries: int,
    note: dict[str, Any] | None = None,
) -> Twin | None:
    """A ``sentence_reorder`` twin whose setup order is drawn (seeded) among the orders that ``deps`` and
    ``glue`` admit, other than the original: "also" dropped where it lost its sentence (``_drop_additive``), the
    first mention of each of ``people`` made a name (``_name_first``) and their next opening name a pronoun
    (``_pronoun_later``); ``note`` is added to the changes. None
    when ``tries`` draws find no such order."""
    setup = seg.setup
    tail = list(seg.sentences[seg.query :])
    rng = random.Random(seed)
    for _ in range(tries):
        order = _block_order(deps, glue, rng)
        if order == list(range(len(setup))):
            continue
        new = _drop_additive(setup, order)
        if new is None:
            continue
        named = []
        for gender, name in sorted(people.items()):
            repaired = _name_first(new, name, gender, tex)
            if repaired is None:
                break
            if repaired != new:
                named.append(name)
                repaired = _pronoun_later(repaired, name, gender, tex)
            new = repaired
        else:
            changes: dict[str, Any] = {
                "order": order,
                "back_references": {str(j): sorted(d) for j, d in deps.items() if d},
            }
            if named:
                changes["named"] = named
            return Twin(seg.join(new + tail), "sentence_reorder", 0, seed, changes | (note or {}))
    return None
