"""Prompts of the glass tasks (our own wording). Pure text: no inspect import, no other module of the package,
so both the eval layer and the corpus tooling (which matches a No-Op log back to its twins by prompt) use it.

* ``GSM_PROMPT`` / ``MATH_PROMPT`` (``glassgsm`` / ``glassmath``): zero-shot, worked reasoning and a last line
  ``ANSWER: ...`` that ``answers.extract_answer`` reads (§1: Y is exact match on the extracted final answer). The
  problem text is inserted verbatim at ``{problem}``.
* ``NOOP_PROMPT`` (``noop_audit``, §3.3): base text, twin text and gold answer; the reply ends in one line
  ``VERDICT: PRESERVES`` or ``VERDICT: CHANGES`` (read by ``scorers.parse_verdict``).
"""

from __future__ import annotations

GSM_PROMPT = """
Here is a math word problem. Reason through it one step at a time, showing the calculations you make.
When you are done, write one last line in exactly this form, with the final number only (no units, no words):
ANSWER: <number>

Problem:
{problem}
""".strip()

MATH_PROMPT = """
Here is a mathematics problem. Work it out step by step, showing your reasoning.
When you are done, write one last line in exactly this form, giving the final answer in simplest form as LaTeX
inside the box:
ANSWER: \\boxed{<final answer>}

Problem:
{problem}
""".strip()

PROMPTS = {"gsm": GSM_PROMPT, "math": MATH_PROMPT}


def render_prompt(suite: str, problem: str) -> str:
    """The user message for one problem text (plain substitution: LaTeX braces in the problem are safe)."""
    return PROMPTS[suite].replace("{problem}", problem)


# ------------------------------------------------------------------------------ No-Op adjudication (§3.3)

NOOP_PROMPT = """You are checking a rewritten maths word problem for a benchmark. The rewrite was meant to change \
only the surface of the problem (names, sentence order, or some added sentences that have nothing to do with the \
question), so that the correct final answer stays exactly the same.

ORIGINAL PROBLEM:
{base}

REWRITTEN PROBLEM:
{twin}

CORRECT FINAL ANSWER TO THE ORIGINAL PROBLEM: {answer}

Decide whether the rewritten problem still has exactly this correct final answer. Answer CHANGES if the rewrite \
alters any quantity, relation or condition the solution uses, makes the problem ambiguous or contradictory (for \
example, added sentences that could be read as part of the problem, or a pronoun that now points to someone \
else), or asks something different. Otherwise answer PRESERVES.

Think briefly if you need to, then finish with one line that is exactly
VERDICT: PRESERVES
or
VERDICT: CHANGES"""

PRESERVES = "preserves"
CHANGES = "changes"


def render_noop_prompt(base: str, twin: str, answer: str) -> str:
    """The adjudication prompt of one twin (``str.format``: braces inside the texts are not placeholders)."""
    return NOOP_PROMPT.format(base=base, twin=twin, answer=answer)
