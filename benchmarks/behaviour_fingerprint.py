"""Fingerprint of the suite's observable outputs, to show that a refactor changed nothing.

    .venv/bin/python benchmarks/behaviour_fingerprint.py [--out FILE.json]

Run it before and after a change (after ``bash scripts/setup.sh`` each time) and compare the two JSON files:
every value must be equal. It uses only the public entry points, which a restructure keeps: the ``glass-build``
and ``causal-suite`` console scripts, the registered inspect task names, ``frail.cli.main``, ``frail.estimands``,
``glass_inspect.corpus.builtin.default_corpus`` (whose pool gives the scripted solver its gold answers) and
``causalverify_inspect.dataset.exp_b_dataset`` (the canonical estimates the scripted analyst prints multiples of).

What is fingerprinted (offline, deterministic, fixed seeds):

* **corpus bytes**: ``glass-build`` on the built-in GSM and MATH problems (copied to a fixed temporary path, so the
  recorded source path is the same) at seeds 0 and 7, the sha256 of every file written; ``glass-build
  export-pairs`` of dose 5; the built-in corpus the tasks build on first use (pool and manifests);
* **scores with scripted models**: ``glass_inspect/glassgsm`` and ``glassmath`` on the built-in corpus, every
  sample, 5 epochs, a scripted solver whose reply depends on the problem text and the per-draw seed (right,
  wrong or no answer); ``glass_inspect/noop_audit`` with a scripted adjudicator and ``glass-build audit`` on its
  log; ``cobe_inspect/cobe`` (tiers 1 and 4) with a scripted model and grader. For each: the metrics and a
  sha256 over the per-sample reduced scores (id, value, answer) and the sample metadata;
* **Frail**: ``frail pairs`` from the glassgsm log (sha256 of the pairs file), the job targets of
  ``frail.estimands`` over it (mean π, fragile count, mean a and b), and ``frail synth`` (sha256);
* **CausalVerify**: ``causalverify_inspect/exp_b`` on a stratified subset of 24 built-in scenarios, real R in the
  confined sandbox, with the calibration arm and a scripted extractor; the analyst's R prints the canonical
  estimate, a multiple of it, an error, two disagreeing answer lines or bare numbers, or there is no code
  (``EXP_B_KINDS``); the same log re-scored by ``causal-suite score``; ``causalverify_inspect/exp_a`` on the
  built-in contexts.
  Without Rscript, bwrap and prlimit the exp_b entries say "skipped" (compare only runs that both ran it).

The log files themselves carry run ids and times, so they are not hashed whole. The work folder is one fixed
temporary path (the corpora record their source path); runs from several checkouts wait for each other on a lock
beside it.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.metadata
import json
import math
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

import glass_inspect
from glass_inspect.corpus.builtin import default_corpus

PARTS = ("glass", "cobe", "causalverify")


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _h(text: str) -> int:
    return int(_sha(text)[:12], 16)


def tree_digest(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """sha256 of each file under ``root`` (relative posix path -> digest), sorted."""
    return {
        p.relative_to(root).as_posix(): _sha(p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in skip
    }


def console_script(name: str, argv: list[str]) -> int:
    [entry] = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == name]
    return entry.load()(argv)


def glass_build(argv: list[str]) -> int:
    return console_script("glass-build", argv)


def causal_suite(argv: list[str]) -> int:
    return console_script("causal-suite", argv)


def builtin_file(suite: str) -> Path:
    [path] = sorted(Path(glass_inspect.__file__).parent.rglob(f"{suite}_builtin.jsonl"))
    return path


def scripted(name: str, reply) -> Any:
    """A mockllm model whose reply is ``reply(prompt, config)``; usage filled so nothing is downloaded."""

    def outputs(messages, tools, tool_choice, config: GenerateConfig) -> ModelOutput:
        out = ModelOutput.from_content(
            model=f"mockllm/{name}", content=reply("\n".join(m.text for m in messages), config)
        )
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model(f"mockllm/{name}", custom_outputs=outputs, memoize=False)


def _clean(value: Any) -> Any:
    """Metric values as JSON (NaN -> "nan"), rounded to 12 digits so float printing is not an issue."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in sorted(value.items())}
    if isinstance(value, float):
        return "nan" if math.isnan(value) else round(value, 12)
    return value


def log_fingerprint(log: Any) -> dict[str, Any]:
    assert log.status == "success", log.error
    metrics = {f"{s.name}/{k}": _clean(m.value) for s in log.results.scores for k, m in s.metrics.items()}
    reduced = sorted(
        (str(r.sample_id), _clean(r.value), r.answer) for red in (log.reductions or []) for r in red.samples
    )
    meta = sorted((str(s.id), s.epoch, json.dumps(s.metadata, sort_keys=True, default=str)) for s in log.samples)
    per_draw = sorted(
        (
            str(s.id),
            s.epoch,
            json.dumps({k: _clean(v.value) for k, v in (s.scores or {}).items()}, sort_keys=True),
            s.output.completion,
        )
        for s in log.samples
    )
    return {
        "samples": len({s.id for s in log.samples}),
        "draws": len(log.samples),
        "metrics": metrics,
        "reduced_sha256": _sha(json.dumps(reduced)),
        "metadata_sha256": _sha(json.dumps(meta)),
        "draws_sha256": _sha(json.dumps(per_draw)),
        "task_args": _clean(dict(log.eval.task_args)),
    }


def glass_solver_reply(gold: dict[str, str], suite: str):
    def reply(prompt: str, config: GenerateConfig) -> str:
        problem = prompt.split("Problem:\n", 1)[1]
        skill = _h(problem) % 3  # 40 %, 70 % or 100 % of draws right, by problem
        r = _h(f"{problem}|{config.seed}") % 10
        if r < 4 + 3 * skill:
            answer = gold[problem]
        elif r == 9:
            return "I cannot tell."
        else:
            answer = "99991" if r % 2 else "12"
        return "Working...\nANSWER: " + (answer if suite == "gsm" else "\\boxed{" + answer + "}")

    return reply


def adjudicator_reply(prompt: str, config: GenerateConfig) -> str:
    r = _h(prompt) % 7
    return "no idea" if r == 0 else "VERDICT: CHANGES" if r == 1 else "Fine.\nVERDICT: PRESERVES"


def cobe_model_reply(prompt: str, config: GenerateConfig) -> str:
    return f"Plan {_sha(prompt)[:10]}.\nRewritten story: A changed story {_sha(prompt)[10:16]}."


def cobe_grader_reply(prompt: str, config: GenerateConfig) -> str:
    r = _h(prompt) % 6
    return "F" if r == 0 else "Maybe." if r == 1 else "T"


EXP_B_KINDS = 8
"""What the scripted analyst's R prints, by a hash of the scenario's CSV name: the canonical estimate, 1.3x it
(inside the default tolerance), 3x it, 100x it (a scale miss), an R error, no code, two answer lines that disagree
(the reader abstains), bare numbers without an answer line."""


def exp_b_code(kind: int, canonical: float) -> str | None:
    value = canonical * {1: 1.3, 2: 3.0, 3: 100.0}.get(kind, 1.0)
    return {
        4: 'd <- read.csv("nope.csv")',
        5: None,
        6: f'cat("Estimate:", {value:.6g}, "\\n")\ncat("Estimate:", {2 * value:.6g}, "\\n")',
        7: f'cat({value:.6g}, {3 * value:.6g}, {0.5 * value:.6g}, "\\n")',
    }.get(kind, f'cat("Estimate:", {value:.6g}, "\\n")')


def causalverify_model_reply(canonical: dict[str, float]):
    """The analyst of exp_b (R per ``EXP_B_KINDS``; a calibration rating, unparseable for a quarter of the
    samples) and the planner of exp_a (a design and a direction by a hash of the prompt)."""

    def reply(prompt: str, config: GenerateConfig) -> str:
        r = _h(prompt)
        if "Give three probabilities" in prompt:
            rating = {"method": 0.8, "specification": (r % 5) / 5, "estimate": (r % 7) / 7}
            return "I am not sure." if r % 4 == 0 else json.dumps(rating)
        if "Write a research plan" in prompt:
            designs = ("difference-in-differences", "event study", "instrumental variables", "regression discontinuity")
            design, direction = (*designs, "descriptive")[r % 5], ("positive", "negative", "unclear")[r % 3]
            return f"## 1. Identification strategy\nA {design} design.\n## 6. Expected results\n{direction}"
        [data_file] = re.findall(r"CSV path \(relative to the working directory\): (\S+)", prompt)
        kind = _h(data_file) % EXP_B_KINDS
        code = exp_b_code(kind, canonical[data_file])
        body = f"```r\n# kind-{kind}\n{code}\n```" if code else "I would estimate it with a regression."
        return f"## 1. Identification strategy\nThe design.\n## 2. R code\n{body}\n## 3. Expected findings\nAn effect."

    return reply


EXTRACTOR_REPLIES = {  # by the kind marker in the R code the extractor is shown: a number, not a number, none
    "# kind-6": '{"effect": 1.5, "rationale": "the first answer line"}',
    "# kind-7": "I cannot tell.",
    "*": '{"effect": null, "rationale": "no single estimate"}',
}
"""The extractor's replies. It is the suite's ``scripted`` provider, not a mockllm model: ``causal-suite score``
binds the log's model roles again, and a mockllm model made from its name alone downloads a tokenizer."""


def run(work: Path, parts: tuple[str, ...] = PARTS) -> dict[str, Any]:
    result: dict[str, Any] = {"corpus": {}, "eval": {}, "frail": {}}
    logs = work / "logs"
    if "causalverify" in parts:
        run_causalverify(work, logs, result)
    if "cobe" in parts:
        run_cobe(logs, result)
    if "glass" in parts:
        run_glass(work, logs, result)
    return {k: v for k, v in result.items() if v}


def run_causalverify(work: Path, logs: Path, result: dict[str, Any]) -> None:
    """exp_b on a stratified subset of the built-in scenarios, with real R in the confined sandbox, the calibration
    arm and a scripted extractor; the same log re-scored by ``causal-suite score`` (which binds the log's extractor
    again); exp_a."""
    from causalverify_inspect.dataset import exp_b_dataset

    if not all(shutil.which(p) for p in ("Rscript", "bwrap", "prlimit")):
        result["eval"]["exp_b"] = "skipped: exp_b needs Rscript, bwrap and prlimit"
    else:
        canonical = {s.metadata["data_file"]: float(s.metadata["canonical"]) for s in exp_b_dataset(None, None)}
        replies = work / "extractor.json"
        work.mkdir(parents=True, exist_ok=True)
        replies.write_text(json.dumps(EXTRACTOR_REPLIES), encoding="utf-8")
        [log] = inspect_eval(
            "causalverify_inspect/exp_b",
            model=scripted("analyst", causalverify_model_reply(canonical)),
            model_roles={"extractor": get_model("scripted/extractor", replies=str(replies))},
            task_args={"sandbox": "confined", "subset": 24, "calibration": True, "timeout": 30},
            display="none",
            log_dir=str(logs),
        )
        result["eval"]["exp_b"] = log_fingerprint(log)
        rescored = work / "exp_b-rescored.eval"
        assert causal_suite(["score", log.location, "--out", str(rescored)]) == 0
        result["eval"]["exp_b-rescored"] = log_fingerprint(read_eval_log(str(rescored)))
    [log] = inspect_eval(
        "causalverify_inspect/exp_a",
        model=scripted("planner", causalverify_model_reply({})),
        display="none",
        log_dir=str(logs),
    )
    result["eval"]["exp_a"] = log_fingerprint(log)


def run_cobe(logs: Path, result: dict[str, Any]) -> None:
    for tier in (1, 4):
        [log] = inspect_eval(
            "cobe_inspect/cobe",
            model=scripted("cobe", cobe_model_reply),
            display="none",
            log_dir=str(logs),
            task_args={"tier": tier},
            model_roles={"grader": scripted("grader", cobe_grader_reply)},
        )
        result["eval"][f"cobe-tier{tier}"] = log_fingerprint(log)


def run_glass(work: Path, logs: Path, result: dict[str, Any]) -> None:
    gold: dict[str, dict[str, str]] = {}
    for suite in ("gsm", "math"):
        src = work / "sources" / f"{suite}_builtin.jsonl"
        src.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(builtin_file(suite), src)
        for seed in (0, 7):
            out = work / f"corpus-{suite}-{seed}"
            assert glass_build(["--suite", suite, "--source", str(src), "--out", str(out), "--seed", str(seed)]) == 0
            result["corpus"][f"{suite}-seed{seed}"] = tree_digest(out)
        pairs = work / f"{suite}-m5.jsonl"
        assert glass_build(["export-pairs", str(work / f"corpus-{suite}-0"), "--out", str(pairs), "--dose", "5"]) == 0
        result["corpus"][f"{suite}-seed0-export-m5"] = _sha(pairs.read_bytes())
        # the gold of every text the task will show: its built-in corpus (the MATH one takes GSM distractors,
        # so a plain ``glass-build`` of the MATH source lacks its irrelevant-context twins)
        gold[suite] = {r["text"]: r["answer"] for r in pool_records(default_corpus(suite))}

    for suite in ("gsm", "math"):
        model = scripted(f"glass-{suite}", glass_solver_reply(gold[suite], suite))
        [log] = inspect_eval(f"glass_inspect/glass{suite}", model=model, log_dir=str(logs), display="none")
        corpus = Path(log.eval.metadata["glass"]["corpus"])
        assert corpus == default_corpus(suite), (corpus, default_corpus(suite))
        result["corpus"][f"{suite}-builtin-cache"] = tree_digest(corpus, skip=("corpus.json",))
        result["eval"][f"glass{suite}"] = log_fingerprint(log)
        if suite == "gsm":
            gsm_log = log.location

    model = scripted("solver", lambda p, c: "unused")
    [audit] = inspect_eval(
        "glass_inspect/noop_audit",
        model=model,
        display="none",
        log_dir=str(logs),
        model_roles={"adjudicator": scripted("adjudicator", adjudicator_reply)},
    )
    result["eval"]["noop_audit"] = log_fingerprint(audit)
    audited = work / "audited"
    assert glass_build(["audit", audit.location, "--pool", str(corpus_of(audit)), "--out", str(audited)]) == 0
    info = json.loads((audited / "corpus.json").read_text())
    info["counts"]["noop_audit"].pop("log")
    result["corpus"]["audited"] = tree_digest(audited, skip=("corpus.json",)) | {
        "corpus.json": _sha(json.dumps(info, sort_keys=True))
    }

    from frail.cli import main as frail
    from frail.estimands import job_targets, observations_frame
    from frail.pairs import read_pairs

    pairs = work / "pairs.jsonl"
    assert frail(["pairs", gsm_log, "--out", str(pairs)]) == 0
    jobs = job_targets(observations_frame(read_pairs(pairs)))
    solvable = jobs[jobs["solvable"]]
    result["frail"] = {
        "pairs_sha256": _sha(pairs.read_bytes()),
        "jobs": len(jobs),
        "solvable": len(solvable),
        "mean_pi": _clean(float(solvable["pi"].mean())),
        "fragile": int((solvable["pi"] > 0.05).sum()),
        "mean_a": _clean(float(solvable["a"].mean())),
        "mean_b": _clean(float(solvable["b"].mean())),
    }
    synth = work / "synth"
    assert frail(["synth", "--n-jobs", "60", "--seed", "7", "--out", str(synth / "synth.jsonl")]) == 0
    result["frail"]["synth"] = tree_digest(synth)


def pool_records(corpus: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (corpus / "pool.jsonl").read_text().splitlines()]


def corpus_of(log: Any) -> Path:
    return Path(log.eval.metadata["corpus"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument(
        "--only",
        choices=PARTS,
        help="one part: glass (corpora, glass tasks, No-Op audit, frail), cobe or causalverify; default all",
    )
    args = parser.parse_args(argv)
    work = Path(tempfile.gettempdir()) / "causal-suite-fingerprint"  # one fixed path: corpus.json records it
    os.environ["CAUSAL_SUITE_CACHE"] = str(work / "cache")  # the built-in corpus is built afresh by this code
    with open(f"{work}.lock", "w") as lock:  # runs of several checkouts share the path: one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(work, ignore_errors=True)
        try:
            result = run(work, (args.only,) if args.only else PARTS)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
