"""Log scale (issue 27): what reading a full GlassGSM / GlassMATH log costs each downstream command, full size beside
half size.

For one suite, builds two corpora with ``glass-build`` from the shared data (``--limit`` bases and half as many:
by default the whole test set, 1,319 GSM8K / 5,000 MATH problems), runs each through ``glass<suite>`` with
``-T layout=sample`` and an instant model that honours ``num_choices`` (it answers the gold answer for about 70%
of the texts, chosen by a hash of the text, so some twins break), and then times, each in its own process:

- ``reader``: ``causal_suite.logs.LogReader`` over every sample (scores and metadata), the floor of every command;
- ``summaries`` (baseline): inspect's ``read_eval_log_sample_summaries``, its one linear public sample reader;
- ``frail pairs``, ``frail report`` (text protocol, tfidf_svd, one seed), ``causal-suite report``,
  ``causal-suite compare`` (the log and a copy of it), ``causal-suite check`` and ``causal-suite score``.

Counted per command: wall seconds and peak RSS of that process (``os.wait4``), and for the eval also ms per draw
and the log's size. The last column is the full/half ratio of wall seconds (the goal: <= 2.2, linear growth;
quadratic growth reads 4). The ``reader`` row also shows its ratio to the ``summaries`` baseline of the same log.

The eval runs with inspect's live-view features off (``EVAL_OPTIONS``). Each figure is saved under ``--keep`` as
it is measured, so the two sizes can run as two processes (``--only full`` / ``--only half``, then ``--table``)
and a stopped run resumes. ``--from-log LOG --copies K`` measures the downstream commands without an eval, on K
copies of a small real log and on K/2 (``log_replicate``), when the eval of a full corpus cannot run in the time
there is (about 15 ms of CPU per sample on this machine: hours for GlassMATH on a loaded 2-core machine).

    .venv/bin/python benchmarks/log_scale.py --suite gsm [--limit N] [--data ../shared/data] [--keep DIR]
    .venv/bin/python benchmarks/log_scale.py --suite math --from-log SMALL.eval --copies 52 --keep DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

SOURCES = {"gsm": "gsm8k/test.jsonl", "math": "hendrycks_math/test.jsonl"}
DRAWS = 5
CORRECT_SHARE = 7  # of 10: texts whose hash falls below it get the gold answer
# inspect's live-view features, off as in any headless run at scale (``--no-log-realtime --no-score-display``): the
# realtime sample buffer (a sqlite database of every event, for ``inspect view`` during the run) and the metrics
# recomputed over all samples so far for the progress display. They change no score or log content; on a 2,565-sample
# GlassMATH slice they take about half of the eval's time (README of this folder).
EVAL_OPTIONS = {"log_realtime": False, "score_display": False}


def timed(argv: list[str], log: Path) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds: user + system) of one command run to completion; its output goes
    to ``log``. On a loaded machine the CPU seconds are the steadier figure."""
    with log.open("w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed (exit {proc.returncode}); see {log}:\n{log.read_text()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


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
        **EVAL_OPTIONS,
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


def measure(work: Path, making: dict[str, list[str]], commands: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """Every figure of one size: the steps ``making`` the log (build and eval, or the copies of a small log), then
    each downstream command of ``commands``. Each figure is saved to ``figures.json`` in ``work`` as it is
    measured, and one found there is not measured again: a run that stopped resumes where it stopped, and a size
    measured by ``--only`` is read back by the run that prints the table."""
    (work / "logs").mkdir(parents=True, exist_ok=True)
    saved = work / "figures.json"
    figures: dict[str, tuple[float, float]] = json.loads(saved.read_text()) if saved.exists() else {}
    steps = dict(making)
    for command in (*making, *commands):
        if command not in figures:
            if command not in steps:  # the log exists from here on
                steps |= downstream_commands(_the_log(work / "logs"), work)
            figures[command] = timed(steps[command], work / f"{command.replace(' ', '_')}.txt")
            saved.write_text(json.dumps(figures, indent=1))
    log = _the_log(work / "logs")
    figures["log MB"] = (Path(log).stat().st_size / 1e6, 0.0)
    figures["samples"] = (float(sum(1 for _ in _sample_names(log))), 0.0)
    saved.write_text(json.dumps(figures, indent=1))
    return figures


def eval_steps(suite: str, limit: int, data: Path, work: Path) -> dict[str, list[str]]:
    """Build ``limit`` bases of the suite's corpus and run the eval on it."""
    corpus, source = work / "corpus", data / SOURCES[suite]
    build = [bin_path("glass-build"), "--suite", suite, "--source", str(source), "--out", str(corpus), "--limit"]
    return {
        "glass-build": [*build, str(limit), "--force"],
        "eval": [sys.executable, __file__, "_eval", suite, str(corpus), str(work / "logs")],
    }


def copy_steps(source: Path, copies: int, work: Path) -> dict[str, list[str]]:
    """``copies`` copies of a small log's samples as the log (``log_replicate``: no eval figure)."""
    out = work / "logs" / f"copies{copies}_{source.name}"
    return {
        "copies": [
            sys.executable,
            str(Path(__file__).with_name("log_replicate.py")),
            str(source),
            str(out),
            "--copies",
            str(copies),
        ]
    }


def _the_log(logs: Path) -> str:
    [log] = [str(p) for p in logs.glob("*.eval")]
    return log


def downstream_commands(log: str, work: Path) -> dict[str, list[str]]:
    """Each command timed on the eval's log, in order (``frail report`` reads what ``frail pairs`` wrote;
    ``compare`` pairs the log with a copy of itself: what it costs is reading and pairing two logs, the same for
    any two logs of that size, and a second eval would double the long pole)."""
    me, pairs, twin = [sys.executable, __file__], work / "pairs.jsonl", work / "copy" / Path(log).name
    twin.parent.mkdir(exist_ok=True)
    shutil.copyfile(log, twin)
    suite_cli = bin_path("causal-suite")
    frail_report = [bin_path("frail"), "report", "--pairs", str(pairs), "--featurizer", "tfidf_svd", "--seeds", "0"]
    return {
        "reader": [*me, "_read", "reader", log],
        "summaries": [*me, "_read", "summaries", log],
        "frail pairs": [bin_path("frail"), "pairs", log, "--out", str(pairs)],
        "frail report": [*frail_report, "--quiet", "--out", str(work / "frail")],
        "causal-suite report": [suite_cli, "report", log, "--out", str(work / "report")],
        "causal-suite compare": [suite_cli, "compare", log, str(twin), "--out", str(work / "compare")],
        "causal-suite check": [suite_cli, "check", log],
        "causal-suite score": [suite_cli, "score", log, "--out", str(work / "rescored.eval")],
    }


def _sample_names(log: str) -> Iterator[str]:
    import zipfile

    with zipfile.ZipFile(log) as archive:
        yield from (n for n in archive.namelist() if n.startswith("samples/"))


DOWNSTREAM = (
    "reader",
    "summaries",
    "frail pairs",
    "frail report",
    "causal-suite report",
    "causal-suite compare",
    "causal-suite check",
    "causal-suite score",
)
COMMANDS = ("glass-build", "eval", *DOWNSTREAM)
CELL_FORMATS = (".1f", ".1f", ".0f", ".1f", ".1f", ".0f", ".2f", ".2f")  # the table's columns after the name


def table(title: str, full: dict, half: dict) -> None:
    samples = (full["samples"][0], half["samples"][0])
    print(f"\nlog scale, {title}, layout=sample, {DRAWS} draws")
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"samples: {samples[0]:.0f} / {samples[1]:.0f}; log: {full['log MB'][0]:.1f} MB / {half['log MB'][0]:.1f} MB")
    columns = ("full s", "full cpu", "full MB", "half s", "half cpu", "half MB", "full/half", "cpu ratio")
    print(f"{'command':<22}" + "".join(f"{c:>10}" for c in columns))
    for name in ("copies", *COMMANDS):
        if name in full and name in half:
            (fw, fm, fc), (hw, hm, hc) = (_with_cpu(full[name]), _with_cpu(half[name]))
            cells = (fw, fc, fm, hw, hc, hm, fw / hw, fc / hc if hc else float("nan"))
            print(f"{name:<22}" + "".join(f"{v:>10{f}}" for v, f in zip(cells, CELL_FORMATS, strict=True)))
    if "eval" in full and "eval" in half:
        for label, figures, n in (("full", full, samples[0]), ("half", half, samples[1])):
            wall, _, cpu = _with_cpu(figures["eval"])
            print(
                f"eval ms per draw ({label}): {1000 * wall / (n * DRAWS):.2f} wall, {1000 * cpu / (n * DRAWS):.2f} CPU"
            )
    if "reader" in full and "summaries" in full:
        print(f"reader / summaries wall (full): {full['reader'][0] / full['summaries'][0]:.2f}")


def _with_cpu(figure: tuple) -> tuple[float, float, float]:
    """(wall, MB, CPU) of a saved figure; CPU NaN for a figure saved without it."""
    return (figure[0], figure[1], figure[2] if len(figure) > 2 else float("nan"))


def saved_figures(folder: Path) -> dict | None:
    """The figures a run with ``--only`` saved for one size (None: none)."""
    saved = folder / "figures.json"
    return {k: tuple(v) for k, v in json.loads(saved.read_text()).items()} if saved.exists() else None


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=sorted(SOURCES), required=True)
    ap.add_argument("--limit", type=int, default=None, help="bases of the full run (default: the whole test set)")
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--keep", type=Path, default=None, help="keep the corpora, logs and outputs here")
    ap.add_argument("--only", choices=("full", "half"), default=None, help="measure one size (needs --keep)")
    ap.add_argument("--table", action="store_true", help="measure nothing: print the table of the sizes in --keep")
    ap.add_argument("--from-log", type=Path, default=None, help="no eval: the full log is --copies copies of this one")
    ap.add_argument("--copies", type=int, default=2, help="with --from-log: copies in the full log (half: half)")
    ap.add_argument("--commands", default=",".join(DOWNSTREAM), help="downstream commands to time, comma-separated")
    args = ap.parse_args()
    if (args.only or args.table) and args.keep is None:
        ap.error("--only and --table need --keep (the folder the figures are saved in)")
    unknown = set(args.commands.split(",")) - set(DOWNSTREAM)
    if unknown:
        ap.error(f"--commands: unknown {sorted(unknown)}; known: {', '.join(DOWNSTREAM)}")
    return args


def main() -> None:
    if sys.argv[1:2] == ["_eval"]:
        return run_eval(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    if sys.argv[1:2] == ["_read"]:
        return read_all(sys.argv[2], sys.argv[3])
    args = arguments()
    commands = tuple(c for c in DOWNSTREAM if c in args.commands.split(","))
    work = args.keep or Path(tempfile.mkdtemp(prefix="log_scale_"))
    if args.from_log is None:
        source = args.data / SOURCES[args.suite]
        limit = args.limit or sum(1 for line in source.open(encoding="utf-8") if line.strip())
        sizes = {"full": limit, "half": limit // 2}
        title = f"glass{args.suite}: {limit} bases (full) / {limit // 2} (half)"
    else:
        sizes = {"full": args.copies, "half": args.copies // 2}
        title = f"glass{args.suite}: {args.copies} / {args.copies // 2} copies of {args.from_log.name} (no eval)"
    try:
        figures = {}
        for size in ("half", "full"):  # half first: a failure shows early
            if args.table or args.only not in (None, size):
                figures[size] = saved_figures(work / size)
                continue
            making = (
                eval_steps(args.suite, sizes[size], args.data, work / size)
                if args.from_log is None
                else copy_steps(args.from_log.resolve(), sizes[size], work / size)
            )
            figures[size] = measure(work / size, making, commands)
        if figures["full"] is not None and figures["half"] is not None:
            table(title, figures["full"], figures["half"])
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
