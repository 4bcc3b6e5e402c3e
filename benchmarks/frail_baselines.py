"""Frail's full baseline set (issue 33): the comparison table on Synth-CD and on the pairs of a scripted glass run,
and the cost of ``frail report --baselines all`` at 1,000 and 5,000 jobs.

* ``--part synth``: ``frail synth --n-jobs 500 --twins-per-dose 5 --seed 7``, then ``frail report --seeds 0,1,2,3,4
  --baselines all`` (MiniLM baseline encoder, tfidf_svd Frail-π); prints the comparison and per-family tables.
* ``--part glass``: ``glass_inspect/glassgsm`` on the built-in corpus with the scripted solver of
  ``behaviour_fingerprint.py``, ``frail pairs`` from its log, then the same report (5 seeds).
* ``--part scale``: Synth-CD at 1,000 and 5,000 jobs (one twin per dose), ``frail report --seeds 0 --baselines
  all`` in a fresh process each; wall seconds, CPU seconds (the child's user + system time) and peak RSS (the
  report's own ``ru_maxrss``), against the default baselines on the same pairs in the same way (the baseline arm),
  and the 5,000 / 1,000 ratios.

Run from the repository root: ``nice -n 10 .venv/bin/python benchmarks/frail_baselines.py --part synth``;
``--baselines LIST`` and ``--seeds`` narrow the measured arm (BERTPE and VAP3 fine-tune MiniLM and dominate the
CPU time).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def frail(argv: list[str]) -> int:
    from frail.cli import main

    return main(argv)


def report(pairs: Path, out: Path, seeds: str, baselines: str | None = "all") -> dict[str, Any]:
    argv = ["report", "--pairs", str(pairs), "--seeds", seeds, "--out", str(out), "--quiet"]
    argv += [] if baselines is None else ["--baselines", baselines]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = subprocess.run(
        [sys.executable, "-c", "import sys; from frail.cli import main; sys.exit(main(sys.argv[1:]))", *argv],
        stdout=subprocess.DEVNULL,
        check=False,
    ).returncode
    if code != 0:
        raise SystemExit(f"frail report exited {code} on {pairs}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    # CPU seconds of the report process (user + system): steadier than wall time on a loaded machine
    summary["cpu_seconds"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return summary


def print_tables(out: Path) -> None:
    text = (out / "report.md").read_text()
    start = text.index("## Reliability")
    end = text.index("## Curation")
    print(text[start:end])


def part_synth(work: Path, baselines: str, seeds: str) -> None:
    pairs = work / "synth.jsonl"
    assert frail(["synth", "--n-jobs", "500", "--twins-per-dose", "5", "--seed", "7", "--out", str(pairs)]) == 0
    start = time.perf_counter()
    summary = report(pairs, work / "rep", seeds, baselines)
    print(f"Synth-CD 500 jobs, seeds {seeds}, --baselines {baselines}: {time.perf_counter() - start:.0f} s wall")
    print(f"jobs {summary['n_jobs']}, solvable {summary['n_solvable']}, observations {summary['n_observations']}")
    print_tables(work / "rep")


def part_glass(work: Path, baselines: str, seeds: str) -> None:
    import behaviour_fingerprint as bf
    from inspect_ai import eval as inspect_eval

    corpus = work / "corpus"
    assert bf.glass_build(["--suite", "gsm", "--source", str(bf.builtin_file("gsm")), "--out", str(corpus)]) == 0
    pool = [json.loads(line) for line in (corpus / "pool.jsonl").read_text().splitlines()]
    model = bf.scripted("glass-gsm", bf.glass_solver_reply({r["text"]: r["answer"] for r in pool}, "gsm"))
    [log] = inspect_eval(
        "glass_inspect/glassgsm",
        model=model,
        log_dir=str(work / "logs"),
        display="none",
        task_args={"corpus": str(corpus)},
    )
    pairs = work / "pairs.jsonl"
    assert frail(["pairs", log.location, "--out", str(pairs)]) == 0
    summary = report(pairs, work / "rep", seeds, baselines)
    print(f"scripted glassgsm run: jobs {summary['n_jobs']}, solvable {summary['n_solvable']}")
    if summary["status"] == "ok":
        print_tables(work / "rep")
    else:
        print(summary["message"])


def part_scale(work: Path, baselines: str, seeds: str) -> None:
    rows = []
    for n_jobs in (1000, 5000):
        pairs = work / f"synth{n_jobs}.jsonl"
        assert (
            frail(["synth", "--n-jobs", str(n_jobs), "--twins-per-dose", "1", "--seed", "7", "--out", str(pairs)]) == 0
        )
        for arm, spec in (("default baselines", None), (f"--baselines {baselines}", baselines)):
            summary = report(pairs, work / f"rep{n_jobs}-{arm[:3]}", seeds.split(",")[0], spec)
            rows.append((n_jobs, arm, summary["wall_seconds"], summary["cpu_seconds"], summary["peak_rss_mb"]))
    print("| jobs | arm | wall s | CPU s | peak RSS MB |\n|---|---|---|---|---|")
    for n_jobs, arm, wall, cpu, rss in rows:
        print(f"| {n_jobs} | {arm} | {wall:.1f} | {cpu:.1f} | {rss:.0f} |")
    by = {(n, a): (w, c, r) for n, a, w, c, r in rows}
    for arm in ("default baselines", f"--baselines {baselines}"):
        (w1, c1, r1), (w5, c5, r5) = by[(1000, arm)], by[(5000, arm)]
        print(f"{arm}: 5000/1000 wall x{w5 / w1:.2f}, CPU x{c5 / c1:.2f}, peak RSS x{r5 / r1:.2f}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", choices=["synth", "glass", "scale"], required=True)
    parser.add_argument("--baselines", default="all", help="the --baselines of the measured arm (default all)")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="report seeds (scale: the first only)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        {"synth": part_synth, "glass": part_glass, "scale": part_scale}[args.part](
            Path(tmp), args.baselines, args.seeds
        )


if __name__ == "__main__":
    main()
