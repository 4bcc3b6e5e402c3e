"""``causal-suite plan``: what a run will cost before it runs (samples, model requests per role, tokens, price).

The plan builds the task exactly as ``inspect eval`` would (same ``-T`` arguments, no model call), reads its
samples, epochs and output cap, and the model calls each sample makes in each role, which every suite task
declares in its metadata under ``"requests"`` (:func:`declare_requests`: the solver's and scorers' own knowledge,
e.g. glass's layout, CoBe's three judge checks, exp_b's extractor fallback). Input tokens are estimated from the
actual prompt texts at :data:`CHARS_PER_TOKEN` characters a token; output tokens are bounded by the caps (the run's
``--max-tokens`` or the task's own, a role's declared cap). A price per million tokens turns them into a cost.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass
from typing import Any

import yaml

from causal_suite.errors import SuiteInputError
from causal_suite.taskdoc import task_function

REQUESTS_KEY = "requests"
MODEL_ROLE = "model"  # the model under test
CHARS_PER_TOKEN = 4.0  # English text under common BPE tokenizers; the real count depends on the provider's tokenizer


@dataclass(frozen=True)
class RoleCalls:
    """The model calls one sample makes in one role in each epoch, as the task's solver and scorer make them."""

    role: str = MODEL_ROLE
    calls: int = 1  # when every reply parses (and no provider falls short of num_choices)
    at_most: int | None = None  # with every re-ask or fallback request (None: ``calls``)
    prompt_chars: int = 0  # fixed text each call adds (system message, judge template)
    with_input: bool = True  # each call's prompt holds the sample's input
    with_response: bool = False  # each call's prompt holds the model's response (a judge)
    max_tokens: int | None = None  # this role's own output cap (None: the run's cap for the model under test)


def declare_requests(*roles: RoleCalls) -> list[dict[str, Any]]:
    """The task metadata value under :data:`REQUESTS_KEY` (plain data, so the log records it too)."""
    return [asdict(r) for r in roles if r.calls or r.at_most]


@dataclass(frozen=True)
class RolePlan:
    """Planned calls and tokens of one role over the whole run."""

    role: str
    calls: int
    at_most: int
    input_tokens: int  # estimate, at ``calls`` calls
    input_tokens_max: int  # estimate, at ``at_most`` calls (re-asks resend the conversation: more, not counted)
    output_tokens: int | None  # at most, at ``at_most`` calls (None: no cap known)


@dataclass(frozen=True)
class Plan:
    """A run's planned size: the task, its samples and epochs, and each role's calls and tokens."""

    task: str
    model: str
    samples: int
    epochs: int
    input_chars: int  # the samples' inputs, each once
    roles: tuple[RolePlan, ...]


def _text(value: Any) -> str:
    """A sample input (a string or chat messages) as the text sent."""
    return value if isinstance(value, str) else "\n".join(m.text for m in value)


def _pair(text: str, flag: str) -> tuple[str, Any]:
    """``name=value`` with the value read as YAML (as ``inspect eval`` reads ``-T``)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise SuiteInputError(f"{flag} '{text}' is not name=value.")
    return name, yaml.safe_load(value)


def _role_plan(declared: dict[str, Any], inputs: list[int], epochs: int, caps: dict[str, int | None]) -> RolePlan:
    """One role's calls and tokens over ``inputs`` (each sample's input characters) and ``epochs``; ``caps``: the
    output cap per role given for this run (the model under test's from ``--max-tokens`` or the task)."""
    calls = RoleCalls(**declared)
    at_most = calls.calls if calls.at_most is None else calls.at_most
    own_cap = caps.get(calls.role, calls.max_tokens)
    cap = caps.get(MODEL_ROLE)
    response_chars = (cap or 0) * CHARS_PER_TOKEN if calls.with_response else 0
    prompt_chars = sum(calls.prompt_chars + (n if calls.with_input else 0) + response_chars for n in inputs)
    total = len(inputs) * epochs
    return RolePlan(
        role=calls.role,
        calls=total * calls.calls,
        at_most=total * at_most,
        input_tokens=math.ceil(prompt_chars * epochs * calls.calls / CHARS_PER_TOKEN),
        input_tokens_max=math.ceil(prompt_chars * epochs * at_most / CHARS_PER_TOKEN),
        output_tokens=None if own_cap is None else total * at_most * own_cap,
    )


def make_plan(
    task: str,
    task_args: dict[str, Any],
    model: str,
    epochs: int | None = None,
    max_tokens: int | None = None,
    role_max_tokens: dict[str, int] | None = None,
    limit: int | None = None,
) -> Plan:
    """Build ``task`` with ``task_args`` (no model call) and plan its run with ``--epochs`` / ``--max-tokens``
    (``role_max_tokens``: the output cap of a judge role, as its ``--model-role`` config would set it; ``limit``: the
    first N samples, as ``--limit N``)."""
    built = task_function(task)(**task_args)
    declared = (built.metadata or {}).get(REQUESTS_KEY)
    if declared is None:
        raise SuiteInputError(f"Task '{task}' declares no model requests (task metadata '{REQUESTS_KEY}').")
    inputs = [len(_text(sample.input)) for sample in built.dataset][:limit]
    run_epochs = epochs or built.epochs or 1
    caps: dict[str, int | None] = {MODEL_ROLE: max_tokens if max_tokens is not None else built.config.max_tokens}
    roles = tuple(_role_plan(d, inputs, run_epochs, caps | dict(role_max_tokens or {})) for d in declared)
    return Plan(task, model, len(inputs), run_epochs, sum(inputs), roles)


def _cost(tokens: int | None, price: float | None) -> float | None:
    return None if tokens is None or price is None else tokens / 1e6 * price


def render(plan: Plan, price_in: float | None = None, price_out: float | None = None) -> str:
    """The plan as text: one line per role, then the totals (and the cost where prices are given)."""
    lines = [
        f"plan: {plan.task} with {plan.model}: {plan.samples} samples x {plan.epochs} epochs "
        f"(inputs {plan.input_chars} characters, ~{plan.input_chars / CHARS_PER_TOKEN:.0f} tokens once each)"
    ]
    for r in plan.roles:
        flag = "--max-tokens" if r.role == MODEL_ROLE else f"--role-max-tokens {r.role}=N"
        out = f"unbounded (no cap: pass {flag})" if r.output_tokens is None else f"<= {r.output_tokens} tokens"
        lines.append(
            f"  {r.role}: {r.calls} requests (at most {r.at_most}), input ~{r.input_tokens} tokens "
            f"(at most ~{r.input_tokens_max}), output {out}"
        )
    total_in = sum(r.input_tokens for r in plan.roles)
    outs = [r.output_tokens for r in plan.roles]
    total_out = None if None in outs else sum(o or 0 for o in outs)
    lines.append(
        f"  total: {sum(r.calls for r in plan.roles)} requests, input ~{total_in} tokens, output "
        f"{'unbounded' if total_out is None else f'<= {total_out}'} tokens ({CHARS_PER_TOKEN:g} characters a token)"
    )
    if price_in is not None or price_out is not None:
        cost_in, cost_out = _cost(total_in, price_in), _cost(total_out, price_out)
        shown_in = "input price not given" if cost_in is None else f"input ~${cost_in:.2f}"
        if price_out is None:
            shown_out = "output price not given"
        else:
            shown_out = "output unbounded" if cost_out is None else f"output <= ${cost_out:.2f}"
        lines.append(f"  cost: {shown_in}, {shown_out} (prices per million tokens as given)")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", help="a suite task (glass_inspect/glassgsm, or its bare name)")
    parser.add_argument("-T", dest="task_args", action="append", default=[], help="task argument name=value")
    parser.add_argument("--model", required=True, help="the inspect model string of the planned run")
    parser.add_argument("--limit", type=int, help="as inspect eval --limit N: the first N samples")
    parser.add_argument("--epochs", type=int, help="as inspect eval --epochs (default: the task's)")
    parser.add_argument("--max-tokens", type=int, help="as inspect eval --max-tokens (default: the task's cap)")
    parser.add_argument(
        "--role-max-tokens", action="append", default=[], metavar="ROLE=N", help="a judge role's output cap"
    )
    parser.add_argument("--price-in", type=float, help="USD per million input tokens")
    parser.add_argument("--price-out", type=float, help="USD per million output tokens")


def run(args: argparse.Namespace) -> int:
    role_caps = dict(_pair(p, "--role-max-tokens") for p in args.role_max_tokens)
    for role, cap in role_caps.items():
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
            raise SuiteInputError(f"--role-max-tokens {role}={cap}: the cap must be a whole number >= 1.")
    task_args = dict(_pair(p, "-T") for p in args.task_args)
    plan = make_plan(args.task, task_args, args.model, args.epochs, args.max_tokens, role_caps, args.limit)
    print(render(plan, args.price_in, args.price_out))
    return 0
