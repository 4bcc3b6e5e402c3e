"""The first hour with the suite (issue 19, "Must show"): each first-hour case, run offline, one line each.

Each line says what happens now (measured by this run) and, where the issue recorded it, what happened before
(a fixed text quoted from issue 19). The runs use the ``scripted/<name>`` provider with replies written here (a
glass model that solves most bases and breaks on some twins, a CoBe judge that fails some checks, an Exp B model
whose R prints the canonical estimate, a multiple of it, an error or no code), small slices of the built-in data,
and, for the token-cap and cancel cases, the offline default model. Nothing reaches the network.

    .venv/bin/python benchmarks/first_hour.py                   # ~5 minutes on 2 cores
    .venv/bin/python benchmarks/first_hour.py --keep logs/first_hour --full   # whole glass/CoBe sets, kept logs

``--keep DIR`` keeps the scripted logs of every task (``DIR/logs``) and the report (``DIR/report``), e.g. for
``inspect view --log-dir DIR/logs``. Cases that need R and bubblewrap (exp_b) or the offline model say so and are
skipped where those are absent.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
EXP_B_FAMILIES = ("did", "es", "iv", "rdd")

BEFORE = {  # what issue 19 recorded, word for word where it quoted
    "exp_b default sandbox": 'no engine: "requires Docker Engine >= 24.0.6"; engine, no registry: a build failure '
    "naming a registry host; neither mentions -T sandbox=confined",
    "mockllm/model offline": "fails on every task that calls the model (tokenizer download); the README does not "
    "say so; the eval still exits 0",
    "offline exp_b token cap": "exp_b asks for 8,192 tokens per response; over 20 minutes on two samples",
    "offline cancel": "Ctrl-C and SIGTERM were ignored for over a minute",
    "viewer log list": "one unlabelled number: base_accuracy for glass, conditional_pass for exp_b; glass metric "
    "names carry a glass_inspect/ prefix",
    "inspect score LOG": "\"The scorer 'glass_match' couldn't be loaded\" (same for cobe_judge)",
    "eval-set, one -T sandbox": "\"Task 'glassgsm' has no parameter 'sandbox'\"",
    "log header": "epochs: 5 for a run with --epochs 2; sandbox: docker for a run with --sandbox confined",
    "exit status": "the eval still exits 0",
    "dict scores": "E0/E1/E2, L1...L2b+ arrive in samples_df as JSON strings",
    "inspect list tasks": "every task listed twice (a stale build/lib)",
    "llama.cpp cache line": "prints on every model load",
    "frail option help": "several frail options have no help text",
    "frail too little data": 'writes "No evaluation" and exits 0',
    "frail one seed": 'prints "± 0.000"',
    "frail pi scatter": "no ρ and no y = x line",
    "report figures": "no command turns eval logs into the papers' figures",
}


def line(case: str, now: str) -> None:
    before = BEFORE.get(case)
    print(f"{case:<26} now: {now}" + (f"  || before: {before}" if before else ""), flush=True)


def run(args: list[str], timeout: int = 600, **kwargs: Any) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)


def inspect_cli(*args: str, timeout: int = 600, **kwargs: Any) -> subprocess.CompletedProcess:
    return run([str(BIN / "inspect"), *args, "--display", "plain"], timeout=timeout, **kwargs)


def newest_log(folder: Path):
    from inspect_ai.log import read_eval_log

    logs = sorted(folder.glob("*.eval"), key=os.path.getmtime)
    return read_eval_log(str(logs[-1])) if logs else None


def has(*programs: str) -> bool:
    return all(shutil.which(p) for p in programs)


def unit(text: str) -> float:
    """A stable number in [0, 1) from a text (the scripted models' 'randomness')."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 16**8


# ------------------------------------------------------------------------------------------ scripted replies
def glass_replies(suite: str) -> dict[str, str]:
    """{problem text: reply} for every prompt of the built-in corpus: 75% of bases solved; a twin fails with a
    family- and dose-dependent chance (renaming 10%, reordering 20%, distractors 4% per sentence); identity twins
    repeat their base's text, so they answer as the base does. Longest texts first (a twin may hold its base)."""
    from glass_inspect.task import glassgsm, glassmath

    task = (glassgsm if suite == "gsm" else glassmath)()
    replies: dict[str, str] = {}
    for sample in task.dataset:
        meta, gold = sample.metadata or {}, str(sample.target)
        if meta.get("role") == "base" or meta.get("operator") == "identity":
            wrong = unit(str(meta.get("base_id"))) >= 0.75
        else:
            dose = max(meta.get("doses") or [1])
            p = {"entity_rename": 0.10, "sentence_reorder": 0.20}.get(meta.get("operator"), 0.04 * dose)
            wrong = unit(str(sample.id)) < p
        answer = f"{gold}1" if wrong else gold
        text = f"Step by step.\nANSWER: {answer}" if suite == "gsm" else f"So the result is \\boxed{{{answer}}}."
        replies.setdefault(str(sample.input), text)
    return dict(sorted(replies.items(), key=lambda kv: -len(kv[0])))


def exp_b_replies(ids: list[str]) -> dict[str, str]:
    """Per scenario (keyed by its CSV name), by position in its family: the canonical estimate (kinds 0, 1), 1.3x
    it (passes at tolerance 0.5, fails at 0.25), 3x it, an R error, or prose without code; a calibration reply
    per kind (keyed by a marker in the answer it rates, so listed first)."""
    from causalverify_inspect.dataset import exp_b_dataset

    confidence = {0: 0.85, 1: 0.85, 2: 0.7, 3: 0.6, 4: 0.35, 5: 0.15}
    replies = {
        f"kind-{k}-marker": json.dumps({"method": 0.8, "specification": 0.7, "estimate": c})
        for k, c in confidence.items()
    }
    seen: Counter[str] = Counter()
    for sample in exp_b_dataset(None, ids):
        meta = sample.metadata or {}
        kind = seen[meta["family"]] % 6
        seen[meta["family"]] += 1
        value = float(meta["canonical"]) * {2: 1.3, 3: 3.0}.get(kind, 1.0)
        code = {4: 'd <- read.csv("nope.csv")', 5: None}.get(kind, f'cat("Estimate:", {value:.6g}, "\\n")')
        body = f"```r\n# kind-{kind}-marker\n{code}\n```" if code else f"I would estimate it (kind-{kind}-marker)."
        replies[Path(meta["data_file"]).name] = (
            f"## 1. Identification strategy\nThe design.\n## 2. Code\n{body}\n## 3. Expected findings\nAn effect."
        )
    return replies


def write(path: Path, doc: Any) -> str:
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return str(path)


def scripted_logs(out: Path, full: bool) -> dict[str, Any]:
    """Scripted runs of every task under ``out`` (one folder per task); returns the logs by task."""
    from inspect_ai import eval
    from inspect_ai.model import GenerateConfig, get_model

    replies = out / "replies"
    replies.mkdir(parents=True, exist_ok=True)
    logs: dict[str, Any] = {}
    for suite in ("gsm", "math"):
        model = get_model(
            f"scripted/glass-{suite}", replies=write(replies / f"glass{suite}.yaml", glass_replies(suite))
        )
        [logs[f"glass{suite}"]] = eval(
            f"glass_inspect/glass{suite}",
            model=model,
            epochs=2,
            limit=None if full else 120,
            display="none",
            log_dir=str(out / "logs"),
        )
    grader_turns = ["F" if unit(f"judge{i}") < 0.2 else "T" for i in range(6000)]
    [logs["cobe"]] = eval(
        "cobe_inspect/cobe",
        model=get_model("scripted/respondent", replies=write(replies / "cobe.yaml", "A rewritten story.")),
        model_roles={
            "grader": get_model(
                "scripted/judge",
                replies=write(replies / "judge.yaml", grader_turns),
                config=GenerateConfig(temperature=0.0),
            )
        },
        limit=None if full else 24,
        task_args={"judge_cache": False},
        display="none",
        log_dir=str(out / "logs"),
    )
    [logs["exp_a"]] = eval(
        "causalverify_inspect/exp_a",
        model=get_model(
            "scripted/planner",
            replies=write(
                replies / "exp_a.yaml",
                {
                    "*": "## 1. Identification strategy\nA difference-in-differences design.\n## 6. Expected results\n"
                    "We expect a positive increase."
                },
            ),
        ),
        display="none",
        log_dir=str(out / "logs"),
    )
    if has("Rscript", "bwrap", "prlimit"):
        levels = ("easy", "medium") if full else ("easy",)
        ids = [f"{f}_{d}_{i:02d}" for f in EXP_B_FAMILIES for d in levels for i in range(1, 7)]
        ids = [i for i in ids if i in {s.id for s in _exp_b_ids()}]
        [logs["exp_b"]] = eval(
            "causalverify_inspect/exp_b",
            model=get_model("scripted/analyst", replies=write(replies / "exp_b.yaml", exp_b_replies(ids))),
            model_roles={
                "extractor": get_model(
                    "scripted/extractor",
                    replies=write(replies / "extractor.yaml", '{"effect": null, "rationale": "no single estimate"}'),
                )
            },
            task_args={"sandbox": "confined", "ids": ",".join(ids), "calibration": True},
            display="none",
            log_dir=str(out / "logs"),
        )
    return logs


def _exp_b_ids():
    from causalverify_inspect.dataset import exp_b_dataset

    return list(exp_b_dataset(None, None))


# ------------------------------------------------------------------------------------------------- the cases
def case_exp_b_default(tmp: Path) -> None:
    from causalverify_inspect.sandbox import choice, docker

    done = exp_b_cli(tmp / "expb_default", "scripted/fh", "--limit", "1")
    said_auto = next((ln for ln in done.stderr.splitlines() if ln.startswith("exp_b: sandbox auto")), "(no line)")
    log = newest_log(tmp / "expb_default")
    explicit = exp_b_cli(tmp / "expb_docker", "scripted/fh", "-T", "sandbox=docker", "--limit", "1")
    said = " ".join((explicit.stdout + explicit.stderr).split())
    found = re.search(r"exp_b: sandbox 'docker' cannot run here.*?-T sandbox=confined\.", said)
    refusal = found.group(0) if found else said[-220:]
    # an engine that answers but has no image and cannot build one (simulated: this machine has no engine)
    engine = docker.Engine(server="27.3.1", compose="2.29.7")
    with (
        mock.patch.object(docker, "probe_engine", return_value=engine),
        mock.patch.object(choice, "probe_engine", return_value=engine),
        mock.patch.object(docker, "image_present", return_value=False),
        mock.patch.object(choice, "image_present", return_value=False),
        mock.patch.object(docker, "image_buildable", return_value=False),
        mock.patch.object(choice, "image_buildable", return_value=False),
    ):
        auto = choice.choose_sandbox("auto")
        try:
            choice.choose_sandbox("docker")
            no_image = "(ran)"
        except Exception as exc:  # the one sentence
            no_image = str(exc)
    line(
        "exp_b default sandbox",
        f"no -T: exit {done.returncode}, status {log.status if log else '?'}, printed '{said_auto[:150]}...'; "
        f"-T sandbox=docker without engine: exit {explicit.returncode}, '{refusal}'; engine without image: "
        f"auto -> {auto.sandbox} ({auto.reason}), -T sandbox=docker -> '{no_image}' "
        f"[names -T sandbox=confined: {'-T sandbox=confined' in refusal and '-T sandbox=confined' in no_image}]",
    )


def exp_b_cli(log_dir: Path, model: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """``inspect eval causalverify_inspect/exp_b ARGS --model MODEL --log-dir LOG_DIR``."""
    return inspect_cli(
        "eval", "causalverify_inspect/exp_b", *args, "--model", model, "--log-dir", str(log_dir), timeout=timeout
    )


def mockllm_glass(command: str, log_dir: Path, *extra: str) -> Any:
    """``inspect <command>`` of one glassgsm sample, one draw, with inspect's mock model (offline: it fails)."""
    return inspect_cli(
        command,
        "glass_inspect/glassgsm",
        "--model",
        "mockllm/model",
        "--limit",
        "1",
        "--epochs",
        "1",
        *extra,
        "--log-dir",
        str(log_dir),
        timeout=300,
    )


def case_mockllm(tmp: Path) -> None:
    done = mockllm_glass("eval", tmp / "mock")
    log = newest_log(tmp / "mock")
    last = (log.error.message.strip().splitlines() or ["?"])[-1] if log and log.error else "-"
    error = last.split("(")[0] + (" while downloading its tokenizer" if "tiktoken" in last else "")  # no host names
    check = run([str(BIN / "causal-suite"), "check", str(tmp / "mock")])
    scripted = inspect_cli(
        "eval",
        "glass_inspect/glassgsm",
        "--model",
        "scripted/smoke",
        "--limit",
        "1",
        "--epochs",
        "1",
        "--log-dir",
        str(tmp / "smoke"),
    )
    readme = (
        "scripted/<name>" in (ROOT / "README.md").read_text() and "mockllm/model" in (ROOT / "README.md").read_text()
    )
    line(
        "mockllm/model offline",
        f"inspect eval exit {done.returncode}, log status {log.status if log else '?'} ({error}); "
        f"causal-suite check exit {check.returncode}; --model scripted/smoke: exit {scripted.returncode}, status "
        f"{newest_log(tmp / 'smoke').status}; README names mockllm's download and points to scripted/<name>: {readme}",
    )


def case_offline_cap(tmp: Path) -> None:
    if not has("Rscript", "bwrap", "prlimit"):
        return line("offline exp_b token cap", "skipped (needs R, bubblewrap)")
    start = time.perf_counter()
    done = exp_b_cli(
        tmp / "cap", "offline/gemma-3-270m", "-T", "sandbox=confined", "-T", "ids=did_easy_01", timeout=900
    )
    wall = time.perf_counter() - start
    log = newest_log(tmp / "cap")
    from inspect_ai.log import read_eval_log

    sample = read_eval_log(log.location).samples[0]
    usage = sample.output.usage
    meta = (sample.output.metadata or {}).get("max_tokens_capped", {})
    line(
        "offline exp_b token cap",
        f"exit {done.returncode}, one sample in {wall:.0f} s wall: {usage.output_tokens} output tokens "
        f"(asked {meta.get('asked')}, cap {meta.get('cap')}, stop reason {sample.output.stop_reason})",
    )


def case_offline_cancel(tmp: Path) -> None:
    if not has("Rscript", "bwrap", "prlimit"):
        return line("offline cancel", "skipped (needs R, bubblewrap)")
    results = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        folder = tmp / f"cancel_{sig.name}"
        proc = subprocess.Popen(
            [
                str(BIN / "inspect"),
                "eval",
                "causalverify_inspect/exp_b",
                "-T",
                "sandbox=confined",
                "-T",
                "ids=did_easy_02",
                "--model",
                "offline/gemma-3-270m",
                "--log-dir",
                str(folder),
                "--display",
                "plain",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 120
        while time.time() < deadline and not list(folder.glob("*.eval")):
            time.sleep(0.5)
        time.sleep(8)  # the model is generating now (a response takes far longer than this)
        sent = time.perf_counter()
        proc.send_signal(sig)
        try:
            proc.wait(timeout=120)
            results.append(
                f"{sig.name}: exited {time.perf_counter() - sent:.1f} s after the signal (rc {proc.returncode})"
            )
        except subprocess.TimeoutExpired:
            proc.kill()
            results.append(f"{sig.name}: still running 120 s after the signal")
    line("offline cancel", "; ".join(results) + " (mid-generation)")


def case_viewer(logs: dict[str, Any]) -> None:
    parts = []
    for task, log in logs.items():
        scores = log.results.scores if log.results else []
        first = next(iter(scores[0].metrics.values())) if scores else None
        names = [m.name for s in scores for m in s.metrics.values()]
        prefixed = sum("/" in n for n in names)
        parts.append(f"{task}: {first.name}={first.value:.3f}" + (f" ({prefixed} prefixed names)" if prefixed else ""))
    line("viewer log list", "first metric (what the log list shows), short names: " + "; ".join(parts))


def case_score(logs: dict[str, Any], tmp: Path) -> None:
    parts = []
    for task in ("glassgsm", "cobe"):
        path = logs[task].location
        target = tmp / f"{task}_inspect.eval"
        plain = run([str(BIN / "inspect"), "score", path, "--action", "overwrite", "--output-file", str(target)])
        said = next((ln.strip() for ln in (plain.stdout + plain.stderr).splitlines() if "couldn't" in ln), "")
        wrote = f"wrote {target.name}" if target.exists() else said[:70]
        ours = run([str(BIN / "causal-suite"), "score", path, "--out", str(tmp / f"{task}_rescored.eval")])
        parts.append(
            f"{task}: inspect score exit {plain.returncode} ({wrote}), causal-suite score exit "
            f"{ours.returncode} ('{ours.stdout.strip()[:60]}...')"
        )
    line("inspect score LOG", "; ".join(parts))


def case_eval_set(tmp: Path, replies: Path) -> None:
    if not has("Rscript", "bwrap", "prlimit"):
        return line("eval-set, one -T sandbox", "skipped (needs R, bubblewrap)")
    done = inspect_cli(
        "eval-set",
        "glass_inspect/glassgsm",
        "causalverify_inspect/exp_b",
        "-T",
        "sandbox=confined",
        "-T",
        "ids=did_easy_01",
        "--model",
        "scripted/fh",
        "-M",
        f"replies={replies}",
        "--limit",
        "2",
        "--epochs",
        "1",
        "--retry-attempts",
        "0",
        "--log-dir",
        str(tmp / "evalset"),
    )
    said = re.sub(r"\s*errors\.py:\d+\s*", " ", " ".join((done.stdout + done.stderr).split()))
    found = re.search(r"Task 'glassgsm' has no parameter\s+'sandbox'[^.]*\.", said)
    warned = " ".join(found.group(0).split()) if found else "(no warning)"
    from inspect_ai.log import read_eval_log

    headers = [read_eval_log(str(p), header_only=True) for p in (tmp / "evalset").glob("*.eval")]
    statuses = sorted(f"{h.eval.task.split('/')[-1]}={h.status}" for h in headers)
    line("eval-set, one -T sandbox", f"exit {done.returncode}, {', '.join(statuses)}; warning: '{warned[:110]}'")


def case_header(tmp: Path, glass_replies_file: Path, expb_replies_file: Path) -> None:
    done = inspect_cli(
        "eval",
        "glass_inspect/glassgsm",
        "--model",
        "scripted/fh",
        "-M",
        f"replies={glass_replies_file}",
        "--limit",
        "3",
        "--epochs",
        "2",
        "--log-dir",
        str(tmp / "hdr"),
    )
    from inspect_ai.log import read_eval_log

    log = newest_log(tmp / "hdr")
    epochs_arg = log.eval.task_args.get("epochs", "absent")
    ran = len({(s.id, s.epoch) for s in read_eval_log(log.location).samples})
    text = (
        f"glassgsm --epochs 2: exit {done.returncode}, eval config epochs {log.eval.config.epochs}, task arg "
        f"epochs {epochs_arg}, {ran} (sample, epoch) runs of 3 samples"
    )
    if has("Rscript", "bwrap", "prlimit"):
        exp_b_cli(tmp / "hdr_b", "scripted/fh", "-T", "sandbox=confined", "-T", "ids=did_easy_01")
        ok = newest_log(tmp / "hdr_b")
        exp_b_cli(
            tmp / "hdr_local",
            "scripted/fh",
            "-T",
            "ids=did_easy_01",
            "--sandbox",
            "local",
            "-M",
            f"replies={expb_replies_file}",
        )
        local = newest_log(tmp / "hdr_local")
        message = (local.error.message.splitlines() or [""])[-1] if local.error else "(no error)"
        text += (
            f"; exp_b -T sandbox=confined: header sandbox {ok.eval.sandbox.type}, metadata sandbox "
            f"{ok.eval.metadata['sandbox']}; exp_b --sandbox local: status {local.status}, header sandbox "
            f"{local.eval.sandbox.type}, '{message[:200]}'"
        )
    line("log header", text)


def case_exit(tmp: Path) -> None:
    done = mockllm_glass("eval-set", tmp / "exit_set", "--retry-attempts", "0")
    debug = mockllm_glass("eval", tmp / "exit_debug", "--debug-errors")
    line(
        "exit status",
        f"task ended in error: inspect eval exit 0 (inspect's CLI returns success whatever the status; hooks cannot "
        f"change it), causal-suite check exit 1 (see 'mockllm/model offline'); inspect eval-set exit "
        f"{done.returncode}; inspect eval --debug-errors exit {debug.returncode}",
    )


def case_dict_scores(logs: dict[str, Any]) -> None:
    from inspect_ai.analysis import samples_df

    from causal_suite.frames import expand_scores

    parts = []
    for task in ("cobe", "exp_b"):
        if task not in logs:
            continue
        raw = samples_df(logs[task].location, quiet=True)
        col = next(c for c in raw.columns if c.startswith("score_"))
        wide = expand_scores(raw)
        new = [c for c in wide.columns if c.startswith(col + "_")]
        parts.append(
            f"{task}: {col} is {type(raw[col].iloc[0]).__name__} -> {len(new)} numeric columns "
            f"({', '.join(c.removeprefix(col + '_') for c in new[:4])}...; dtype {wide[new[0]].dtype})"
        )
    line("dict scores", "expand_scores(samples_df(log)): " + "; ".join(parts))


def case_list_tasks() -> None:
    done = run([str(BIN / "inspect"), "list", "tasks"], cwd=ROOT)
    names = [
        ln.strip() for ln in done.stdout.splitlines() if "/" in ln or ln.strip().startswith(("cobe", "glass", "exp"))
    ]
    counts = Counter(names)
    line(
        "inspect list tasks",
        f"exit {done.returncode}, {len(counts)} tasks, each listed "
        f"{'once' if counts and max(counts.values()) == 1 else 'more than once'}; build/ present: "
        f"{(ROOT / 'build').exists()}",
    )


def case_llama() -> None:
    code = "from inspect_ai.model import get_model\nget_model('offline/gemma-3-270m')\nget_model('offline/gemma-3-270m', memoize=False)\n"
    done = run([sys.executable, "-c", code], timeout=300)
    lines = [ln for ln in done.stderr.splitlines() if "llama" in ln.lower() or "cache" in ln.lower()]
    line(
        "llama.cpp cache line", f"two model loads: exit {done.returncode}, {len(lines)} llama.cpp lines on the console"
    )


def case_frail(tmp: Path, glass_log: Any) -> None:
    import matplotlib.figure

    from frail.cli import build_parser
    from frail.cli import main as frail_main
    from frail.pairs import write_pairs
    from frail.synth import generate_bernoulli

    missing = []
    for action in build_parser()._subparsers._group_actions[0].choices.items():  # every subcommand's options
        name, sub = action
        missing += [f"{name} {a.option_strings[0]}" for a in sub._actions if a.option_strings and not a.help]
    line(
        "frail option help",
        f"options without help text: {len(missing)}" + (f" ({', '.join(missing)})" if missing else ""),
    )

    pairs = tmp / "glass_pairs.jsonl"
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        frail_main(["pairs", glass_log.location, "--out", str(tmp / "all_pairs.jsonl")])
        rows = [json.loads(r) for r in (tmp / "all_pairs.jsonl").read_text().splitlines() if r.strip()]
        first = list(dict.fromkeys(r["base_id"] for r in rows))[:6]  # a small slice: six base problems
        pairs.write_text("".join(json.dumps(r) + "\n" for r in rows if r["base_id"] in first), encoding="utf-8")
        code = frail_main(
            ["report", "--pairs", str(pairs), "--seeds", "0", "--out", str(tmp / "frail_small"), "--quiet"]
        )
    summary = json.loads((tmp / "frail_small" / "summary.json").read_text())
    line(
        "frail too little data",
        f"frail report on {sum(1 for _ in pairs.open())} pairs (six bases of the scripted glass log): "
        f"exit {code}, status {summary.get('status')} ('{summary.get('message', '')[:70]}')",
    )

    rows, _ = generate_bernoulli(80, twins_per_dose=2, seed=5)
    synth = tmp / "synth.jsonl"
    write_pairs(synth, rows)
    saved: list[tuple[str, str, list[str]]] = []
    original = matplotlib.figure.Figure.savefig

    def spy(fig, fname, *args, **kwargs):
        ax = fig.axes[0]
        saved.append((Path(str(fname)).name, ax.get_title(), [ln.get_label() for ln in ax.get_lines()]))
        return original(fig, fname, *args, **kwargs)

    with mock.patch.object(matplotlib.figure.Figure, "savefig", spy), contextlib.redirect_stdout(quiet):
        code = frail_main(
            [
                "report",
                "--pairs",
                str(synth),
                "--featurizer",
                "hashing",
                "--seeds",
                "0",
                "--out",
                str(tmp / "frail_one"),
                "--max-epochs",
                "15",
                "--quiet",
            ]
        )
    report = (tmp / "frail_one" / "report.md").read_text()
    one = re.search(r"\d\.\d{3} \(one seed\)", report)
    line(
        "frail one seed",
        f"exit {code}; report.md shows '{one.group(0) if one else '-'}', '± 0.000' present: {'± 0.000' in report}",
    )
    scatter = next((s for s in saved if s[0] == "pi_scatter.png"), None)
    line("frail pi scatter", f"pi_scatter.png title '{scatter[1]}', lines {scatter[2]}" if scatter else "no scatter")


def case_report(logs_dir: Path, out: Path) -> None:
    from causal_suite.report import build_report

    figures = build_report([str(logs_dir)], out)
    pngs = sorted(p.name for p in out.glob("*.png"))
    line(
        "report figures",
        f"causal-suite report over the scripted logs of every task: {len(pngs)} PNG figures "
        f"({', '.join(pngs)}) + CSVs + report.md; figures with no data: "
        f"{[n for n, f in figures.items() if f.data.empty] or 'none'}",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="keep the scripted logs (DIR/logs) and the report (DIR/report) here")
    ap.add_argument(
        "--full", action="store_true", help="whole built-in glass and CoBe sets, 12 Exp B scenarios a family"
    )
    args = ap.parse_args()
    logging.getLogger().setLevel(logging.ERROR)
    print(
        f"# machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}; R: {has('Rscript')}, bubblewrap: "
        f"{has('bwrap')}; every model call offline (scripted/<name>, offline/gemma-3-270m)",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        keep = args.keep.resolve() if args.keep else tmp / "kept"
        if keep.exists():
            shutil.rmtree(keep)
        start = time.perf_counter()
        quiet = io.StringIO()
        with contextlib.redirect_stderr(quiet):
            logs = scripted_logs(keep, args.full)
        print(
            f"# scripted runs of {', '.join(logs)} in {time.perf_counter() - start:.0f} s (logs: {keep / 'logs'})",
            flush=True,
        )
        glass_file = keep / "replies" / "glassgsm.yaml"
        expb_file = keep / "replies" / "exp_b.yaml"
        case_exp_b_default(tmp)
        case_mockllm(tmp)
        case_offline_cap(tmp)
        case_offline_cancel(tmp)
        case_viewer(logs)
        case_score(logs, tmp)
        case_eval_set(tmp, expb_file)
        case_header(tmp, glass_file, expb_file)
        case_exit(tmp)
        case_dict_scores(logs)
        case_list_tasks()
        case_llama()
        case_frail(tmp, logs["glassgsm"])
        case_report(keep / "logs", keep / "report")
        print(f"# total {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
