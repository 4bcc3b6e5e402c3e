"""CoBe on the built-in set with scripted models: the scenario-clustered standard error beside the naive one.

The respondent hands back the story it was given; the scripted judge fails E1 (preservation) on every phrasing of
a fixed third of the scenarios and passes everything else, so outcomes are correlated within a scenario, as real
models' are. Prints accuracy, the clustered SE (``stderr``), the naive SE (``stderr_iid``) and their ratio, and
the log's path (feed it to ``python -m cobe_inspect.compare LOG --paper-model gpt``).

    .venv/bin/python benchmarks/cobe_clustered_se.py [--log-dir logs/cobe_scripted] [--tier 1]
"""

from __future__ import annotations

import argparse

from inspect_ai import eval
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

from cobe_inspect.dataset import load_records

# every third built-in scenario fails preservation on all of its phrasings
FAILING = {r.preserve for i, r in enumerate(load_records()) if i % 3 == 0}


def scripted(name: str, reply):
    def outputs(messages, tools, tool_choice, config: GenerateConfig) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        out = ModelOutput.from_content(model=f"mockllm/{name}", content=reply(prompt))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)


def respond(prompt: str) -> str:
    story = prompt.split("\n\n")[0].removeprefix("Original story:\n")
    return f"Steps.\nRewritten story: {story}" if "Rewritten story:" in prompt else story


def judge(prompt: str) -> str:
    return "F" if "must still hold" in prompt and any(f'"{p}"' in prompt for p in FAILING) else "T"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log-dir", default="logs/cobe_scripted")
    parser.add_argument("--tier", type=int, default=1)
    args = parser.parse_args()
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"tier": args.tier},
        model=scripted("respondent", respond),
        model_roles={"grader": scripted("judge", judge)},
        display="none",
        log_dir=args.log_dir,
    )
    [result] = log.results.scores
    m = {name: metric.value for name, metric in result.metrics.items()}
    scenarios = len({s.metadata["scenario_id"] for s in log.samples})
    print(f"built-in set, tier {args.tier}: {result.scored_samples} scored responses in {scenarios} scenarios")
    print(f"accuracy      {m['accuracy']:.4f}")
    print(f"clustered SE  {m['stderr']:.4f}   (stderr: the phrasings of a scenario are one cluster)")
    print(f"naive SE      {m['stderr_iid']:.4f}   (stderr_iid: every response independent)")
    print(f"ratio         {m['stderr'] / m['stderr_iid']:.2f}")
    print(f"log           {log.location}")


if __name__ == "__main__":
    main()
