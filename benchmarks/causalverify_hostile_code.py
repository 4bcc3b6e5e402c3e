"""Hostile model code in one exp_b eval through the confined sandbox: each case ends within its limit, is recorded,
and does not disturb the host or the other samples (issue 7, 'Hostile code').

    .venv/bin/python benchmarks/causalverify_hostile_code.py [--timeout 10]

A scripted model answers ten built-in DID scenarios: nine with hostile R, one with a correct reference solution.
Prints one row per case (L2a, L2b, L2b+, failure category, seconds, what the log recorded) and the host checks.
Needs Rscript, bwrap, prlimit.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from causalverify_inspect.task import exp_b

MARK = Path("/usr/local/cv-hostile-marker.txt")
CASES = {
    "infinite loop": "while (TRUE) {}",
    "fork bomb": 'system("b(){ b | b & }; b", wait = TRUE)\ncat("Estimate: 1\\n")',
    "memory bomb (3.2 GB)": "x <- numeric(4e8)\ncat(length(x))",
    "network connection": 'con <- socketConnection("192.0.2.1", 80, timeout = 3)\ncat("connected\\n")',
    "write outside work dir": f'writeLines("x", "{MARK}")',
    "read outside work dir": 'print(list.files("/root")); print(readLines("/etc/shadow"))',
    "100 MB of output": 'for (i in 1:100) cat(strrep("x", 1e6))',
    "background process left": 'system("sleep 301 &")\ncat("Estimate: 0.5\\n")',
    "Sys.sleep past timeout": "Sys.sleep(600)",
    "reference solution": 'd <- read.csv("{path}")\n'
                          'm <- lm(y ~ treat_x_post + factor(unit_id) + factor(period), data = d)\n'
                          'cat("Estimate:", coef(m)[["treat_x_post"]], "\\n")',
}


def scripted_model(replies: dict[str, str]):
    def outputs(messages, tools, tool_choice, config) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        reply = next(text for needle, text in replies.items() if needle in prompt)
        out = ModelOutput.from_content(model="mockllm/hostile", content=reply)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/hostile", custom_outputs=outputs, memoize=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=int, default=10)
    args = parser.parse_args()
    ids = [f"did_easy_{i:02d}" for i in range(1, len(CASES) + 1)]
    replies, names = {}, {}
    for sid, (name, code) in zip(ids, CASES.items()):
        path = f"data/{sid}.csv"
        body = code.replace("{path}", path)
        replies[path] = f"## 1. Identification strategy\nDID.\n\n## 2. R code\n```r\n{body}\n```\n"
        names[sid] = name
    with tempfile.TemporaryDirectory() as logs:
        log = eval(exp_b(ids=ids, sandbox="confined", timeout=args.timeout), model=scripted_model(replies),
                   display="none", log_dir=logs, max_samples=2)[0]
        samples = sorted(log.samples, key=lambda s: ids.index(str(s.id)))
    print(f"eval status: {log.status}; timeout {args.timeout} s")
    print(f"{'case':26s} L2a L2b L2b+ {'failure':18s} {'secs':>5s}  recorded")
    for sample in samples:
        score = next(iter(sample.scores.values()))
        run, v = sample.store.get("cv_run", {}), score.value
        if not isinstance(v, dict):
            print(f"{names[str(sample.id)]:26s} unscored: {score.reason} {score.explanation}")
            continue
        errors = [line for line in (run.get("stderr") or "").splitlines() if "rror" in line or "cannot" in line]
        ok = run.get("exit_code") == 0 or run.get("timed_out")
        note = score.explanation if ok else " | ".join(errors[:2]) or (run.get("stderr") or "").strip()[-90:]
        print(f"{names[str(sample.id)]:26s} {v['L2a']:3.0f} {v['L2b']:3.0f} {v['L2b_plus']:4.0f} "
              f"{score.metadata.get('failure') or '-':18s} {run.get('seconds', 0):5.1f}  {note[:110]}")
    leftovers = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p) == "sleep\x00301\x00"]
    print(f"host: {MARK} exists: {MARK.exists()}; leftover background processes: {len(leftovers)}")


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
