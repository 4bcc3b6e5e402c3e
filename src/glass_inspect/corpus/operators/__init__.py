"""Meaning-preserving perturbation operators (MPPOs) of GlassGSM / GlassMATH (§3.1, §7 step 1, step 8).

Each operator is a pure function of (problem text, seed, inputs): the same arguments give the same twin on any
machine. ``text`` holds what they share (seeding, ``Twin``, ``segment``); ``names`` the renaming family,
``reorder`` the reordering family (``adjudicated`` its loose variant for the No-Op adjudicator), ``distract``
distractor injection.
"""

from glass_inspect.corpus.operators.adjudicated import NEEDS_ADJUDICATION, adjudicated_reorder, certain_references
from glass_inspect.corpus.operators.distract import (
    capture_risk,
    donor_run,
    irrelevant_context,
    mentions_any,
    mentions_gender,
    open_money_query,
    query_nouns,
    setup_sentence,
)
from glass_inspect.corpus.operators.names import (
    CALENDAR_WORDS,
    TITLE_WORDS,
    entity_rename,
    name_table,
    person_names,
    person_noun,
    person_nouns_in,
    sole_person,
)
from glass_inspect.corpus.operators.reorder import back_references, glued, repairable_people, sentence_reorder
from glass_inspect.corpus.operators.text import (
    Twin,
    derive_seed,
    identity,
    maths_letters,
    mentions_money,
    outside_maths,
    prose_letters,
    segment,
)

__all__ = [
    "CALENDAR_WORDS",
    "NEEDS_ADJUDICATION",
    "TITLE_WORDS",
    "Twin",
    "adjudicated_reorder",
    "back_references",
    "capture_risk",
    "certain_references",
    "derive_seed",
    "donor_run",
    "entity_rename",
    "glued",
    "identity",
    "irrelevant_context",
    "maths_letters",
    "mentions_any",
    "mentions_gender",
    "mentions_money",
    "open_money_query",
    "name_table",
    "outside_maths",
    "person_names",
    "person_noun",
    "person_nouns_in",
    "prose_letters",
    "query_nouns",
    "repairable_people",
    "segment",
    "sentence_reorder",
    "setup_sentence",
    "sole_person",
]
