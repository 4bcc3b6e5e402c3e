"""CoBe prompt texts: the four query tiers of App. E and the three judge checks of §3.1 / App. D.2.

All wording here is our own. It follows the paper's protocol (what each template cues, which pieces of a
record it is built from, what each judge check asks and how it must answer) but not its sentences. A user
who wants the paper's exact judge wording passes a ``judge_prompts`` file (see ``load_judge_templates``).

Tiers (App. E):

- Tier 1, phrasings A-C: the record's own three ``Query`` strings (§3 "Query").
- Tier 2, phrasings D-G: more explicit conversational cues (E.1). D needs the record's ``Intervention``
  clause; E-G need its ``Original event`` and ``Intervened event``.
- Tier 3, phrasing H1: explicit "keep prior facts, update consequences" instruction (E.2); needs
  ``Intervened event``.
- Tier 4, phrasing H2: a step-by-step structural-causal-model recipe (E.3); needs ``Intervened event``.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from pathlib import Path

from causal_suite.errors import SuiteInputError, require_file
from causal_suite.jsonl import read_text

# --- query tiers (App. E) -------------------------------------------------------------------------------------

TIER_PHRASINGS: dict[int, tuple[str, ...]] = {1: ("A", "B", "C"), 2: ("D", "E", "F", "G"), 3: ("H1",), 4: ("H2",)}

# Record fields (beyond the App. B.2 core) that each phrasing is built from.
PHRASING_FIELDS: dict[str, tuple[str, ...]] = {
    "A": (),
    "B": (),
    "C": (),
    "D": ("Intervention",),
    "E": ("Original event", "Intervened event"),
    "F": ("Original event", "Intervened event"),
    "G": ("Original event", "Intervened event"),
    "H1": ("Intervened event",),
    "H2": ("Intervened event",),
}

TIER2_TEMPLATES: dict[str, str] = {
    "D": "Rewrite the text above to show what would have happened in this particular scenario had {intervention}.",
    "E": (
        "Rewrite the text above so that it takes in an imagined outside intervention in this scenario: "
        "instead of {original}, {intervened}."
    ),
    "F": (
        "Rewrite the story above as it would read if we could go back in time and make it so that, "
        "instead of {original}, {intervened}."
    ),
    "G": (
        "Rewrite the text above according to how events would have played out if, "
        "instead of {original}, {intervened}."
    ),
}

# Tier 4 asks for the final story after this marker, so the judge sees the story and not the worked steps.
FINAL_STORY_MARKER = "Rewritten story:"

# Tiers 3 and 4 show the story first and end with the same rewrite request (their instructions differ).
STORY_BLOCK = "Original story:\n{story}"
REWRITE_REQUEST = "Rewrite request: Rewrite the original story for the counterfactual scenario in which {intervened}."

TIER3_TEMPLATE = f"""
{STORY_BLOCK}

{REWRITE_REQUEST} \
Leave earlier facts, and facts the change does not touch, exactly as they were, and update whatever follows \
from the change. Answer with the rewritten story only.
""".strip()

TIER4_TEMPLATE = f"""
{STORY_BLOCK}

Work through these steps.
1. Name the key variables of the story, reading it as a structural causal model in Pearl's sense.
2. Write down the causal graph that links these variables, adding any unobserved common causes that may be present.
3. Treat the change asked for below as an external intervention do(V=v): fix that variable, let its effects \
flow only to its causal descendants, and leave every variable that is not a descendant as it was.
4. Write out the full rewritten story under this intervention.

{REWRITE_REQUEST} \
Finish with a line that starts with "{FINAL_STORY_MARKER}" followed by the rewritten counterfactual story alone.
""".strip()


def tier_request(phrasing: str, pieces: dict[str, str], queries: Sequence[str], story: str) -> str:
    """The full user prompt for one (record, phrasing): story plus the tier's rewrite request (App. E)."""
    if phrasing in ("A", "B", "C"):
        return f"{story}\n\n{queries['ABC'.index(phrasing)]}"
    fill = {
        "intervention": pieces.get("Intervention", ""),
        "original": pieces.get("Original event", ""),
        "intervened": pieces.get("Intervened event", ""),
        "story": story,
    }
    if phrasing in TIER2_TEMPLATES:
        return f"{story}\n\n{TIER2_TEMPLATES[phrasing].format(**fill)}"
    if phrasing == "H1":
        return TIER3_TEMPLATE.format(**fill)
    if phrasing == "H2":
        return TIER4_TEMPLATE.format(**fill)
    raise ValueError(f"unknown phrasing {phrasing!r}")


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


def _check_template(path: Path, key: str, text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise SuiteInputError(f"Judge prompt file '{path}': entry '{key}' must be a non-empty string.")
    names = {m.group("named") or m.group("braced") for m in string.Template.pattern.finditer(text)} - {None}
    unknown = names - JUDGE_PLACEHOLDERS
    if unknown:
        raise SuiteInputError(
            f"Judge prompt file '{path}': entry '{key}' uses unknown placeholder(s) "
            f"{', '.join('$' + n for n in sorted(unknown))}; allowed: "
            f"{', '.join('$' + n for n in sorted(JUDGE_PLACEHOLDERS))}."
        )
    if "response_text" not in names:
        raise SuiteInputError(f"Judge prompt file '{path}': entry '{key}' never shows the rewrite ($response_text).")
    return text


def load_judge_templates(path: str | Path | None) -> dict[str, str]:
    """The judge templates E0/E1/E2: ours, with any entries of a JSON or YAML file ``{"E0": ..., ...}`` replacing them.

    Templates are ``string.Template`` texts with the placeholders of ``JUDGE_PLACEHOLDERS`` (App. D.2 names the
    rewrite ``$response_text`` and the two criteria ``$eq1`` / ``$eq2``), so the paper's prompts can be pasted in.
    """
    templates = dict(JUDGE_TEMPLATES)
    if path is None:
        return templates
    p = require_file(path, "Judge prompt file")
    text = read_text(p, f"Judge prompt file '{p}'")
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as exc:  # json.JSONDecodeError / yaml.YAMLError
        raise SuiteInputError(f"Judge prompt file '{p}' is not valid JSON/YAML: {exc}.") from exc
    if not isinstance(data, dict) or not data:
        raise SuiteInputError(f"Judge prompt file '{p}' must hold a mapping with keys among E0, E1, E2.")
    unknown = sorted(set(data) - set(CHECKS))
    if unknown:
        raise SuiteInputError(f"Judge prompt file '{p}': unknown key(s) {unknown}; use E0, E1 and/or E2.")
    for key, value in data.items():
        templates[key] = _check_template(p, key, value)
    return templates


def judge_prompt(template: str, response_text: str, eq1: str, eq2: str, story: str, query: str) -> str:
    """Fill one judge template (``$`` placeholders; other ``$`` signs in the texts are left alone)."""
    return string.Template(template).safe_substitute(
        response_text=response_text, eq1=eq1, eq2=eq2, story=story, query=query
    )
