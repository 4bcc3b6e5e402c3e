"""CoBe accuracy's standard error on a simulated set shaped like the paper's (2,000 variations of 106 core examples,
three phrasings each): the metric's SE (clustered by core example) and the previous one (clustered by variation)
against the true spread of the estimate over replications (issue 25).

Each replication draws 106 core abilities (logit-normal, sd ``--core-sd``), spreads 2,000 variations over the cores
(every core at least one), gives each variation its own shift (sd ``--variation-sd``) and draws the three
phrasings' outcomes. The true spread is the standard deviation of accuracy over ``--replications`` draws (numpy);
the SEs are the mean over ``--scored`` replications run through the CoBe metric itself (``cobe_accuracy``: the
core-clustered ``accuracy_se`` and the naive ``accuracy_se_iid``) and, as the baseline, inspect's
``stderr(cluster="scenario_id")`` on the same samples (the variation-clustered SE the metric reported before).

    .venv/bin/python benchmarks/cobe_clustered_se.py [--replications 1000] [--scored 20] [--seed 0]
    .venv/bin/python benchmarks/cobe_clustered_se.py --builtin   # also the built-in set with scripted models
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from inspect_ai.scorer import SampleScore, Score, stderr

from cobe_inspect.scorers import cobe_accuracy

CORES, VARIATIONS, PHRASINGS = 106, 2000, "ABC"


def simulate(rng: np.random.Generator, core_sd: float, variation_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """(core of each variation, outcomes variations x phrasings) of one replication."""
    ability = rng.normal(0.0, core_sd, CORES)
    core_of = np.sort(np.concatenate([np.arange(CORES), rng.integers(0, CORES, VARIATIONS - CORES)]))
    logit = ability[core_of] + rng.normal(0.0, variation_sd, VARIATIONS)
    p = 1 / (1 + np.exp(-logit))
    return core_of, (rng.uniform(size=(VARIATIONS, len(PHRASINGS))) < p[:, None]).astype(int)


def sample_scores(core_of: np.ndarray, outcomes: np.ndarray) -> list[SampleScore]:
    """The replication as CoBe sample scores (ids ``{core}v{variation}-{phrasing}``, core and variation metadata)."""
    scores = []
    for v, (core, row) in enumerate(zip(core_of, outcomes, strict=False)):
        for phrasing, y in zip(PHRASINGS, row, strict=False):
            value = {"E0": 1, "E1": int(y), "E2": 1, "correct": int(y)}
            meta = {"core_id": int(core), "scenario_id": f"{core}v{v}", "phrasing": phrasing}
            scores.append(
                SampleScore(score=Score(value=value), sample_id=f"{core}v{v}-{phrasing}", sample_metadata=meta)
            )
    return scores


def paper_shaped(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    accuracy = [simulate(rng, args.core_sd, args.variation_sd)[1].mean() for _ in range(args.replications)]
    by_core, by_variation, iid = [], [], []
    for _ in range(args.scored):
        scores = sample_scores(*simulate(rng, args.core_sd, args.variation_sd))
        metrics = cobe_accuracy()(scores)
        by_core.append(metrics["accuracy_se"])
        iid.append(metrics["accuracy_se_iid"])
        by_variation.append(stderr(to_float=lambda v: float(v["correct"]), cluster="scenario_id")(scores))
    true = float(np.std(accuracy, ddof=1))
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}; seed {args.seed}")
    print(
        f"simulated CoBe set: {VARIATIONS} variations of {CORES} cores x {len(PHRASINGS)} phrasings "
        f"(core sd {args.core_sd}, variation sd {args.variation_sd}); mean accuracy {np.mean(accuracy):.3f}"
    )
    print(f"{'true spread of accuracy':28s}{true:.4f}   (std over {args.replications} replications)")
    rows = [
        ("accuracy_se (by core, now)", by_core),
        ("by variation (before)", by_variation),
        ("accuracy_se_iid (naive)", iid),
    ]
    for name, values in rows:
        print(f"{name:28s}{np.mean(values):.4f}   ratio to the true spread {np.mean(values) / true:.2f}")


def builtin(log_dir: str, tier: int) -> None:
    """The built-in set with a scripted respondent and judge (a third of the scenarios fail E1 on every phrasing)."""
    from inspect_ai import eval
    from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

    from cobe_inspect.dataset import load_records

    failing = {r.preserve for i, r in enumerate(load_records()) if i % 3 == 0}

    def scripted(name: str, reply):
        def outputs(messages, tools, tool_choice, config: GenerateConfig) -> ModelOutput:
            out = ModelOutput.from_content(model=f"mockllm/{name}", content=reply("\n".join(m.text for m in messages)))
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        return get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)

    def respond(prompt: str) -> str:
        story = prompt.split("\n\n")[0].removeprefix("Original story:\n")
        return f"Steps.\nRewritten story: {story}" if "Rewritten story:" in prompt else story

    def judge(prompt: str) -> str:
        return "F" if "must still hold" in prompt and any(f'"{p}"' in prompt for p in failing) else "T"

    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"tier": tier},
        model=scripted("respondent", respond),
        model_roles={"grader": scripted("judge", judge)},
        display="none",
        log_dir=log_dir,
    )
    [result] = log.results.scores
    m = {name: metric.value for name, metric in result.metrics.items()}
    print(f"built-in set, tier {tier}: {m['accuracy_n']:.0f} scored responses in {m['accuracy_clusters']:.0f} cores")
    print(f"accuracy {m['accuracy']:.4f} [{m['accuracy_low']:.4f}, {m['accuracy_high']:.4f}]")
    print(f"SE by core {m['accuracy_se']:.4f}, naive {m['accuracy_se_iid']:.4f}; log {log.location}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--scored", type=int, default=20, help="replications run through the metric")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--core-sd", type=float, default=1.5)
    parser.add_argument("--variation-sd", type=float, default=0.6)
    parser.add_argument("--builtin", action="store_true", help="also run the built-in set with scripted models")
    parser.add_argument("--log-dir", default="logs/cobe_scripted")
    parser.add_argument("--tier", type=int, default=1)
    args = parser.parse_args()
    paper_shaped(args)
    if args.builtin:
        builtin(args.log_dir, args.tier)


if __name__ == "__main__":
    main()
