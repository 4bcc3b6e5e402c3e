"""Zero-shot prompts of the glass eval tasks (our own wording).

Each prompt asks for worked reasoning and a last line ``ANSWER: ...`` that ``answers.extract_answer`` reads
(§1: Y is exact match on the extracted final answer). The problem text is inserted verbatim at ``{problem}``.
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
