"""Log scale (issue 27): what reading a full GlassGSM / GlassMATH log costs each downstream command, full size beside
half size.

For one suite, builds two corpora with ``glass-build`` from the shared data (``--limit`` bases and half as many:
by default the whole test set, 1,319 GSM8K / 5,000 MATH problems), runs each through ``glass<suite>`` with
``-T layout=sample`` and an instant model that honours ``num_choices`` (it answers the gold answer for about 70%
of the texts, chosen by a hash of the text, so some twins break), and then times, each in its own process:

- ``reader``: ``causal_suite.logs.LogReader`` over every sample (scores and metadata), the floor of every command;
- ``summaries`` (baseline): inspect's ``read_eval_log_sample_summaries``, its one linear public sample reader;
- ``frail pairs``, ``frail report`` (text protocol, tfidf_svd, one seed), ``causal-suite report``.

Counted per command: wall seconds and peak RSS of that process (``os.wait4``), and for the eval also ms per draw
and the log's size. The last column is the full/half ratio of wall seconds (the goal: <= 2.2, linear growth;
quadratic growth reads 4). The ``reader`` row also shows its ratio to the ``summaries`` baseline of the same log.

    .venv/bin/python benchmarks/log_scale.py --suite gsm [--limit N] [--data ../shared] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCES = {"gsm": "gsm8k/test.jsonl", "math": "hendrycks_math/test.jsonl"}
DRAWS = 5
CORRECT_SHARE = 7  # of 10: texts whose hash falls below it get the gold answer


def timed(argv: list[str], log: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one command run to completion; its output goes to ``log``."""
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed (exit {proc.returncode}); see {log}:\n{log.read_text()[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def bin_path(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def instant_model(corpus: Path, suite: str):
    """A mockllm model answering at once, ``num_choices`` choices per request: the gold answer for the texts whose
    sha256 falls in the first CORRECT_SHARE tenths, a wrong one for the others."""
    from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ModelOutput, ModelUsage, get_model

    from glass_inspect.corpus import read_pool

    gold = {r.text: r.answer for r in read_pool(corpus)}

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        problem = messages[-1].text.split("Problem:\n", 1)[-1]
        right = int(hashlib.sha256(problem.encode()).hexdigest(), 16) % 10 < CORRECT_SHARE
        answer = gold.get(problem, "") if right else "-987654"
        text = f"Working... ANSWER: {answer}" if suite == "gsm" else f"Working... ANSWER: \\boxed{{{answer}}}"
        n = config.num_choices or 1
        choices = [
            ChatCompletionChoice(message=ChatMessageAssistant(content=text, model="instant"), stop_reason="stop")
            for _ in range(n)
        ]
        return ModelOutput(
            model="mockllm/instant",
            choices=choices,
            usage=ModelUsage(input_tokens=1, output_tokens=n, total_tokens=1 + n),
        )

    return get_model("mockllm/instant", custom_outputs=reply, memoize=False)


def run_eval(suite: str, corpus: Path, log_dir: Path) -> None:
    """The eval of one corpus (run in a child process of this script, so its RSS is its own)."""
    from inspect_ai import eval

    from glass_inspect import task

    [log] = eval(
        getattr(task, f"glass{suite}")(corpus=str(corpus), layout="sample", draws=DRAWS),
        model=instant_model(corpus, suite),
        display="none",
        log_dir=str(log_dir),
        max_connections=64,
    )
    if log.status != "success":
        raise SystemExit(f"eval ended in {log.status}: {log.error}")


def read_all(mode: str, log: str) -> None:
    """Read every sample of ``log``: with the suite's reader, or inspect's sample summaries."""
    if mode == "reader":
        from causal_suite.logs import LogReader

        with LogReader(log) as reader:
            n = sum(len(s.scores) for s in reader.samples())
    else:
        from inspect_ai.log import read_eval_log_sample_summaries

        n = sum(len(s.scores or {}) for s in read_eval_log_sample_summaries(log))
    print(f"{mode}: {n} scores")


def measure(suite: str, limit: int, data: Path, work: Path) -> dict[str, tuple[float, float]]:
    """Every figure of one size: build, eval, then each downstream command."""
    work.mkdir(parents=True, exist_ok=True)
    corpus, logs, me = work / "corpus", work / "logs", [sys.executable, __file__]
    figures: dict[str, tuple[float, float]] = {}
    build = [bin_path("glass-build"), "--suite", suite, "--source", str(data / SOURCES[suite]), "--out", str(corpus)]
    figures["glass-build"] = timed([*build, "--limit", str(limit), "--force"], work / "build.txt")
    figures["eval"] = timed([*me, "_eval", suite, str(corpus), str(logs)], work / "eval.txt")
    [log] = [str(p) for p in logs.glob("*.eval")]
    figures["log MB"] = (Path(log).stat().st_size / 1e6, 0.0)
    figures["samples"] = (float(sum(1 for _ in _sample_names(log))), 0.0)
    for mode in ("reader", "summaries"):
        figures[mode] = timed([*me, "_read", mode, log], work / f"{mode}.txt")
    pairs = work / "pairs.jsonl"
    figures["frail pairs"] = timed([bin_path("frail"), "pairs", log, "--out", str(pairs)], work / "pairs.txt")
    frail_report = [bin_path("frail"), "report", "--pairs", str(pairs), "--featurizer", "tfidf_svd", "--seeds", "0"]
    figures["frail report"] = timed([*frail_report, "--quiet", "--out", str(work / "frail")], work / "frail.txt")
    suite_report = [bin_path("causal-suite"), "report", log, "--out", str(work / "report")]
    figures["causal-suite report"] = timed(suite_report, work / "report.txt")
    return figures


def _sample_names(log: str):
    import zipfile

    with zipfile.ZipFile(log) as archive:
        yield from (n for n in archive.namelist() if n.startswith("samples/"))


def table(suite: str, full: dict, half: dict, limit: int) -> None:
    samples = (full["samples"][0], half["samples"][0])
    print(f"\nlog scale, glass{suite}: {limit} bases (full) / {limit // 2} (half), layout=sample, {DRAWS} draws")
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"samples: {samples[0]:.0f} / {samples[1]:.0f}; log: {full['log MB'][0]:.1f} MB / {half['log MB'][0]:.1f} MB")
    print(f"{'command':<22}{'full s':>9}{'full MB':>9}{'half s':>9}{'half MB':>9}{'full/half':>10}")
    for name in ("glass-build", "eval", "reader", "summaries", "frail pairs", "frail report", "causal-suite report"):
        (fw, fm), (hw, hm) = full[name], half[name]
        print(f"{name:<22}{fw:>9.1f}{fm:>9.0f}{hw:>9.1f}{hm:>9.0f}{fw / hw:>10.2f}")
    for label, figures, n in (("full", full, samples[0]), ("half", half, samples[1])):
        print(f"eval ms per draw ({label}): {1000 * figures['eval'][0] / (n * DRAWS):.2f}")
    print(f"reader / summaries wall (full): {full['reader'][0] / full['summaries'][0]:.2f}")


def main() -> None:
    if sys.argv[1:2] == ["_eval"]:
        return run_eval(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    if sys.argv[1:2] == ["_read"]:
        return read_all(sys.argv[2], sys.argv[3])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=sorted(SOURCES), required=True)
    ap.add_argument("--limit", type=int, default=None, help="bases of the full run (default: the whole test set)")
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--keep", type=Path, default=None, help="keep the corpora, logs and outputs here")
    args = ap.parse_args()
    source = args.data / SOURCES[args.suite]
    limit = args.limit or sum(1 for line in source.open(encoding="utf-8") if line.strip())
    work = args.keep or Path(tempfile.mkdtemp(prefix="log_scale_"))
    try:
        half = measure(args.suite, limit // 2, args.data, work / "half")  # first: a failure shows early
        full = measure(args.suite, limit, args.data, work / "full")
        table(args.suite, full, half, limit)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
