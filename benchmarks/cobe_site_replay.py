"""Replay the CoBe site items against their published verdicts (the README's evaluation report).

    .venv/bin/python benchmarks/cobe_site_replay.py [--site ../shared/data/cobe/cobe_site_examples.jsonl]

Converts the 12 site items (``cobe-data convert --query-slot '*=A'``: 11 records), keeps the 8 with a published
model output and verdict, and runs the real task on them at Tier 1 phrasing A: the respondent answers each story
with its published model output (several rewrites joined as versions), and the ``grader`` answers each check from
the published verdict (F on the check the site names as failing, T otherwise). Prints one row per item: the
published verdict and failing check beside ours, then the share that agree. This checks the pipeline (conversion,
prompts, the three checks, the verdict rule, the metrics) on real items; it is not a judge-quality figure, which
needs the paper's judge. Baseline: the published verdicts.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from causal_suite.logs import read_log_digest
from cobe_inspect.records.convert import convert, write_records

SITE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cobe" / "cobe_site_examples.jsonl"
# The site's failing-check labels, and the wording of our judge template for each check.
CHECK_OF = {"connector (E0)": "E0", "preserve (E1)": "E1", "change (E2)": "E2"}
TEMPLATE_OF = {"E0": "linking words", "E1": "must still hold", "E2": "must no longer hold"}


def scripted(name: str, reply) -> object:
    """A mockllm model answering each prompt with ``reply(prompt)``."""

    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        out = ModelOutput.from_content(model=f"mockllm/{name}", content=reply("\n".join(m.text for m in messages)))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)


def text_of(response: str | list[str]) -> str:
    return (
        "\n\n".join(f"Version {i}: {r}" for i, r in enumerate(response, 1)) if isinstance(response, list) else response
    )


def replay(site: Path, workdir: Path) -> tuple[list[tuple[str, str, str, str, str]], dict[str, float]]:
    """(id, published verdict, published failing check, our verdict, our failed checks) per replayable item, and
    the run's metrics."""
    records = [r for r in convert([site], query_slots={"*": "A"}) if r.get("Published responses")]
    records = [r for r in records if r["Published responses"][0].get("verdict")]
    data = write_records(records, workdir / "site.jsonl")
    published = {r["Story"]: r["Published responses"][0] for r in records}
    failing = {text_of(p["response"]): CHECK_OF.get(p.get("failing_check") or "") for p in published.values()}

    def respond(prompt: str) -> str:
        return next(text_of(p["response"]) for story, p in published.items() if story in prompt)

    def judge(prompt: str) -> str:
        return "F" if any(r in prompt and c and TEMPLATE_OF[c] in prompt for r, c in failing.items()) else "T"

    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"data": str(data), "phrasings": "A", "judge_cache": False},
        model=scripted("published-output", respond),
        model_roles={"grader": scripted("published-verdict", judge)},
        display="none",
        log_dir=str(workdir / "logs"),
    )
    rows = []
    for sample in read_log_digest(log.location).samples:
        value = sample.scores["cobe_judge"].value
        sid = str(sample.metadata["scenario_id"])
        pub = next(r["Published responses"][0] for r in records if f"{r['Core Set ID']}v{r['Variation ID']}" == sid)
        ours = "correct" if value["correct"] else "wrong"  # type: ignore[index]
        failed = ",".join(c for c in ("E0", "E1", "E2") if not value[c]) or "-"  # type: ignore[index]
        rows.append((sid, pub["verdict"], CHECK_OF.get(pub.get("failing_check") or "", "-"), ours, failed))
    return rows, {k: m.value for k, m in log.results.scores[0].metrics.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=SITE, help="the site extract (default: ../shared beside us)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows, metrics = replay(args.site, Path(tmp))
    print("| item | published verdict | published failing check | our verdict | our failed checks |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    agree = sum(1 for _, pv, pc, ov, oc in rows if pv == ov and pc == oc)
    print(f"\nverdict and failing check agree on {agree} of {len(rows)} items")
    for rate in ("accuracy", "E0_failure", "E1_failure", "E2_failure"):
        low, high = 100 * metrics[f"{rate}_low"], 100 * metrics[f"{rate}_high"]
        print(
            f"{rate}: {100 * metrics[rate]:.1f} % (95 % interval {low:.1f}-{high:.1f}; n {metrics[f'{rate}_n']:.0f}, "
            f"{metrics[f'{rate}_clusters']:.0f} cores)"
        )


if __name__ == "__main__":
    main()
