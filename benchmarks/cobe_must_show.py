"""Issue 32's "Must show" for CoBe, each printed by the real command on scripted runs (about 3 min on 2 cores).

    .venv/bin/python benchmarks/cobe_must_show.py [--keep DIR]

1. ``python -m cobe_inspect.compare`` on a scripted Tier-1 run (A-C) and a scripted Tier-2 run of phrasing D only
   of the built-in set: n per row, cells under ``--min-n`` and unlike phrasings marked.
2. ``python -m cobe_inspect.compare --table7`` on four scripted tiers over one ``-T subset=6 -T subset_seed=0``.
3. ``cobe-data convert`` on each malformed input the issue lists: a second view adding another output (a merge,
   named), contradictory verdicts, ids ``true`` and ``317.9``, a 10 MB story, a lone query without an index.
4. ``cobe-data rater-sheet`` on the Tier-1 log and ``python -m cobe_inspect.agreement`` over three synthetic rater
   columns (seeded: each rater copies the judge's verdict and flips one in four of them, a quarter of
   the flips to Other).
5. ``cobe-data stats`` on the built-in set.

The scripted respondent returns the story unchanged (Tier 4: after a ``Rewritten story:`` marker); the scripted
judge fails E1 for every third built-in scenario. Baseline: the outputs the issue recorded before round 2
(no n per row, a directory or bad log as a traceback, converter guesses).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from cobe_site_replay import scripted  # the replay's scripted mockllm model (benchmarks/ is on sys.path)
from inspect_ai import eval

from cobe_inspect.agreement import main as agreement_main
from cobe_inspect.compare import main as compare_main
from cobe_inspect.dataset import load_records
from cobe_inspect.records.convert import main as cobe_data_main
from cobe_inspect.records.raters import RATERS

RECORDS = load_records()
FAILING = {r.preserve for i, r in enumerate(RECORDS) if i % 3 == 0}


def _command(title: str, main: Callable[[list[str]], int], argv: list[str]) -> None:
    """Run one command line in-process and print it with its stdout, stderr and exit status."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    prog = {compare_main: "python -m cobe_inspect.compare", agreement_main: "python -m cobe_inspect.agreement"}
    print(f"--- {title}\n$ {prog.get(main, 'cobe-data')} {' '.join(argv)}  (exit {status})")
    print("\n".join(text.rstrip() for text in (out.getvalue(), err.getvalue()) if text.strip()) + "\n")


def _respond(prompt: str) -> str:
    story = next(r.story for r in RECORDS if r.story in prompt)
    return f"Steps: (omitted).\nRewritten story: {story}" if "Rewritten story:" in prompt else story


def _judge(prompt: str) -> str:
    return "F" if "must still hold" in prompt and any(f'"{p}"' in prompt for p in FAILING) else "T"


def scripted_run(log_dir: Path, **task_args: object) -> str:
    """One scripted run of the built-in set; the log's path."""
    [log] = eval(
        "cobe_inspect/cobe",
        task_args={"judge_cache": False, **task_args},
        model=scripted("respondent", _respond),
        model_roles={"grader": scripted("judge", _judge)},
        display="none",
        log_dir=str(log_dir),
    )
    return log.location


def show_compare(log_dir: Path) -> str:
    tier1 = scripted_run(log_dir / "tier1", tier=1)
    tier2 = scripted_run(log_dir / "tier2", tier=2, phrasings="D")
    print("=== 1. compare on a scripted Tier-1 run and a scripted Tier-2 run (phrasing D only)\n")
    _command("Tier 1 and Tier 2 D", compare_main, [tier1, tier2, "--paper-model", "gpt"])
    _command("a directory", compare_main, [str(log_dir)])
    return tier1


def show_table7(log_dir: Path) -> None:
    subset = {"subset": 6, "subset_seed": 0}
    logs = [scripted_run(log_dir / f"t7-tier{tier}", tier=tier, **subset) for tier in (1, 2, 3, 4)]
    print("=== 2. Table 7 on four scripted tiers over one fixed subset (-T subset=6 -T subset_seed=0)\n")
    _command("four tiers", compare_main, ["--table7", *logs, "--paper-model", "gpt"])


SITE_ITEM = {
    "example_id": "9v2",
    "original": "The kettle boiled, so Ida made tea.",
    "query": "Rewrite the original text, based on what would have happened instead had the kettle broken.",
    "gold_answer": "The kettle broke, so Ida drank water.",
    "should_not_change": ["Ida wanted a drink."],
    "should_change": ["The kettle boiled.", "Ida made tea."],
    "model": "Some-Model",
    "model_output": "The kettle broke, so Ida made tea.",
    "verdict": "wrong",
    "failing_check": "change (E2)",
    "query_idx": 0,
}
RECORD = {
    "Core Set ID": 317,
    "Variation ID": 3,
    "Story": "The kettle boiled, so Ida made tea.",
    "Query": ["Rewrite the original text, based on what would have happened instead had the kettle broken."],
    "Illustrative answer (not scored)": "The kettle broke, so Ida drank water.",
    "Evaluation criteria": ["Ida wanted a drink.", "The kettle boiled. Ida made tea."],
}
MALFORMED = {
    "a second view adding another output (a merge)": [
        SITE_ITEM,
        dict(SITE_ITEM, model="Other-Model", model_output="The kettle broke, so Ida drank water."),
    ],
    "contradictory verdicts on one response": [SITE_ITEM, dict(SITE_ITEM, verdict="correct")],
    "Core Set ID true": [dict(RECORD, **{"Core Set ID": True})],
    "Core Set ID 317.9": [dict(RECORD, **{"Core Set ID": 317.9})],
    "a 10 MB story": [dict(RECORD, Story="It rained. " * 1_000_000)],
    "a lone query without an index": [{k: v for k, v in SITE_ITEM.items() if k != "query_idx"}],
}


def show_converter(work: Path) -> None:
    print("=== 3. cobe-data convert on each malformed input\n")
    for n, (title, items) in enumerate(MALFORMED.items()):
        source = work / f"in{n}.jsonl"
        source.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
        _command(title, cobe_data_main, ["convert", str(source), "-o", str(work / f"out{n}.jsonl")])


def _fill_sheet(sheet: Path, tier1: str, seed: int) -> None:
    """Three synthetic raters: each gives the judge's verdict (Yes = correct), flipping one in four (seeded)."""
    from cobe_inspect.agreement import judge_scores

    scores, rng = judge_scores(tier1), random.Random(seed)
    with sheet.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        valid = bool((scores[row["sample_id"]] or {}).get("correct"))
        for rater in RATERS:
            flipped = rng.random() < 1 / 4
            row[rater] = "Other" if flipped and rng.random() < 0.25 else ("Yes" if valid != flipped else "No")
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def show_agreement(work: Path, tier1: str) -> None:
    print("=== 4. a rater sheet and agreement over three synthetic rater columns\n")
    sheet = work / "sheet.csv"
    _command("rater sheet", cobe_data_main, ["rater-sheet", tier1, "--n", "60", "--seed", "0", "-o", str(sheet)])
    _fill_sheet(sheet, tier1, seed=0)
    _command("agreement", agreement_main, [tier1, str(sheet)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the scripted logs and files in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        tier1 = show_compare(work / "logs")
        show_table7(work / "logs")
        show_converter(work)
        show_agreement(work, tier1)
        print("=== 5. cobe-data stats on the built-in set\n")
        _command("built-in set", cobe_data_main, ["stats"])


if __name__ == "__main__":
    main()
