"""§3.1 / §3.3 adjudicated ``sentence_reorder``: the method's own route to reorder coverage.

The seed builds its reorder twins deterministically and then lets the LLM No-Op adjudicator (§3.3) drop the
pairs that change the answer. ``adjudicated_reorder`` does the same: it draws setup orders among all those that a
*certain* graph admits (much looser than ``reorder.back_references``, whose rules err towards an edge), and marks
every twin ``needs_adjudication``. A corpus holding such twins is evaluated only after ``noop_audit`` and
``glass-build audit`` have filtered it (``task.py`` refuses it before).

What is forbidden for certain (never left to the adjudicator):

* the question tail stays last, and the last setup sentence stays last when the query points back to it ("after
  that", "then", "this");
* a first sentence that sets the scene (no number; in LaTeX no maths letter) stays first;
* a glued sentence (``reorder.glued``: "this", "it", "the rest", "3 were orange", an opening parenthesis) and a
  sentence opening on a connective (But, So, Then, However, And, Also, ...) keep their predecessor right before
  them;
* a bare he / she stays after the person it may mean (``reorder.pronoun_antecedents``), unless that person is
  the only one of that gender: then the pronoun becomes the name (``reorder._name_first``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from glass_inspect.corpus.operators.names import person_names
from glass_inspect.corpus.operators.reorder import (
    glued,
    named_genders,
    opening_scene,
    permuted_twin,
    pronoun_antecedents,
    query_points_back,
    repairable_people,
)
from glass_inspect.corpus.operators.text import Twin, outside_maths, segment

NEEDS_ADJUDICATION = "needs_adjudication"  # the audit flag of a twin the No-Op adjudicator must see first

_CONNECTIVE = re.compile(
    r"^\W*(?:but|so|then|however|thus|therefore|hence|yet|and|or|also|plus|meanwhile|afterwards?|later|next|"
    r"finally|instead|otherwise|besides|moreover|furthermore|still)\b",
    re.I,
)


def certain_references(
    setup: Sequence[str], tex: bool = False, *, people: dict[str, str] | None = None, query: str = ""
) -> dict[int, set[int]]:
    """The orderings forbidden for certain (module docstring): for each sentence, the earlier sentences it must
    stay after."""
    n = len(setup)
    deps: dict[int, set[int]] = {i: set() for i in range(n)}
    if n < 2:
        return deps
    names = [person_names(s, tex) for s in setup]
    genders = named_genders(names)
    scene = opening_scene(setup, tex)
    for j in range(1, n):
        if scene:
            deps[j].add(0)
        deps[j] |= pronoun_antecedents(setup, j, tex, people or {}, names, genders)
    if query_points_back(query, tex):
        deps[n - 1].update(range(n - 1))
    return deps


def certain_glue(setup: Sequence[str], tex: bool = False) -> set[int]:
    """Sentences that keep their predecessor right before them: ``reorder.glued`` and a connective opening."""
    return glued(setup, tex) | {j for j in range(1, len(setup)) if _CONNECTIVE.match(outside_maths(setup[j], tex))}


def adjudicated_reorder(text: str, seed: int, *, tex: bool = False, tries: int = 12) -> Twin | None:
    """A ``sentence_reorder`` twin drawn (seeded) among the setup orders the certain graph admits, other than the
    original, marked ``changes["needs_adjudication"]``: its answer is kept only once the No-Op adjudicator says
    so. ``None`` when the setup has fewer than two sentences or no other order is admitted."""
    seg = segment(text, tex)
    if len(seg.setup) < 2:
        return None
    people = repairable_people(text, tex)
    query = " ".join(seg.sentences[seg.query :])
    deps = certain_references(seg.setup, tex, people=people, query=query)
    glue = certain_glue(seg.setup, tex)
    return permuted_twin(seg, deps, glue, people, seed, tex=tex, tries=tries, note={NEEDS_ADJUDICATION: True})
