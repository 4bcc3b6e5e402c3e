"""Solvers of the glass tasks: ``glass_solve`` (one zero-shot step-by-step prompt; §3.1: 5 draws at temperature
0.2 per prompt, made either one per epoch or all inside one sample), ``sample_draws`` (the in-sample drawing,
usable by any task) and ``adjudicate`` (the No-Op audit's adjudicator, §3.3).

Draw independence. Identity twins repeat their base's text on purpose (§7 step 8), so their draws must not be
served from the base's: each draw gets a seed derived from (the run's seed, the sample id, the draw number), which
also separates base and identity twin in providers that seed per prompt (the offline model's per-prompt draw
counter only counts within one process), and when inspect's response cache is switched on (``--cache``) the
policy is scoped to the sample id and kept per-epoch, so neither a twin nor a later draw can be answered from
another sample's or draw's cache entry.

Two layouts of the draws of a prompt (task parameter ``layout``):

- ``epochs`` (default): draw k is epoch k of the sample, one request each, seed ``draw_seed(run seed, id, k)``.
- ``sample``: one epoch; ``sample_draws`` makes all n draws inside the sample. With ``choices=auto`` it sends one
  request asking for ``num_choices = n`` with the seed of draw 1; a provider that returns fewer choices (it
  ignores ``num_choices``) gets the missing draws k as concurrent single requests with the seed of draw k.
  ``choices=false`` sends the n single requests at once (no first request; for providers that reject
  ``num_choices``), ``choices=true`` trusts the provider and fails the sample if it returns fewer choices.
  Draw k has the same seed as epoch k of the epochs layout (under ``--epochs E`` epoch e holds draws
  (e-1)n+1 ... en). All draws are kept in the sample's output: ``state.output.choices`` (one choice per draw, in
  draw order) and ``state.output.metadata["sample_draws"]`` (per draw: number, seed, request, finish reason;
  ``requests``: the requests the sample made; ``num_choices``: what the first request asked for).

Cache and retry. The cache key holds the messages, the generate config (seed, ``num_choices``), the sample scope
and the epoch, so a cached run replays exactly the requests of the first run, per request: per draw in the epochs
layout and for single-request draws, per prompt for a ``num_choices`` request. ``eval-retry`` re-runs the failed
(sample, epoch) units: one draw in the epochs layout, **all draws of the prompt** in the sample layout (a sample
fails when any of its requests fails after inspect's own retries; its other requests are allowed to finish, so
with ``--cache`` the retry re-asks only the failed request).
"""

from __future__ import annotations

from typing import Any

import anyio
from inspect_ai.model import (
    CachePolicy,
    ChatMessageAssistant,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from causal_suite.errors import SuiteInputError
from causal_suite.inspect_compat import active_generate_config  # the run's resolved config (no public API)
from glass_inspect.corpus.operators import derive_seed
from glass_inspect.prompts import render_prompt
from glass_inspect.scorers import DRAWS_KEY, parse_verdict

LAYOUTS = ("epochs", "sample")
CHOICES = ("auto", "true", "false")


def draw_seed(run_seed: int | None, sample_id: str | int, draw: int) -> int:
    """A 31-bit seed unique to (run seed, sample, draw): reproducible, and distinct across twins and draws."""
    return derive_seed(run_seed or 0, sample_id, draw) >> 32  # the 63-bit derived seed cut to 31 bits


def draw_config(sample_id: str | int, draw: int) -> dict[str, Any]:
    """Per-draw generate overrides: the derived seed, and a sample-scoped per-epoch cache policy if caching is on."""
    active = active_generate_config()
    overrides: dict[str, Any] = {"seed": draw_seed(active.seed, sample_id, draw)}
    if active.cache:
        policy = active.cache if isinstance(active.cache, CachePolicy) else CachePolicy()
        overrides["cache"] = policy.model_copy(
            update={"per_epoch": True, "scopes": {**policy.scopes, "glass_sample": str(sample_id)}}
        )
    return overrides


def parse_layout(layout: str) -> str:
    if layout not in LAYOUTS:
        raise SuiteInputError(
            f"layout {layout!r}: choose epochs (one draw per epoch) or sample (all draws in one sample)."
        )
    return layout


def parse_choices(choices: str | bool) -> str:
    """``auto`` / ``true`` / ``false`` (a bool from ``-T choices=true`` is accepted)."""
    value = str(choices).lower() if isinstance(choices, (str, bool)) else None
    if value not in CHOICES:
        raise SuiteInputError(
            f"choices {choices!r}: choose auto (one request, detect support), true (the provider "
            "returns num_choices choices) or false (one request per draw)."
        )
    return value


async def _all(calls: list[Any]) -> list[ModelOutput]:
    """Run the requests concurrently; every one finishes (so a cache keeps them) before the first error is raised."""
    results: list[Any] = [None] * len(calls)

    async def run(i: int) -> None:
        try:
            results[i] = await calls[i]()
        except Exception as exc:  # kept, raised after the others finished
            results[i] = exc

    async with anyio.create_task_group() as tg:
        for i in range(len(calls)):
            tg.start_soon(run, i)
    for r in results:
        if isinstance(r, Exception):
            raise r
    return results


async def draw_in_sample(state: TaskState, draws: int, choices: str = "auto") -> TaskState:
    """Draw ``draws`` completions of ``state.messages`` inside this sample (rules: module docstring); sets
    ``state.output`` (one choice per draw, the draw record in its metadata) and appends the first draw's message."""
    model = get_model()
    messages = list(state.messages)
    first = (state.epoch - 1) * draws + 1  # draw numbers of this epoch: first .. first + draws - 1

    def request(draw: int, num_choices: int | None = None):
        config = GenerateConfig(**draw_config(state.sample_id, draw), num_choices=num_choices)
        return lambda: model.generate(messages, config=config)

    run_seed = active_generate_config().seed
    ask = choices != "false" and draws > 1
    records: list[dict[str, Any]] = []
    outputs: list[ModelOutput] = []
    got: list[Any] = []
    if ask:
        out = await request(first, draws)()
        outputs.append(out)
        got = list(out.choices[:draws])
        seed = draw_seed(run_seed, state.sample_id, first)
        records = [{"draw": first + i, "request": 1, "seed": seed} for i in range(len(got))]
        if len(got) < draws and choices == "true":
            raise RuntimeError(
                f"{model}: asked for num_choices={draws} and got {len(got)} choice(s); the provider "
                "does not return several choices per request: run with -T choices=auto or false."
            )
    missing = list(range(first + len(got), first + draws))
    for d, out in zip(missing, await _all([request(d) for d in missing]) if missing else [], strict=False):
        if not out.choices:
            raise RuntimeError(f"{model}: draw {d} of sample {state.sample_id!r} returned no choice.")
        outputs.append(out)
        got.append(out.choices[0])
        records.append({"draw": d, "request": len(outputs), "seed": draw_seed(run_seed, state.sample_id, d)})
    for rec, choice in zip(records, got, strict=False):
        rec["stop_reason"] = choice.stop_reason
    usage = None
    for out in outputs:
        if out.usage is not None:
            usage = out.usage if usage is None else usage + out.usage
    record = {"draws": records, "requests": len(outputs), "num_choices": draws if ask else None}
    metadata = {**(outputs[0].metadata or {}), DRAWS_KEY: record}
    state.output = ModelOutput(model=outputs[0].model, choices=got, usage=usage, metadata=metadata)
    state.messages.append(got[0].message if got else ChatMessageAssistant(content=""))
    return state


@solver
def sample_draws(draws: int = 5, choices: str | bool = "auto") -> Solver:
    """All ``draws`` answers of the prompt inside one sample: one request with ``num_choices`` where the provider
    supports it, else concurrent single requests with per-draw seeds (``choices``: auto / true / false)."""
    mode = parse_choices(choices)
    if int(draws) < 1:
        raise SuiteInputError(f"draws {draws!r}: at least 1.")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await draw_in_sample(state, int(draws), mode)

    return solve


@solver
def glass_solve(suite: str, draws: int | None = None, choices: str | bool = "auto") -> Solver:
    """Wrap the problem text in the suite's prompt; then one completion (epochs layout, ``draws`` None) or all
    ``draws`` completions inside the sample (``sample_draws``)."""
    mode = parse_choices(choices)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = render_prompt(suite, state.input_text)
        if draws is None:
            return await generate(state, **draw_config(state.sample_id, state.epoch))
        return await draw_in_sample(state, int(draws), mode)

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
