"""The CoBe task: conversational counterfactual text editing (Raghavan et al., "CoBe: A Benchmark for
Conversational Counterfactual Text Editing", arXiv:2610.13057; §3, §3.1, §4, App. E).

Each scenario's story is shown with a rewrite request of the chosen tier; the reply is judged by the
``grader`` role on three checks (E0 connectors, E1 preserve, E2 change) and is correct only if all pass.

Examples::

    inspect eval cobe_inspect/cobe --model openai/gpt-4o --model-role grader=anthropic/claude-opus-4-1
    inspect eval cobe_inspect/cobe --model offline/gemma-3-270m --limit 2          # plumbing only
    inspect eval cobe_inspect/cobe -T tier=2 -T phrasings=D,E -T data=my_cobe.jsonl
    inspect eval cobe_inspect/cobe -T judge_prompts=paper_judge.yaml             # the paper's judge wording
"""

from __future__ import annotations

from causal_suite.errors import strict_params
from inspect_ai import Task, task
from inspect_ai.solver import generate

from cobe_inspect.dataset import cobe_dataset
from cobe_inspect.scorers import DEFAULT_RETRIES, cobe_judge

TASK_VERSION = 1


@task(name="cobe")
@strict_params
def cobe(
    data: str | None = None,
    tier: int = 1,
    phrasings: str | list[str] | None = None,
    judge_prompts: str | None = None,
    judge_retries: int = DEFAULT_RETRIES,
    judge_cache: bool = True,
) -> Task:
    """CoBe: one sample per (scenario, phrasing), judged on E0/E1/E2 by the ``grader`` model role.

    Args:
        data: Path to a CoBe file (a JSON array or JSONL of records in the App. B.2 schema); default: the
            built-in set of 36 scenarios we wrote (six per graph type, six domains).
        tier: Prompt tier of App. E: 1 (the records' own queries A-C), 2 (templates D-G), 3 (H1, explicit
            preservation instruction) or 4 (H2, step-by-step causal recipe).
        phrasings: Which of the tier's phrasings to run, e.g. ``"A,C"`` or ``["D"]``; default: all of them.
        judge_prompts: Optional JSON/YAML file with ``E0`` / ``E1`` / ``E2`` templates replacing ours (placeholders
            ``$response_text``, ``$eq1``, ``$eq2``, ``$story``, ``$query``), e.g. to use the paper's wording.
        judge_retries: How many times an unreadable judge reply is asked again before the sample is unscored.
        judge_cache: Send judge calls through inspect's model cache, so re-scoring a log does not pay again.
    """
    return Task(
        dataset=cobe_dataset(data, tier, phrasings),
        solver=generate(),
        scorer=cobe_judge(judge_prompts=judge_prompts, retries=judge_retries, cache=judge_cache),
        version=TASK_VERSION,
        metadata={"benchmark": "CoBe", "tier": tier},
    )
