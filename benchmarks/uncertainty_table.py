"""Every rate of suite logs with the uncertainty the log records beside it (issue 25): metric, value, SE, 95 %
interval, cluster unit, clusters and n, one table per log, read from the log header only.

    .venv/bin/python benchmarks/uncertainty_table.py LOG_OR_DIR [...]
    .venv/bin/python benchmarks/first_hour.py --keep /tmp/fh && .venv/bin/python benchmarks/uncertainty_table.py /tmp/fh/logs
"""

from __future__ import annotations

import argparse
import math

from inspect_ai.log import read_eval_log

from causal_suite.report import find_logs

CLUSTER_UNIT = {"cobe": "core example", "glassgsm": "base problem", "glassmath": "base problem", "exp_b": "scenario"}
SUFFIXES = ("_se", "_low", "_high", "_n", "_clusters")


def table(path: str) -> list[str]:
    """The markdown lines of one log: a row per rate that has its ``_se`` beside it."""
    log = read_eval_log(path, header_only=True)
    task = log.eval.task.split("/")[-1]
    metrics = {n: m.value for s in (log.results.scores if log.results else []) for n, m in s.metrics.items()}
    lines = [
        f"### {task} ({log.eval.model}, {path.split('/')[-1]})",
        "",
        "| metric | value | SE | 95 % interval | cluster unit | clusters | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in metrics:
        if name.endswith(SUFFIXES) or f"{name}_se" not in metrics:
            continue
        v = {key: _number(metrics.get(f"{name}{key}")) for key in ("", *SUFFIXES)}
        lines.append(
            f"| {name} | {v['']} | {v['_se']} | [{v['_low']}, {v['_high']}] | {CLUSTER_UNIT.get(task, '?')} | "
            f"{v['_clusters'].removesuffix('.000')} | {v['_n'].removesuffix('.000')} |"
        )
    return [*lines, ""]


def _number(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help=".eval logs or folders holding them")
    args = parser.parse_args()
    for path in find_logs(args.logs):
        if read_eval_log(str(path), header_only=True).eval.task.split("/")[-1] in CLUSTER_UNIT:
            print("\n".join(table(str(path))))


if __name__ == "__main__":
    main()
