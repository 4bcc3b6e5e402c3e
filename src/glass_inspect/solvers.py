"""Solvers of the glass tasks: ``glass_solve`` (one zero-shot step-by-step prompt, one independent draw per
epoch; §3.1: 5 samples at temperature 0.2 per prompt) and ``adjudicate`` (the No-Op audit's adjudicator, §3.3).

Draw independence. Identity twins repeat their base's text on purpose (§7 step 8), so their draws must not be
served from the base's: each draw gets a seed derived from (the run's seed, the sample id, the epoch), which also
separates base and identity twin in providers that seed per prompt (the offline model's per-prompt draw counter
only counts within one process), and when inspect's response cache is switched on (``--cache``) the policy is
scoped to the sample id and kept per-epoch, so neither a twin nor a later epoch can be answered from another
sample's or epoch's cache entry.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import CachePolicy, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from causal_suite.inspect_compat import active_generate_config  # the run's resolved config (no public API)
from glass_inspect.corpus.operators import derive_seed
from glass_inspect.prompts import render_prompt
from glass_inspect.scorers import parse_verdict


def draw_seed(run_seed: int | None, sample_id: str | int, epoch: int) -> int:
    """A 31-bit seed unique to (run seed, sample, epoch): reproducible, and distinct across twins and epochs."""
    return derive_seed(run_seed or 0, sample_id, epoch) >> 32  # the 63-bit derived seed cut to 31 bits


def draw_config(sample_id: str | int, epoch: int) -> dict[str, Any]:
    """Per-draw generate overrides: the derived seed, and a sample-scoped per-epoch cache policy if caching is on."""
    active = active_generate_config()
    overrides: dict[str, Any] = {"seed": draw_seed(active.seed, sample_id, epoch)}
    if active.cache:
        policy = active.cache if isinstance(active.cache, CachePolicy) else CachePolicy()
        overrides["cache"] = policy.model_copy(
            update={"per_epoch": True, "scopes": {**policy.scopes, "glass_sample": str(sample_id)}}
        )
    return overrides


@solver
def glass_solve(suite: str) -> Solver:
    """Wrap the problem text in the suite's prompt and draw one completion."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = render_prompt(suite, state.input_text)
        return await generate(state, **draw_config(state.sample_id, state.epoch))

    return solve


@solver
def adjudicate(retries: int = 2) -> Solver:
    """Ask the ``adjudicator`` role (default: the model under evaluation) for a verdict, retrying unparsable
    replies up to ``retries`` more times at temperature 0. All replies are kept in the sample metadata."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model(role="adjudicator")
        replies: list[str] = []
        for _ in range(retries + 1):
            state.output = await model.generate(state.input_text, config=GenerateConfig(temperature=0.0))
            replies.append(state.output.completion)
            if parse_verdict(state.output.completion) is not None:
                break
        state.metadata["adjudicator_replies"] = replies
        return state

    return solve
