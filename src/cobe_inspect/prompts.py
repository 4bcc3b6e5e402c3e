"""CoBe prompt texts: the four query tiers of App. E and the three judge checks of §3.1 / App. D.2.

All wording here is our own. It follows the paper's protocol (what each template cues, which pieces of a
record it is built from, what each judge check asks and how it must answer) but not its sentences. A user
who holds the paper's exact texts passes them as prompt-set files: ``tier_prompts`` for the respondent (see
``load_tier_templates``) and ``judge_prompts`` for the judge (see ``load_judge_templates``). Every prompt set has
a name and a sha256 over its texts (``PromptSet``), recorded in the log.

Tiers (App. E):

- Tier 1, phrasings A-C (and Q4, ... where a record has more queries): the record's own ``Query`` strings.
- Tier 2, phrasings D-G: more explicit conversational cues (E.1). D needs the intervention clause (the record's
  ``Intervention``, else the clause its own query states); E-G need its ``Original event`` and ``Intervened event``.
- Tier 3, phrasing H1: explicit "keep prior facts, update consequences" instruction (E.2).
- Tier 4, phrasing H2: a step-by-step structural-causal-model recipe (E.3).

H1 and H2 end with a rewrite request (``$request``): "... the counterfactual scenario in which <Intervened
event>." when the record has that field, else "... as it would read had <intervention>." from the record's
``Intervention`` or the clause its own query states (as D), so both run on published records without sending a
Tier-1 phrasing. The judge's ``$query`` is the rewrite request alone (``rewrite_request``), never the story.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.jsonl import DOCUMENT_LIMIT, parse_json, parse_yaml, read_text


@dataclass(frozen=True)
class PromptSet:
    """A named set of prompt templates; ``sha256`` is over the texts (key-sorted JSON), so a log names them."""

    name: str
    templates: dict[str, str]

    @property
    def sha256(self) -> str:
        canonical = json.dumps(self.templates, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "sha256": self.sha256}


def _placeholders(text: str) -> set[str]:
    return {m.group("named") or m.group("braced") for m in string.Template.pattern.finditer(text)} - {None}


def _read_mapping(path: str | Path, what: str, keys: tuple[str, ...]) -> tuple[Path, dict]:
    """A JSON or YAML file holding a non-empty mapping with keys among ``keys`` (one sentence on any problem)."""
    p = require_file(path, what)
    where = f"{what} '{p}'"
    text = read_text(p, where, DOCUMENT_LIMIT)
    data = parse_yaml(text, where) if p.suffix.lower() in (".yaml", ".yml") else parse_json(text, where)
    if not isinstance(data, dict) or not data:
        raise SuiteInputError(f"{what} '{p}' must hold a mapping with keys among {', '.join(keys)}.")
    unknown = sorted(set(map(str, data)) - set(keys))
    if unknown:
        raise SuiteInputError(f"{what} '{p}': unknown key(s) {unknown}; use {', '.join(keys)}.")
    return p, data


SHOWN = {"response_text": "the rewrite"}


def _check_template(what: str, path: Path, key: str, text: object, allowed: frozenset[str], required: set[str]) -> str:
    if not isinstance(text, str) or not text.strip():
        raise SuiteInputError(f"{what} '{path}': entry '{key}' must be a non-empty string.")
    names = _placeholders(text)
    unknown = names - allowed
    if unknown:
        raise SuiteInputError(
            f"{what} '{path}': entry '{key}' uses unknown placeholder(s) "
            f"{', '.join('$' + n for n in sorted(unknown))}; allowed: "
            f"{', '.join('$' + n for n in sorted(allowed))}."
        )
    absent = sorted(required - names)
    if absent:
        shown = ", ".join(f"{SHOWN.get(n, 'the ' + n)} (${n})" for n in absent)
        raise SuiteInputError(f"{what} '{path}': entry '{key}' never shows {shown}.")
    return text


# --- query tiers (App. E) -------------------------------------------------------------------------------------

TIER_PHRASINGS: dict[int, tuple[str, ...]] = {1: ("A", "B", "C"), 2: ("D", "E", "F", "G"), 3: ("H1",), 4: ("H2",)}
TIER_OF: dict[str, int] = {p: tier for tier, ps in TIER_PHRASINGS.items() for p in ps}

# Placeholders of the respondent templates: $story; $query (Tier 1: the slot's own query; elsewhere the record's
# first query); $intervention (the clause after "had"); $original / $intervened (the record's Original / Intervened
# event); $request (H1/H2's rewrite request, built from Intervened event or else the intervention clause).
TIER_PLACEHOLDERS = frozenset({"story", "query", "intervention", "original", "intervened", "request"})
# Record fields a placeholder is filled from (``$intervention`` falls back to the clause a query states).
PLACEHOLDER_FIELDS: dict[str, str] = {
    "intervention": "Intervention",
    "original": "Original event",
    "intervened": "Intervened event",
}
# Keys of a tier prompt file: "tier1" wraps Tier 1's record queries; the others are the App. E phrasings.
TIER_TEMPLATE_KEYS = ("tier1", "D", "E", "F", "G", "H1", "H2")

# Tier 4 asks for the final story after this marker, so the judge sees the story and not the worked steps.
FINAL_STORY_MARKER = "Rewritten story:"

# H1/H2's rewrite request when the record names its intervened event; else from its intervention clause (the
# ``Intervention`` field or the clause its own query states after "had", so it reads "... had <clause>.").
REQUEST_FROM_EVENT = "Rewrite the original story for the counterfactual scenario in which {intervened}."
REQUEST_FROM_CLAUSE = "Rewrite the original story as it would read had {intervention}."

TIER1_TEMPLATE = "$story\n\n$query"

TIER2_TEMPLATES: dict[str, str] = {
    "D": "$story\n\nRewrite the text above to show what would have happened in this particular scenario had "
    "$intervention.",
    "E": (
        "$story\n\nRewrite the text above so that it takes in an imagined outside intervention in this scenario: "
        "instead of $original, $intervened."
    ),
    "F": (
        "$story\n\nRewrite the story above as it would read if we could go back in time and make it so that, "
        "instead of $original, $intervened."
    ),
    "G": (
        "$story\n\nRewrite the text above according to how events would have played out if, "
        "instead of $original, $intervened."
    ),
}

TIER3_TEMPLATE = """
Original story:
$story

Rewrite request: $request \
Leave earlier facts, and facts the change does not touch, exactly as they were, and update whatever follows \
from the change. Answer with the rewritten story only.
""".strip()

TIER4_TEMPLATE = f"""
Original story:
$story

Work through these steps.
1. Name the key variables of the story, reading it as a structural causal model in Pearl's sense.
2. Write down the causal graph that links these variables, adding any unobserved common causes that may be present.
3. Treat the change asked for below as an external intervention do(V=v): fix that variable, let its effects \
flow only to its causal descendants, and leave every variable that is not a descendant as it was.
4. Write out the full rewritten story under this intervention.

Rewrite request: $request \
Finish with a line that starts with "{FINAL_STORY_MARKER}" followed by the rewritten counterfactual story alone.
""".strip()

TIER_TEMPLATES: dict[str, str] = {
    "tier1": TIER1_TEMPLATE,
    **TIER2_TEMPLATES,
    "H1": TIER3_TEMPLATE,
    "H2": TIER4_TEMPLATE,
}
DEFAULT_TIER_PROMPTS = "cobe-ours-respondent"


def template_key(phrasing: str) -> str:
    """The tier-prompt key a phrasing is built from (``A``, ``B``, ``C``, ``Q4``, ... -> ``tier1``)."""
    return phrasing if phrasing in TIER_TEMPLATES and phrasing != "tier1" else "tier1"


def template_placeholders(template: str) -> set[str]:
    """Every placeholder name a template uses."""
    return _placeholders(template)


def template_fields(template: str) -> list[str]:
    """The placeholders of a respondent template that come from optional record fields (intervention, ...)."""
    return [name for name in PLACEHOLDER_FIELDS if name in _placeholders(template)]


def load_tier_templates(path: str | Path | None) -> PromptSet:
    """The respondent templates: ours, with any entries of a JSON or YAML file replacing them.

    The file is a mapping from keys among ``tier1``, ``D``, ``E``, ``F``, ``G``, ``H1``, ``H2`` to
    ``string.Template`` texts using the placeholders of ``TIER_PLACEHOLDERS``; every entry must show ``$story``,
    and ``tier1`` must show ``$query``. Its name in the log is the file name; its hash covers every template.
    """
    if path is None:
        return PromptSet(DEFAULT_TIER_PROMPTS, dict(TIER_TEMPLATES))
    what = "Tier prompt file"
    p, data = _read_mapping(path, what, TIER_TEMPLATE_KEYS)
    templates = dict(TIER_TEMPLATES)
    for key, value in data.items():
        required = {"story", "query"} if key == "tier1" else {"story"}
        templates[key] = _check_template(what, p, key, value, TIER_PLACEHOLDERS, required)
    return PromptSet(p.name, templates)


def tier_request(template: str, fill: Mapping[str, str]) -> str:
    """Fill one respondent template (``$`` placeholders; ``$`` signs inside the record's texts are left alone)."""
    return string.Template(template).safe_substitute(fill)


_STORY = re.compile(r"(?<!\$)\$(?:story\b|\{story\})")


def rewrite_request(key: str, template: str, fill: Mapping[str, str]) -> str:
    """The rewrite request alone, without the story: what the judge's ``$query`` shows.

    Tier 1 (key ``tier1``) asks the slot's own query; a template with ``$request`` (our H1, H2) asks that request;
    any other (D-G) asks what its filled text says after the story (before it, when the story comes last).
    """
    if key == "tier1":
        return fill["query"]
    if "request" in _placeholders(template):
        return fill["request"]
    before, after = (_STORY.split(template, maxsplit=1) + [""])[:2]
    return tier_request(after if after.strip() else before, fill).strip()


# --- judge checks (§3.1, App. D.2) -----------------------------------------------------------------------------

CHECKS: tuple[str, ...] = ("E0", "E1", "E2")

# Placeholders a judge template may use: $response_text (the rewrite), $eq1 / $eq2 (the first / second
# Evaluation criteria string, as in App. D.2), $story and $query (the original story and the rewrite request).
JUDGE_PLACEHOLDERS = frozenset({"response_text", "eq1", "eq2", "story", "query"})

# The closing block every judge template shares: the rewrite to judge, then the one-letter answer format.
JUDGE_ANSWER_FORMAT = """
Rewrite:
$response_text

Reply with exactly one character, T or F, and nothing else.
""".strip()

JUDGE_E0 = f"""
You are checking one property of a rewritten story: whether its linking words state cause and effect correctly.

Linking words include: because, since, so, therefore, thus, as a result, due to, consequently, which led to, \
but, although, despite, even though, however, yet.

Go through every such word in the rewrite. Answer F if at least one of them claims a causal link that runs the \
wrong way, ties together two things that have no causal bearing on each other, or presents a fact as the reason \
for an outcome that the fact would in truth work against (for example "because" where "despite" is meant). \
Answer T if every linking word describes a plausible relationship, or if the rewrite has no such words. If the \
reply holds several alternative rewrites or extra commentary, judge all the story text it contains.

Examples (the correct answer follows the arrow):
- "The road was icy, so the bus ran ahead of schedule." -> F
- "The road was icy, so the bus ran late." -> T
- "Because the bakery was closed, Mia bought her bread there." -> F
- "Although the bakery was closed, Mia found bread at the shop next door." -> T
- "Because the alarm rang, the thunderstorm started." -> F
- "The bridge was unsafe, so the inspector kept it open to traffic." -> F
- "The bridge was unsafe, yet the inspector kept it open to traffic." -> T

{JUDGE_ANSWER_FORMAT}
""".strip()

JUDGE_E1 = f"""
You are checking whether a rewritten story keeps certain facts of the original story.

Facts that must still hold:
"$eq1"

Answer T if every one of these facts still holds in the rewrite, whether it is repeated word for word, \
paraphrased, or plainly presupposed by what the rewrite says. Answer F if any of them is missing, contradicted, or \
altered in substance (a different person, amount, place, time, direction or outcome). If the reply holds several \
alternative rewrites, every one of them must keep the facts.

Examples (the correct answer follows the arrow):
- Facts "The kettle was boiling. The kitchen was hot."; the rewrite keeps the boiling kettle but calls the kitchen cool. -> F
- Facts "Priya missed the bus."; the rewrite says "Having missed the bus, Priya walked to work." -> T
- Facts "The referee stopped the match."; the rewrite says "The coach stopped the match." -> F
- Facts "Sam was cooking dinner."; the rewrite says "The smoke alarm went off because Sam burned the dinner he was cooking." -> T
- Facts "The guards held the gate."; the rewrite says "The guards tried to hold the gate but were pushed back." -> F

{JUDGE_ANSWER_FORMAT}
""".strip()

JUDGE_E2 = f"""
You are checking whether a rewritten story has let go of certain facts of the original story.

Facts that must no longer hold:
"$eq2"

Answer T if none of these facts still holds in the rewrite: each one is contradicted, replaced, or dropped. \
Answer F if any of them is still stated or still implied with the same substance, even when reworded or tucked \
inside a longer sentence. If the reply holds several alternative rewrites, none of them may keep these facts.

Examples (the correct answer follows the arrow):
- Facts "The pump failed. The basement flooded."; the rewrite says "The pump kept running and the basement stayed dry." -> T
- Facts "Omar won the race."; the rewrite says "Lena won the race." -> T
- Facts "Omar won the race."; the rewrite says "Omar crossed the line first and lifted the trophy." -> F
- Facts "The council closed the park."; the rewrite says "The council decided to leave the park open." -> T
- Facts "With a coffee in hand, Jo wrote a long report."; the rewrite says "With a coffee in hand, Jo wrote a short note." -> F
- Facts "The exam was hard for Noor."; the rewrite says "The exam would have been easy for Noor." -> T

{JUDGE_ANSWER_FORMAT}
""".strip()

JUDGE_TEMPLATES: dict[str, str] = {"E0": JUDGE_E0, "E1": JUDGE_E1, "E2": JUDGE_E2}

# Sent as a follow-up turn when a judge reply is not exactly one letter (the retry of scorers.judge_check).
JUDGE_RETRY = "Your reply could not be read. Answer again with exactly one character: T or F."


DEFAULT_JUDGE_PROMPTS = "cobe-ours-judge"


def load_judge_templates(path: str | Path | None) -> dict[str, str]:
    """The judge templates E0/E1/E2: ours, with any entries of a JSON or YAML file ``{"E0": ..., ...}`` replacing them.

    Templates are ``string.Template`` texts with the placeholders of ``JUDGE_PLACEHOLDERS`` (App. D.2 names the
    rewrite ``$response_text`` and the two criteria ``$eq1`` / ``$eq2``), so the paper's prompts can be pasted in.
    """
    return load_judge_prompts(path).templates


def load_judge_prompts(path: str | Path | None) -> PromptSet:
    """The judge prompt set (see ``load_judge_templates``): its name (ours, or the file name) and templates."""
    if path is None:
        return PromptSet(DEFAULT_JUDGE_PROMPTS, dict(JUDGE_TEMPLATES))
    what = "Judge prompt file"
    p, data = _read_mapping(path, what, CHECKS)
    templates = dict(JUDGE_TEMPLATES)
    for key, value in data.items():
        templates[key] = _check_template(what, p, key, value, JUDGE_PLACEHOLDERS, {"response_text"})
    return PromptSet(p.name, templates)


def judge_prompt(template: str, response_text: str, eq1: str, eq2: str, story: str, query: str) -> str:
    """Fill one judge template (``$`` placeholders; other ``$`` signs in the texts are left alone)."""
    return string.Template(template).safe_substitute(
        response_text=response_text, eq1=eq1, eq2=eq2, story=story, query=query
    )
