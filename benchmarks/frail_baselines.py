"""Frail's full baseline set (issue 33): the comparison table on Synth-CD and on the pairs of a scripted glass run,
and the cost of ``frail report --baselines all`` at 1,000 and 5,000 jobs.

* ``--part synth``: ``frail synth --n-jobs 500 --twins-per-dose 5 --seed 7`` (or ``--n-jobs``, ``--twins-per-dose``),
  then ``frail report --seeds 0,1,2,3,4 --baselines all`` (MiniLM baseline encoder, tfidf_svd Frail-π); prints the
  wall and CPU seconds and the comparison and per-family tables.
* ``--part glass``: ``glass_inspect/glassgsm`` on the built-in corpus with the scripted solver of
  ``behaviour_fingerprint.py``, ``frail pairs`` from its log, then the same report (5 seeds).
* ``--part scale``: Synth-CD at 1,000 and 5,000 jobs (``--sizes``; one twin per dose), ``frail report --seeds 0
  --baselines all`` in a fresh process each; wall seconds, CPU seconds (the child's user + system time) and peak RSS (the
  report's own ``ru_maxrss``), against the default baselines on the same pairs in the same way (the baseline arm),
  and the largest / smallest ratios (``--no-baseline-arm``: the measured arm only).
* ``--part profile``: Synth-CD at ``--n-jobs`` (default 300; 5 twins per dose), one ``frail report`` (``--baselines``,
  default every baseline but BERTPE and VAP3, which fine-tune rather than encode) in this process under cProfile:
  the frozen encoder's calls, the texts asked for, the distinct texts among them and the texts it encoded, then the
  20 costliest functions (cumulative). It counts by wrapping the encoder's methods, so it also measures an older
  checkout (``PYTHONPATH=<older checkout>/src``).
* ``--part encode``: the distinct base and twin texts of that Synth-CD run encoded by the frozen MiniLM twice in one
  process, in the order given (64 per batch, the encoder's loop before length-sorted batching) and in length-sorted
  batches (``HFEncoderFeaturizer.transform``): seconds of each, their ratio, and how far the two vectors of a text
  differ (maximum absolute difference, maximum 1 - cosine).
* ``--part equal --before-src DIR``: one fixed-seed report (Synth-CD 120 jobs, 2 twins per dose, ``--seeds`` and
  ``--baselines`` as given) by the code in ``DIR`` (e.g. an older checkout's ``src``) and by this checkout's, each in a
  fresh process: the largest difference of any number of the comparison table and the aggregated ρ_S cells.

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


def report(pairs: Path, out: Path, seeds: str, baselines: str | None = "all", src: str | None = None) -> dict[str, Any]:
    """``frail report`` in a fresh process (``src``: the source folder it imports frail from, first on its path)."""
    argv = ["report", "--pairs", str(pairs), "--seeds", seeds, "--out", str(out), "--quiet"]
    argv += [] if baselines is None else ["--baselines", baselines]
    env = None if src is None else {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = subprocess.run(
        [sys.executable, "-c", "import sys; from frail.cli import main; sys.exit(main(sys.argv[1:]))", *argv],
        stdout=subprocess.DEVNULL,
        check=False,
        env=env,
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


def part_synth(work: Path, args: argparse.Namespace) -> None:
    n_jobs, per_dose = args.n_jobs or 500, args.twins_per_dose
    pairs = synth_pairs(work, n_jobs, per_dose)
    start = time.perf_counter()
    summary = report(pairs, work / "rep", args.seeds, args.baselines)
    wall = time.perf_counter() - start
    print(f"Synth-CD {n_jobs} jobs x {per_dose} twins per dose, seeds {args.seeds}, --baselines {args.baselines}: ")
    print(f"{wall:.0f} s wall, {summary['cpu_seconds']:.0f} s CPU")
    print(f"jobs {summary['n_jobs']}, solvable {summary['n_solvable']}, observations {summary['n_observations']}")
    print_tables(work / "rep")


def part_glass(work: Path, args: argparse.Namespace) -> None:
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
    start = time.perf_counter()
    summary = report(pairs, work / "rep", args.seeds, args.baselines)
    wall = time.perf_counter() - start
    print(f"scripted glassgsm run: jobs {summary['n_jobs']}, solvable {summary['n_solvable']}, seeds {args.seeds}")
    print(f"--baselines {args.baselines}: {wall:.0f} s wall, {summary['cpu_seconds']:.0f} s CPU")
    if summary["status"] == "ok":
        print_tables(work / "rep")
    else:
        print(summary["message"])


def part_scale(work: Path, args: argparse.Namespace) -> None:
    baselines, seeds = args.baselines, args.seeds
    rows = []
    sizes = [int(n) for n in args.sizes.split(",")]
    arms = [("default baselines", None)] if args.baseline_arm else []
    arms.append((f"--baselines {baselines}", baselines))
    for n_jobs in sizes:
        pairs = synth_pairs(work, n_jobs, twins_per_dose=1)
        for arm, spec in arms:
            summary = report(pairs, work / f"rep{n_jobs}-{arm[:3]}", seeds.split(",")[0], spec)
            rows.append((n_jobs, arm, summary["wall_seconds"], summary["cpu_seconds"], summary["peak_rss_mb"]))
    print("| jobs | arm | wall s | CPU s | peak RSS MB |\n|---|---|---|---|---|")
    for n_jobs, arm, wall, cpu, rss in rows:
        print(f"| {n_jobs} | {arm} | {wall:.1f} | {cpu:.1f} | {rss:.0f} |")
    by = {(n, a): (w, c, r) for n, a, w, c, r in rows}
    small, large = sizes[0], sizes[-1]
    for arm, _ in arms if large != small else []:  # one size: no growth to show
        (w1, c1, r1), (w5, c5, r5) = by[(small, arm)], by[(large, arm)]
        print(f"{arm}: {large}/{small} wall x{w5 / w1:.2f}, CPU x{c5 / c1:.2f}, peak RSS x{r5 / r1:.2f}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")


def synth_pairs(work: Path, n_jobs: int, twins_per_dose: int = 5) -> Path:
    pairs = work / f"synth{n_jobs}x{twins_per_dose}.jsonl"
    argv = ["synth", "--n-jobs", str(n_jobs), "--twins-per-dose", str(twins_per_dose), "--seed", "7", "--out"]
    assert frail([*argv, str(pairs)]) == 0
    return pairs


def count_encoder_work() -> dict[str, Any]:
    """Wrap the frozen encoder's ``transform`` (texts encoded) and ``embed`` (forward passes) to count their work."""
    from frail.encoders import HFEncoderFeaturizer

    counts: dict[str, Any] = {"transform_calls": 0, "transform_texts": 0, "distinct": set(), "seconds": 0.0}
    counts.update(forward_calls=0, forward_texts=0)
    transform, embed = HFEncoderFeaturizer.transform, HFEncoderFeaturizer.embed

    def counted_transform(self, texts):
        start = time.perf_counter()
        counts["transform_calls"] += 1
        counts["transform_texts"] += len(texts)
        counts["distinct"].update(texts)
        try:
            return transform(self, texts)
        finally:
            counts["seconds"] += time.perf_counter() - start

    def counted_embed(self, texts):
        counts["forward_calls"] += 1
        counts["forward_texts"] += len(texts)
        return embed(self, texts)

    HFEncoderFeaturizer.transform, HFEncoderFeaturizer.embed = counted_transform, counted_embed
    return counts


def part_profile(work: Path, args: argparse.Namespace) -> None:
    import cProfile
    import pstats

    baselines, seeds, n_jobs = encoded_baselines(args.baselines), args.seeds, args.n_jobs or 300
    pairs = synth_pairs(work, n_jobs)
    counts = count_encoder_work()
    argv = ["report", "--pairs", str(pairs), "--seeds", seeds, "--out", str(work / "rep"), "--quiet"]
    profiler = cProfile.Profile()
    start = time.perf_counter()
    assert profiler.runcall(frail, [*argv, "--baselines", baselines]) == 0
    wall = time.perf_counter() - start
    rows = [json.loads(line) for line in pairs.read_text().splitlines()]
    texts = {r["base_text"] for r in rows} | {r["twin_text"] for r in rows}
    print(f"Synth-CD {n_jobs} jobs x 5 twins per dose, seeds {seeds}, --baselines {baselines}: {wall:.1f} s wall")
    print(f"distinct texts in the pairs: {len(texts)} (bases {len({r['base_text'] for r in rows})})")
    print(
        f"encoder transform: {counts['transform_calls']} calls, {counts['transform_texts']} texts asked for, "
        f"{len(counts['distinct'])} distinct, {counts['seconds']:.1f} s; forward passes: {counts['forward_calls']} "
        f"over {counts['forward_texts']} texts"
    )
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)


def part_encode(work: Path, args: argparse.Namespace) -> None:
    import numpy as np
    import torch

    from frail.encoders import HFEncoderFeaturizer, HFFrozen

    n_jobs = args.n_jobs or 300
    rows = [json.loads(line) for line in synth_pairs(work, n_jobs).read_text().splitlines()]
    texts = list(dict.fromkeys([r["base_text"] for r in rows] + [r["twin_text"] for r in rows]))
    torch.set_num_threads(1)  # as `frail report` (its --threads defaults to 1)
    feat = HFFrozen()
    _ = feat.embed(texts[:8])  # warm-up: load the encoder

    def in_given_order() -> np.ndarray:
        with torch.no_grad():
            chunks = [feat.embed(texts[i : i + 64]).float().cpu().numpy() for i in range(0, len(texts), 64)]
        return np.concatenate(chunks)

    arms = {}
    for name, run in (
        ("given order", in_given_order),
        ("length-sorted", lambda: HFEncoderFeaturizer.transform(feat, texts)),
    ):
        start, cpu = time.perf_counter(), time.process_time()
        arms[name] = (run(), time.perf_counter() - start, time.process_time() - cpu)
    (old, t_old, c_old), (new, t_new, c_new) = arms["given order"], arms["length-sorted"]
    cos = np.sum(old * new, axis=1) / (np.linalg.norm(old, axis=1) * np.linalg.norm(new, axis=1))
    print(f"{len(texts)} distinct texts of Synth-CD {n_jobs} jobs, torch threads {torch.get_num_threads()}")
    print(f"given order: {t_old:.1f} s wall, {c_old:.1f} s CPU; length-sorted: {t_new:.1f} s wall, {c_new:.1f} s CPU")
    print(f"ratio (given / sorted): wall x{t_old / t_new:.2f}, CPU x{c_old / c_new:.2f}")
    print(f"max |difference| {np.max(np.abs(old - new)):.2e}, max 1 - cosine {np.max(1 - cos):.2e}")


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, f"{path}/{key}").items()}
    return {path: value}


def part_equal(work: Path, args: argparse.Namespace) -> None:
    """The comparison table and the aggregated ρ_S cells of one fixed-seed report, by ``before_src``'s code and by
    this checkout's, each in a fresh process: the largest difference of any number, and the cells that differ."""
    baselines, seeds, before_src = args.baselines, args.seeds, args.before_src
    pairs = synth_pairs(work, 120, twins_per_dose=2)
    here = str(Path(__file__).resolve().parents[1] / "src")
    summaries = [
        report(pairs, work / f"rep-{arm}", seeds, baselines, src) for arm, src in (("a", before_src), ("b", here))
    ]
    cells = [_leaves({"comparison": s["comparison"], "aggregate": s["aggregate"]}) for s in summaries]
    numbers = {
        k: abs(v - cells[1][k])
        for k, v in cells[0].items()
        if isinstance(v, float) and isinstance(cells[1].get(k), float)
    }
    other = [k for k, v in cells[0].items() if k not in numbers and cells[1].get(k) != v]
    worst = max(numbers, key=lambda k: numbers[k])
    print(
        f"Synth-CD 120 jobs x 2 twins per dose, seeds {seeds}, --baselines {baselines}: before {before_src}, after {here}"
    )
    print(
        f"{len(numbers)} numbers: largest |difference| {numbers[worst]:.2e} ({worst}); above 1e-6: "
        f"{sum(d > 1e-6 for d in numbers.values())}; other cells that differ: {other or 'none'}"
    )
    print(f"wall s before / after: {summaries[0]['wall_seconds']:.1f} / {summaries[1]['wall_seconds']:.1f}")


def encoded_baselines(spec: str) -> str:
    """``spec``, where ``all`` means every baseline but the two that fine-tune an encoder (BERTPE, VAP3)."""
    from frail.learned_baselines import available_baselines

    return spec if spec != "all" else ",".join(n for n in available_baselines() if n not in ("bertpe", "vap3"))


PARTS = {
    "synth": part_synth,
    "glass": part_glass,
    "scale": part_scale,
    "profile": part_profile,
    "encode": part_encode,
    "equal": part_equal,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", choices=list(PARTS), required=True)
    parser.add_argument(
        "--baselines",
        default="all",
        help="the --baselines of the measured arm (default all; profile: all but bertpe, vap3)",
    )
    parser.add_argument("--seeds", default="0,1,2,3,4", help="report seeds (scale: the first only)")
    parser.add_argument("--n-jobs", type=int, help="synth: Synth-CD jobs (default 500); profile / encode: (300)")
    parser.add_argument("--twins-per-dose", type=int, default=5, help="synth: twins per dose (default 5)")
    parser.add_argument("--sizes", default="1000,5000", help="scale: Synth-CD job counts, smallest first")
    parser.add_argument(
        "--no-baseline-arm",
        dest="baseline_arm",
        action="store_false",
        help="scale: measure only the --baselines arm, not the default baselines beside it",
    )
    parser.add_argument("--before-src", help="equal: the src folder of the code to compare against")
    args = parser.parse_args()
    if args.part == "equal" and not args.before_src:
        parser.error("--part equal needs --before-src")
    with tempfile.TemporaryDirectory() as tmp:
        PARTS[args.part](Path(tmp), args)


if __name__ == "__main__":
    main()
