"""§3.1 distractor injection (``math_irrelevant_context``): setup sentences of other problems spliced in before
the query, and the checks that keep them setup and nothing else."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from glass_inspect.corpus.operators.names import (
    CALENDAR_WORDS,
    FEMALE_PRONOUN,
    MALE_PRONOUN,
    PLAIN_OPENERS,
    PRONOUN,
    bare_pronoun,
    person_nouns_in,
)
from glass_inspect.corpus.operators.reorder import leans_on_neighbour
from glass_inspect.corpus.operators.text import (
    MATHS_SPAN,
    MONEY,
    NUMBER_TOKEN,
    STOP_WORDS,
    Segments,
    Twin,
    content_words,
    outside_maths,
    segment,
    stem,
)

# a donor sentence must be setup and nothing else: no question, instruction, figure, "the answer", blank to fill
_NOT_SETUP = re.compile(
    r"\?|\[asy\]|\b(find|compute|evaluate|determine|simplify|express|calculate|solve|rationalize|enter|prove|"
    r"show that|factor|expand|round|convert|answer|answers|figure|diagram|shown|pictured|picture|graph below|"
    r"shaded|drawn|labeled|labelled|sketch|"
    r"below|above|following|as follows|table|chart|exercise|problem|question|assume|suppose|let|what|how|which|"
    r"who|why|where|when|whose|whom)\b",
    re.I,
)
_SUBORDINATE_START = re.compile(
    r"^\W*(if|when|whenever|unless|assuming|because|since|although|though|while|once|after|before|until)\b", re.I
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
    if _SUBORDINATE_START.match(plain):  # "If you have an empty basin ...": a condition of its own problem
        return False
    if tex:
        spans = MATHS_SPAN.findall(sentence)
        if len(spans) > 1 or any(len(s) > 24 or s.startswith(("$$", "\\[")) for s in spans) or "\\" in plain:
            return False
    return bool(NUMBER_TOKEN.search(sentence))


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
    q = insertion_point(text, tex)
    inserted = " ".join(taken)
    if q == 0:
        new_text = seg.prefix + inserted + " " + text[len(seg.prefix) :]
    else:
        before = list(seg.sentences[: q - 1]) + [seg.sentences[q - 1] + seg.seps[q - 1] + inserted]
        new_text = seg.join(before + list(seg.sentences[q:]))
    changes = {"donors": used, "inserted": taken, "position": q}
    return Twin(new_text, "irrelevant_context", size, seed, changes)


@lru_cache(maxsize=4096)
def insertion_point(text: str, tex: bool = False) -> int:
    """Index of the sentence the distractors go before (0: the distractors open the problem).

    Start: the sentence holding the query (``segment``), or an earlier one holding the text's last question or
    imperative clause ("In triangle $ABC$, ... Find $3A + 2B$. Note: ..."), so no insertion ever follows the
    question. Then moved up past every sentence that leans on the one before it (``reorder.leans_on_neighbour``:
    pronouns, pointing words, "the rest", "then", "A third", "we", "the same", a number-led ellipsis; "the
    greater number"; a purpose clause "To help", "The 10th", a count question without its noun), past a lead-in ("the following", "below", a ":") and its display, past a numbered item,
    and out of quoted speech, so an injected sentence never stands between a reference and its referent."""
    seg = segment(text, tex)
    q = min(seg.query, _last_query_clause(seg.sentences, tex))
    while q > 0 and _guarded(seg, q, tex):
        q -= 1
    return q


def _guarded(seg: Segments, q: int, tex: bool) -> bool:
    """Whether no sentence may be inserted right before sentence ``q`` (see ``insertion_point``)."""
    here, before = (outside_maths(s, tex) for s in (seg.sentences[q], seg.sentences[q - 1]))
    return bool(
        leans_on_neighbour(seg.sentences[q], tex)
        or _NUMBER_REFERENCE.search(here)
        or _OPENS_LEANING.match(here)
        or before.rstrip().endswith(":")
        or _LEAD_IN.search(before)
        or _DISPLAY_START.match(seg.sentences[q])
        or _LIST_ITEM.match(here)
        or _open_quote(seg.prefix + "".join(s + sep for s, sep in zip(seg.sentences[:q], seg.seps, strict=False)))
    )


def _last_query_clause(sentences: Sequence[str], tex: bool) -> int:
    """The last sentence holding a question mark or an imperative clause (a capitalised task verb anywhere, or
    one after a comma: "If $x = 2$, solve for $x$."), not counting trailing instructions about the answer's form
    ("Express your answer ...", "Enter ...", "Note: ..."), which belong to the question before them; the last
    sentence when none does."""
    asks = [i for i, s in enumerate(sentences) if _asks(outside_maths(s, tex))]
    tasks = [i for i in asks if not _ANSWER_FORM.match(outside_maths(sentences[i], tex))]
    return (tasks or asks or [len(sentences) - 1])[-1]


def _asks(plain: str) -> bool:
    return "?" in plain or bool(_IMPERATIVE_CLAUSE.search(plain))


_ANSWER_FORM = re.compile(r"\W*(?:express|enter|give|write|round|note|your answer|answer)\b", re.I)


_TASK = r"find|compute|evaluate|determine|simplify|express|calculate|solve|enter|give|write|prove|show|list"
_IMPERATIVE_CLAUSE = re.compile(rf"(?:^|[,;:]\s+|\b[Tt]hen\s+)(?i:{_TASK})\b|\b(?:{_TASK.title()})\b")
# a lead-in that announces a display: "the following list", "the table below", "as shown"
_LEAD_IN = re.compile(
    r"\b(?:following|as follows|(?:shown|listed|given|graph|graphed|table|list|chart|figure|diagram|grid)\s+below|below:)",
    re.I,
)
_DISPLAY_START = re.compile(r"\s*(?:\$\$|\\\[|\\begin|\[asy\]|\|)")
# a numbered or lettered item: "2. Is ...", "(b) ..."
_LIST_ITEM = re.compile(r"\s*(?:\(?\d{1,3}[.)]|\([a-z]\))\s")


def _open_quote(before: str) -> bool:
    """Whether ``before`` ends inside quoted speech (an unclosed “ or "; a " right after a digit is inches)."""
    straight = len(re.findall(r'(?<![\d])"', before))
    return straight % 2 == 1 or before.count("“") > before.count("”")


# openings that lean on the sentence before (issue 31 audit, seed 33): a purpose clause ("To help, Mamou has
# volunteered"), a numbered ordinal ("The 10th cheerleader"), a count question without its noun ("How many did
# each person get?")
_OPENS_LEANING = re.compile(
    r"\W*(?:to\s+[a-z]+\b|the\s+\d+(?:st|nd|rd|th)\b|how\s+many\s+(?:did|do|does|is|are|was|were|will|would|can|could|"
    r"should|has|have)\b)",
    re.I,
)
# "the greater number", "neither number", "the result": a question about numbers the setup just gave (a distractor
# full of numbers in between could answer to it)
_NUMBER_REFERENCE = re.compile(
    r"\b(?:(?:the|these|both|either|neither)\s+(?:(?:two|three|greater|smaller|larger|largest|smallest|first|second|"
    r"other)\s+)?numbers?\b(?!\s+of\b)|the (?:result|sum|product|quotient|remainder)\b(?!\s+of\b))",
    re.I,
)


def after_insertion(text: str, tex: bool = False) -> tuple[str, ...]:
    """The sentences a distractor will stand before (from ``insertion_point`` on)."""
    return segment(text, tex).sentences[insertion_point(text, tex) :]


def capture_risk(text: str, tex: bool = False) -> set[str]:
    """Genders (``male`` / ``female``) of the he / she pronouns after the insertion point that no name precedes in
    their own sentence: a distractor naming a person of such a gender could capture the pronoun."""
    risk: set[str] = set()
    for s in after_insertion(text, tex):
        if bare_pronoun(s, tex, MALE_PRONOUN):
            risk.add("male")
        if bare_pronoun(s, tex, FEMALE_PRONOUN):
            risk.add("female")
    return risk


def mentions_gender(sentence: str, genders: set[str] | frozenset[str], tex: bool = False) -> bool:
    """Whether ``sentence`` could offer an antecedent to a bare he / she of one of ``genders``: any he / she
    pronoun, any capitalised word other than a plain sentence opener (a name the lists may miss), or a person
    noun (a trader, the farmer, her brother). Always False when ``genders`` is empty."""
    return bool(genders) and _personal(sentence, tex)


@lru_cache(maxsize=65536)
def _personal(sentence: str, tex: bool) -> bool:
    plain = outside_maths(sentence, tex)
    if PRONOUN.search(plain) or person_nouns_in(sentence, tex):
        return True
    words = re.findall(r"\b[A-Z][A-Za-z]+\b", plain)
    return any(w not in PLAIN_OPENERS and w not in CALENDAR_WORDS for w in words)


_DETERMINED = re.compile(r"\b(?:the|a|an|each|every|his|her|their|this|that|these|those|per|its)\s+([a-z]{3,})\b")


def query_nouns(text: str, tex: bool = False) -> frozenset[str]:
    """Nouns the sentences after the insertion point point at with a determiner ("the farmer", "each tray"),
    stemmed: a distractor mentioning one could redirect the question."""
    tail = outside_maths(" ".join(after_insertion(text, tex)), tex).lower()
    return frozenset(stem(w) for w in _DETERMINED.findall(tail) if w not in STOP_WORDS)


def mentions_any(sentence: str, nouns: frozenset[str], tex: bool = False) -> bool:
    return bool(nouns) and not nouns.isdisjoint(_stems(sentence, tex))


@lru_cache(maxsize=65536)
def _stems(sentence: str, tex: bool) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[A-Za-z]{3,}", outside_maths(sentence, tex)))


# ------------------------------------------------------------------------------ under-specified money queries


@lru_cache(maxsize=4096)
def open_money_query(text: str, tex: bool = False) -> bool:
    """Whether the query of ``text`` asks about money without naming anything of the setup ("The price of a
    laptop is $1000. If you get a 20% discount, how much do you have to pay?"): its query tail shares no content
    word (name, noun, maths letter) with the setup and either mentions money or asks "how much" in a text whose
    setup does. Such a query does not say *what* is paid for, so a distractor stating a price or a payment could
    be read as part of it; the build refuses money sentences (``mentions_money``) for such a base. A text with
    no setup (the query carries everything) is not open."""
    seg = segment(text, tex)
    if not seg.setup:
        return False
    tail = " ".join(seg.sentences[seg.query :])
    setup = " ".join(seg.setup)
    if not content_words(tail, tex).isdisjoint(content_words(setup, tex)):
        return False
    plain_tail = outside_maths(tail, tex)
    if MONEY.search(plain_tail):
        return True
    return bool(re.search(r"\bhow much\b", plain_tail, re.I)) and bool(MONEY.search(outside_maths(setup, tex)))
