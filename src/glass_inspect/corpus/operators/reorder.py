"""§3.1 ``sentence_reorder``: setup sentences permuted within a constraint graph; the query stays last."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from glass_inspect.corpus.operators.names import (
    MALE_PRONOUN,
    PLURAL_PRONOUN,
    PRONOUN,
    bare_pronoun,
    person_names,
    sole_person,
)
from glass_inspect.corpus.operators.text import (
    NUMBER_TOKEN,
    Twin,
    content_words,
    maths_letters,
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
_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\b", re.I)


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
    content = [content_words(s, tex) for s in setup]
    names = [person_names(s, tex) for s in setup]
    nouns = [c - {stem(n) for n in found} for c, found in zip(content, names)]  # content words, names out
    genders: dict[str, set[str]] = {"male": set(), "female": set()}
    for found in names:
        for name, g in found.items():
            if g in genders:
                genders[g].add(name)
    events = [bool(_EVENT.search(p)) and not _DEFINITION.search(p) for p in plains]
    if_barriers: set[int] = set()
    defs = [bool(_DEFINITION.search(p)) for p in plains]
    if not NUMBER_TOKEN.search(plains[0]) and not (tex and maths_letters(setup[0])):
        for j in range(1, n):
            deps[j].add(0)
    for j in range(1, n):
        plain = plains[j]
        shared = {i for i in range(j) if content[i] & content[j]}
        if _BACK_MARKER.search(plain) or PLURAL_PRONOUN.search(plain) or plain.lstrip().startswith("("):
            deps[j].update(range(j))
        pron = bare_pronoun(setup[j], tex)
        if _ELLIPSIS.search(plain) or _QUANTIFIER_LED.search(plain):
            deps[j].update(range(j))
        if _TEMPORAL.search(plain):
            deps[j].update(i for i in range(j) if _TEMPORAL.search(plains[i]))
        if pron and person is None:
            g = "male" if MALE_PRONOUN.fullmatch(pron.group(0)) else "female"
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
            stem(w.lower())
            for m in re.finditer(r"\b(?:the|each|every)\s+(\w+)(?:\s+(\w+))?", plain, re.I)
            for w in m.groups()
            if w and len(w) > 2
        } - {"same", "rest", "other"}
        deps[j].update(i for i in range(j) if definite & nouns[i])
        opening = re.match(r"\W*the\s+(?:\w+\s+)?([A-Za-z]{3,})", plain, re.I)
        if opening and not any(stem(opening.group(1)) in nouns[i] for i in range(j)):
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


def _name_first(sentences: list[str], name: str, tex: bool) -> list[str] | None:
    """Make the first mention of the sole person a name: the first he / she / him / his / her of the first
    sentence mentioning them becomes ``name`` (``name's`` for a possessive). None when that is not sure."""
    out = list(sentences)
    for k, s in enumerate(out):
        plain = outside_maths(s, tex)
        at_name = re.search(rf"\b{re.escape(name)}\b", plain)
        pron = PRONOUN.search(plain)
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
        pointed = {stem(w) for w in re.findall(r"\b(?:the|each|every)\s+([A-Za-z]{3,})", plain, re.I)}
        if pointed & content_words(setup[j - 1], tex):  # "Each class ..." right after the sentence with the classes
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
