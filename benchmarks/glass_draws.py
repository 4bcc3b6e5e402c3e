"""Glass draws: one draw per epoch against all draws of a prompt inside one sample (issue 20).

Runs ``glassgsm`` on the same prompts (the built-in GSM corpus, or a corpus built from a GSM8K file with
``--source``) with an instant scripted model, in one process, arm after arm:

- ``epochs``: ``-T layout=epochs`` (one request per draw, one sample per (prompt, epoch));
- ``sample, choices``: ``-T layout=sample`` against a provider that returns ``num_choices`` choices per request;
- ``sample, auto, no choices``: ``-T layout=sample`` against a provider that ignores ``num_choices`` (the request
  returns draw 1, draws 2..n follow as concurrent single requests);
- ``sample, choices=false``: ``-T layout=sample -T choices=false`` (n concurrent single requests).

Counted: model requests per draw, and harness milliseconds per draw: wall time of the whole eval (log writing
included) / draws, and the CPU time of this process / draws (less sensitive to other load on a shared machine);
the model answers at once, so this is inspect's and the task's own cost. Median of
``--repeats`` runs after one warm-up round; the ratio column is against the epochs arm.

    .venv/bin/python benchmarks/glass_draws.py [--limit 200] [--draws 5] [--repeats 3] [--source gsm8k.jsonl]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage, get_model

from glass_inspect.task import glassgsm

TEXT = "Step by step... ANSWER: 42"


def instant_model(counter: list[int], honours_choices: bool):
    """A scripted model answering at once; counts its requests; returns ``num_choices`` choices if it honours them."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        counter[0] += 1
        n = (config.num_choices or 1) if honours_choices else 1
        choices = [
            ChatCompletionChoice(message=ChatMessageAssistant(content=TEXT, model="model"), stop_reason="stop")
            for _ in range(n)
        ]
        return ModelOutput(
            model="mockllm/model",
            choices=choices,
            usage=ModelUsage(input_tokens=1, output_tokens=n, total_tokens=1 + n),
        )

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


ARMS = [  # name, task args, the provider honours num_choices
    ("epochs", {"layout": "epochs"}, False),
    ("sample, choices", {"layout": "sample"}, True),
    ("sample, auto, no choices", {"layout": "sample"}, False),
    ("sample, choices=false", {"layout": "sample", "choices": False}, False),
]


def timed(
    corpus: str | None, args: dict, honours: bool, draws: int, limit: int, log_dir: str
) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds of this process, requests, draws) of one eval."""
    calls = [0]
    in_sample = args.get("layout") == "sample"
    task = glassgsm(corpus=corpus, **args, **({"draws": draws} if in_sample else {}))
    start, cpu = time.perf_counter(), time.process_time()
    [log] = eval(
        task,
        epochs=1 if in_sample else draws,
        model=instant_model(calls, honours),
        display="none",
        log_dir=log_dir,
        max_connections=64,
        limit=limit,
        score_display=False,
    )
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert log.status == "success", log.error
    n_draws = sum(len(s.output.choices) for s in log.samples or [])
    assert n_draws == limit * draws, (n_draws, limit, draws)
    return elapsed, cpu, calls[0], n_draws


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=None, help="GSM8K JSONL to build a corpus from (default: the built-in corpus)")
    ap.add_argument("--limit", type=int, default=200, help="prompts (samples of the epochs layout) per arm")
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    print(
        f"# machine: {os.cpu_count()} CPUs, Python {platform.python_version()}; counted: model requests, "
        "wall seconds of the whole eval (instant scripted model)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        corpus = None
        if args.source:
            from glass_inspect.corpus.build import build_corpus

            corpus = str(build_corpus("gsm", args.source, Path(tmp) / "corpus", seed=0))
        results: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name, _, _ in ARMS}
        for i in range(args.repeats + 1):  # round 0 warms up
            for name, task_args, honours in ARMS:
                run = timed(corpus, task_args, honours, args.draws, args.limit, f"{tmp}/{i}")
                if i:
                    results[name].append(run)

    load = os.getloadavg()[0]
    print(
        f"# {args.limit} prompts x {args.draws} draws = {args.limit * args.draws} draws per arm; median of "
        f"{args.repeats} (min-max); load average {load:.1f} on {os.cpu_count()} CPUs (wall time is inflated when "
        "the load exceeds the CPUs; CPU time much less)"
    )
    print(
        f"{'arm':<26} {'requests':>8} {'req/draw':>8} {'wall ms/draw':>20} {'x epochs':>8} {'cpu ms/draw':>11} "
        f"{'x epochs':>8}"
    )
    wall0 = statistics.median(1000 * t / d for t, _, _, d in results["epochs"])
    cpu0 = statistics.median(1000 * c / d for _, c, _, d in results["epochs"])
    for name, _, _ in ARMS:
        runs = results[name]
        wall = [1000 * t / d for t, _, _, d in runs]
        cpu = statistics.median(1000 * c / d for _, c, _, d in runs)
        _, _, requests, n_draws = runs[0]
        w = statistics.median(wall)
        print(
            f"{name:<26} {requests:>8} {requests / n_draws:>8.2f} {w:>7.2f} ({min(wall):5.2f}-{max(wall):5.2f})"
            f" {w / wall0:>8.2f} {cpu:>11.2f} {cpu / cpu0:>8.2f}"
        )


if __name__ == "__main__":
    main()
