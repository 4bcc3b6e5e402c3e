"""Glass call economy: one model call per unique prompt and epoch, and the harness overhead.

Builds a GlassGSM corpus from the GSM8K test set (``../shared/data/gsm8k/test.jsonl`` by default), runs
``glassgsm`` on it with an instant scripted model, and prints:

(a) generate calls / (samples x epochs)                    -- must be 1.00;
    samples against distinct texts + identity twins        -- dedupe across doses, identity twins kept apart;
(b) unique prompts against the pairs of the five manifests -- the saving over evaluating dose files one by one;
(c) wall time per sample of glassgsm against a minimal inspect task (plain generate + match scorer) over the same
    prompts, epochs and model, in the same process          -- the harness overhead as a ratio.

    .venv/bin/python benchmarks/glass_call_economy.py [--limit N] [--epochs 5] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from inspect_ai import Epochs, Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from glass_inspect.corpus import read_manifest, read_pool
from glass_inspect.corpus.build import build_corpus
from glass_inspect.task import glassgsm

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "gsm8k" / "test.jsonl"


def instant_model(counter: list[int]):
    """A scripted model answering at once; counts its calls."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        counter[0] += 1
        out = ModelOutput.from_content(model="mockllm/model", content="Step by step... ANSWER: 42")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def timed_eval(task: Task, epochs: int, log_dir: str) -> tuple[float, int, int]:
    calls = [0]
    start = time.perf_counter()
    [log] = eval(
        task,
        model=instant_model(calls),
        display="none",
        log_dir=log_dir,
        max_connections=64,
        epochs=epochs,
        score_display=False,
    )
    assert log.status == "success", log.error
    return time.perf_counter() - start, calls[0], len({s.id for s in log.samples or []})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=str(DEFAULT_SOURCE), help="GSM8K JSONL (default: ../shared GSM8K test)")
    ap.add_argument("--limit", type=int, default=None, help="first N problems only (default: all 1,319)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()

    print(f"# machine: {os.cpu_count()} CPUs, Python {platform.python_version()}; counted: model calls, seconds")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        corpus = build_corpus("gsm", args.source, Path(tmp) / "corpus", limit=args.limit, seed=0)
        print(f"corpus built in {time.perf_counter() - t0:.1f} s: {corpus}")
        pool = read_pool(corpus)
        manifests = {m: read_manifest(corpus, m) for m in (1, 3, 5, 7, 9)}
        in_use = {p.base_id for ps in manifests.values() for p in ps} | {
            p.twin_id for ps in manifests.values() for p in ps
        }
        used = [r for r in pool if r.text_id in in_use]
        identity = sum(r.operator == "identity" for r in used)
        distinct = len({r.text for r in used if r.operator != "identity"})
        pairs = sum(len(ps) for ps in manifests.values())
        per_file = sum(len({p.base_id for p in ps} | {p.twin_id for p in ps}) for ps in manifests.values())

        task = glassgsm(corpus=str(corpus))
        prompts = [Sample(id=s.id, input=s.input, target=s.target) for s in task.dataset]
        minimal = Task(dataset=prompts, solver=generate(), scorer=match(numeric=True), epochs=Epochs(args.epochs))

        glass_t, minimal_t = [], []
        for i in range(args.repeats + 1):  # the first round warms up
            g, calls, n = timed_eval(glassgsm(corpus=str(corpus)), args.epochs, f"{tmp}/g{i}")
            m, _, _ = timed_eval(minimal, args.epochs, f"{tmp}/m{i}")
            if i:
                glass_t.append(g)
                minimal_t.append(m)
        g_med, m_med = statistics.median(glass_t), statistics.median(minimal_t)

    print(f"(a) generate calls {calls} / (samples {n} x epochs {args.epochs}) = {calls / (n * args.epochs):.2f}")
    print(f"    samples {n} vs distinct texts {distinct} + identity twins {identity} = {distinct + identity}")
    print(
        f"(b) unique prompts {n} vs pairs over the five manifests {pairs} "
        f"(dose files one by one would send {per_file} prompts): saving x{per_file / n:.2f}"
    )
    print(
        f"(c) per sample: glassgsm {1000 * g_med / n:.2f} ms vs minimal task {1000 * m_med / n:.2f} ms "
        f"-> overhead ratio {g_med / m_med:.2f} (median of {args.repeats})"
    )


if __name__ == "__main__":
    main()
